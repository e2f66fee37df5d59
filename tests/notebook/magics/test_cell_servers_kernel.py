"""The server author's loop in a real kernel, this test playing the person over jupyter_client:
build a server in a cell, connect it as ``{{srv}}``, edit the cell and run it again. The edit
did nothing and nothing said so; now the next ``%mcp`` line says so, and ``%mcp reconnect``
runs the edited server."""

from __future__ import annotations

from tests.frontend import Frontend
from tests.notebook.magics.test_cell_servers import BUILD

EDITED = BUILD.replace("a: int, b: int)", "a: int, b: int, c: int = 0)").replace("a + b", "a + b + c + 1000")


def test_an_edited_server_cell_is_said_and_reconnect_runs_it(kernel):
    fe = Frontend(kernel)
    fe.run_ok("%load_ext mcpnb")
    fe.run_ok(BUILD)
    fe.run_ok("%mcp connect demo {{srv}}")
    fe.run_ok(EDITED)
    tools = fe.run_ok("%mcp tools demo")
    assert "note: srv now holds another server than the one 'demo' runs" in fe.stdout[tools]
    assert "%mcp reconnect demo runs the new one" in fe.stdout[tools]
    call = fe.execute("%mcp call demo.add a=2 b=3 c=4")
    reply = fe.reply(call)
    assert reply["status"] == "error" and "unknown argument 'c'" in reply["evalue"]
    assert "%mcp reconnect demo runs the new one" in reply["evalue"]
    again = fe.run_ok("%mcp reconnect demo")
    assert "demo: srv holds a new server object (its cell ran again): connecting that one" in fe.stdout[again]
    done = fe.run_ok("%mcp call demo.add a=2 b=3 c=4")
    assert "1009" in fe.results[done]["text/plain"]
    fe.run_ok("import mcpnb; mcpnb.default_pool().close()")
