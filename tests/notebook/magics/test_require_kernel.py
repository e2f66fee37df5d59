"""Strategy ``ask`` in a real kernel, with this test playing the person over jupyter_client.

A top-level ``%%mcp require --strategy ask`` cell awaits (ipykernel >= 7.4): the form shows in that
cell, one choice per conflict, priority's pick pre-selected; the cell goes on once Accept is clicked.
A cell that cannot wait for a click (the magic inside a function) asks on stdin instead. Headless
(no stdin, as under nbclient) nobody is asked: priority decides and the table says so.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.client.requirements.skillfiles import write_skill
from tests.frontend import Frontend

PROBE = [sys.executable, "-m", "mcpnb.probekit", "--toolset"]


def _setup(fe: Frontend, tmp_path: Path) -> str:
    """Load the extension; return the body of a require cell where the notebook and a skill disagree."""
    write_skill(tmp_path, "flows", servers={"probe": {"command": PROBE[0], "args": [*PROBE[1:], "workflow"]}})
    reply = fe.reply(fe.execute("%load_ext mcpnb"))
    assert reply["status"] == "ok", reply
    return (
        "mcpServers:\n"
        f"  probe: {{command: {PROBE[0]}, args: [-m, mcpnb.probekit, --toolset, core]}}\n"
        f"skills: [{tmp_path / 'flows'}]\n"
    )


def _args_of_probe(fe: Frontend) -> str:
    cell = fe.execute(
        "import mcpnb; print('ARGS', ' '.join(mcpnb.default_pool().connection('probe').config.args))"
    )
    assert fe.reply(cell)["status"] == "ok"
    return fe.stdout[cell]


def test_ask_shows_a_form_in_the_cell_and_uses_the_choice(kernel, tmp_path):
    fe = Frontend(kernel)
    body = _setup(fe, tmp_path)
    cell = fe.execute(f"%%mcp require --strategy ask --no-config -o res\n{body}")
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-form"), what="the form")
    choice = fe.find(cell, css="mcpnb-field-probe")
    accept = fe.find(cell, css="mcpnb-accept", model="ButtonModel")
    assert choice and accept
    assert fe.models[choice]["_model_name"] == "RadioButtonsModel"
    assert fe.models[choice]["index"] == 0  # priority's pick, the notebook's, pre-selected
    labels = fe.models[choice]["_options_labels"]
    assert labels[0].startswith("notebook: ") and labels[1].startswith("skill 'flows': ")
    fe.set_index(choice, 1)
    fe.click(accept)
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    assert "asked: skill 'flows' was chosen" in fe.results[cell]["text/plain"]
    assert "workflow" in _args_of_probe(fe)
    fe.reply(fe.execute("mcpnb.default_pool().close()"))


def test_a_cell_that_cannot_wait_for_a_click_asks_on_stdin(kernel, tmp_path):
    fe = Frontend(kernel)
    body = _setup(fe, tmp_path)
    code = (
        "def need():\n"
        f"    return get_ipython().run_cell_magic('mcp', 'require --strategy ask --no-config', {body!r})\n"
        "print('NOTES', need()['probe'].notes)\n"
    )
    cell = fe.execute(code, allow_stdin=True)
    msg = kernel.get_stdin_msg(timeout=60)
    assert msg["msg_type"] == "input_request" and msg["content"]["prompt"].startswith("probe")
    kernel.input("2")  # the second choice, by number
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    assert "asked: skill 'flows' was chosen" in fe.stdout[cell]
    assert "workflow" in _args_of_probe(fe)
    fe.reply(fe.execute("mcpnb.default_pool().close()"))


def test_headless_nobody_is_asked_and_priority_decides(kernel, tmp_path):
    fe = Frontend(kernel)
    body = _setup(fe, tmp_path)
    cell = fe.execute(f"%%mcp require --strategy ask --no-config\n{body}", allow_stdin=False)
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    text = fe.results[cell]["text/plain"]
    assert "nobody to ask (a headless run), so priority: notebook wins over skill 'flows'" in text
    assert not [m for m in fe.models.values() if "mcpnb-form" in m.get("_dom_classes", [])]  # no form shown
    assert "core" in _args_of_probe(fe)
    fe.reply(fe.execute("mcpnb.default_pool().close()"))


def test_a_vs_code_files_inputs_are_asked_in_the_cell(kernel, tmp_path):
    """``--config .vscode/mcp.json``: the input the needed server lacks is a form in this cell."""
    import json

    entry = {"command": PROBE[0], "args": [*PROBE[1:], "${input:toolset}"]}
    (tmp_path / ".vscode").mkdir()
    path = tmp_path / ".vscode" / "mcp.json"
    path.write_text(json.dumps({"inputs": [{"id": "toolset"}], "servers": {"probe": entry}}))
    fe = Frontend(kernel)
    assert fe.reply(fe.execute("%load_ext mcpnb"))["status"] == "ok"
    cell = fe.execute(f"%%mcp require --config {path}\nmcpServers:\n  probe: {{}}\n")
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-form"), what="the form")
    field = fe.find(cell, css="mcpnb-field-toolset")
    accept = fe.find(cell, css="mcpnb-accept", model="ButtonModel")
    assert field and accept
    fe.set(field, "workflow")
    fe.click(accept)
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    assert "workflow" in _args_of_probe(fe)
    fe.reply(fe.execute("mcpnb.default_pool().close()"))
