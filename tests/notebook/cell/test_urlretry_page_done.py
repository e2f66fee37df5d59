"""The −32042 panel retries by itself once the server says its page is done (a real kernel).

MCP 2025-11-25: a server may send ``notifications/elicitation/complete`` when the interaction on
the page it asked for is over, and a client "MAY wait for this notification to automatically retry
requests that received a URLElicitationRequiredError". The server is the SDK's ``MCPServer``; its
session's ``send_elicit_complete`` (the SDK's implementation) stands in for a sign-in page that
tells its server the person is done. Retry stays on the panel for servers that never say so (the
other −32042 tests).
"""

from __future__ import annotations

from tests.frontend import Frontend

SETUP = """
%load_ext mcpnb
import threading, time
import mcpnb
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp.types import ElicitRequestURLParams

srv = MCPServer("gate", log_level="WARNING")
calls, sessions = [], {}


@srv.tool()
async def sign_in(ctx: Context) -> str:
    calls.append(1)
    if len(calls) == 1:
        sessions["e1"] = ctx.session
        page = ElicitRequestURLParams(
            mode="url", message="Sign in first", url="http://127.0.0.1:9/login", elicitation_id="e1"
        )
        raise UrlElicitationRequiredError([page])
    return f"signed in (call {len(calls)})"


def page_done(eid="e1"):
    '''What the server's sign-in page does when the person has finished there.'''
    for _ in range(200):  # the call that asked for it may still be on its way
        if eid in sessions:
            break
        time.sleep(0.05)
    mcpnb.default_pool().runtime.run(sessions[eid].send_elicit_complete(eid))


mcpnb.default_pool().connect("gate", server=srv, era="legacy")
"""


def _run(fe: Frontend, code: str) -> str:
    cell = fe.execute(code)
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    return cell


def _status(fe: Frontend) -> str:
    return " ".join(
        st.get("value", "") for st in fe.models.values() if "mcpnb-status" in st.get("_dom_classes", [])
    )


def test_a_panel_whose_cell_ended_retries_when_the_server_says_the_page_is_done(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    cell = _run(
        fe, "def go():\n    return get_ipython().run_line_magic('mcp', 'call gate.sign_in')\npanel = go()"
    )
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-url-consent"), what="the consent panel")
    fe.pump(0.3)
    assert "signed in" not in str(fe.by_display_id)  # nothing retried before the server's word
    _run(fe, "page_done()")  # nobody clicks
    fe.wait_for(
        lambda: any("signed in (call 2)" in d.get("text/plain", "") for d in fe.by_display_id.values()),
        timeout=20,
        what="the retried call's result under the panel",
    )
    fe.wait_for(lambda: "Done: the result is below" in _status(fe), timeout=20, what="the panel saying done")
    assert "gate</b> says the page is done" in _status(fe)
    assert "Went on from the page" not in _status(fe)  # the server's word, not a click's
    told = _run(fe, "print('calls', len(calls))")
    assert "calls 2" in fe.stdout[told]  # retried once


def test_an_awaiting_cell_goes_on_with_the_retried_result_without_a_click(kernel):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    _run(fe, "threading.Timer(0.5, page_done).start()")  # the person finishes on the page meanwhile
    cell = fe.execute("%mcp call gate.sign_in")
    assert fe.reply(cell, timeout=30)["status"] == "ok"
    assert "signed in (call 2)" in fe.results[cell]["text/plain"]  # the cell's result: the retry's
    assert "gate</b> says the page is done" in _status(fe)


PROBE = """
%load_ext mcpnb
import pathlib, tempfile, time, urllib.request
import mcpnb
from mcpnb.probekit import create_server
root = pathlib.Path(tempfile.mkdtemp()); (root / "README.md").write_text("hello page")
mcpnb.default_pool().connect("probe", server=create_server(root=root), era="legacy")
def go():
    return get_ipython().run_line_magic('mcp', 'call probe.open_local_page path=README.md via=error')
"""


def test_a_page_asked_for_again_with_the_same_id_waits_for_its_new_visit(kernel):
    """probe-kit's id is one client's consent to one page: the same for every call. Its earlier
    "done" made the next refusal's panel retry at once (nobody visited) or fail as it was built."""
    fe = Frontend(kernel)
    _run(fe, PROBE)
    _run(fe, "p1 = go(); url = p1.error.elicitations[0]['url']")
    _run(fe, "urllib.request.urlopen(url, timeout=10).read()")  # the person opens the page: done
    _run(fe, "for _ in range(100):\n    if p1.result is not None: break\n    time.sleep(0.1)")
    told = _run(fe, "print('first', p1.result.structured['action'])")
    assert "first accept" in fe.stdout[told]
    second = fe.execute("p2 = go()")  # the same call again: asked again, with the same id
    assert fe.reply(second)["status"] == "ok"
    fe.pump(1.0)
    told = _run(fe, "print('second', p2.result)")
    assert "second None" in fe.stdout[told]  # waits for the person (or the page's new visit)
    _run(fe, "urllib.request.urlopen(url, timeout=10).read()")  # visited again: now it goes on
    _run(fe, "for _ in range(100):\n    if p2.result is not None: break\n    time.sleep(0.1)")
    told = _run(fe, "print('second', p2.result.structured['action'])")
    assert "second accept" in fe.stdout[told]
