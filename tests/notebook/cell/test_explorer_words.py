"""``%mcp explore`` in words: what a saved notebook, a text frontend or a screen reader gets."""

from __future__ import annotations

from conftest import demo_command, wait_until

from mcpnb.notebook.cell import ToolExplorer


def test_the_explorer_says_what_it_is_its_server_and_its_last_call(pool):
    pool.connect("demo", **demo_command())
    explorer = ToolExplorer(pool, "demo")
    explorer.tool_pick.value = "add"
    plain = explorer._repr_mimebundle_()["text/plain"]
    assert "VBox" not in plain and "tool explorer" in plain and "server demo" in plain and "tool add" in plain
    assert "no call yet" in plain
    explorer.form.inputs["a"].value = "2"
    explorer.form.inputs["b"].value = "40"
    live = explorer.call()
    assert wait_until(lambda: live.done() and explorer.call_button.description == "Call")
    assert "last call: ✓ in" in explorer._repr_mimebundle_()["text/plain"]
    assert 'role="status"' in explorer.status.value  # the outcome is said as it shows
