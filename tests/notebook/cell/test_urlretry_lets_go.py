"""The −32042 panel's Retry, clicked once its cell has ended, lets go of the kernel (a real kernel).

The click ran the retried call on the kernel's thread: no other cell ran meanwhile, and a retried
call that asked a form could not be answered (widget messages come on that same thread), so it was
declined (nobody could type) or waited for the elicitation timeout. Now the click lets go at once,
as the explorer's Call does: the form shows under the panel, a cell runs while it waits, and the
answer reaches the server, whose result lands under the panel.

The server is the SDK's own ``MCPServer`` (in the kernel, the 2025-11-25 era: −32042 and a pushed
form are that era's): it refuses the first call with ``UrlElicitationRequiredError`` and asks a
form on the retry.
"""

from __future__ import annotations

import pytest

from tests.frontend import Frontend

SETUP = """
%load_ext mcpnb
import mcpnb
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp.types import ElicitRequestURLParams
from pydantic import BaseModel

srv = MCPServer("gate", log_level="WARNING")
calls = []


class Name(BaseModel):
    name: str


@srv.tool()
async def sign_in(ctx: Context) -> str:
    calls.append(1)
    if len(calls) == 1:
        page = ElicitRequestURLParams(
            mode="url", message="Sign in first", url="https://example.com/login", elicitation_id="e1"
        )
        raise UrlElicitationRequiredError([page])
    answer = await ctx.elicit("Your name?", Name)
    return f"signed in as {answer.data.name}" if answer.action == "accept" else f"no: {answer.action}"


mcpnb.default_pool().connect("gate", server=srv, era="legacy")
"""

#: the magic in a function: a synchronous cell, whose panel shows and whose cell then ends
FROM_A_CELL = "def go():\n    return get_ipython().run_line_magic('mcp', 'call gate.sign_in')\npanel = go()"
#: ``pool.call`` in Python code, its error shown as the panel (the result goes under it, in its box)
FROM_CODE = """
from mcpnb.client.errors import UrlRequiredError
from mcpnb.notebook.cell import UrlRetry

try:
    mcpnb.default_pool().call("gate", "sign_in")
except UrlRequiredError as exc:
    panel = UrlRetry(mcpnb.default_pool(), exc, {})
panel
"""


def _run(fe: Frontend, code: str) -> str:
    cell = fe.execute(code)
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    return cell


def _last(fe: Frontend, css: str) -> str:
    """The newest widget with class ``css`` (the retried call's form comes after the panel)."""
    return [k for k, st in fe.models.items() if css in st.get("_dom_classes", [])][-1]


@pytest.mark.parametrize("shown", [FROM_A_CELL, FROM_CODE], ids=["synchronous-cell", "pool-call"])
def test_retry_lets_go_and_its_form_is_answered_while_a_cell_runs(kernel, shown):
    fe = Frontend(kernel)
    _run(fe, SETUP)
    cell = _run(fe, shown)  # the cell has ended: the panel waits for a click
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-url-consent"), what="the consent panel")
    retry = fe.find(cell, css="mcpnb-retry", model="ButtonModel")
    assert retry, "no Retry button"
    fe.click(retry)
    # the retried call asks: its form shows under the panel (the click held the kernel: declined)
    fe.wait_for(lambda: fe.find(None, css="mcpnb-form"), timeout=20, what="the retried call's form")
    meanwhile = fe.execute("print('the kernel is free')")
    reply = fe.reply(meanwhile, timeout=20)  # bounded: a held kernel fails here, not hangs
    assert reply["status"] == "ok", reply
    assert "the kernel is free" in fe.stdout[meanwhile]
    fe.set(fe.find(None, css="mcpnb-field-name"), "Ada")
    fe.click(_last(fe, "mcpnb-accept"))  # the form's (the panel's own "completed" came first)
    said = "signed in as Ada"
    if shown is FROM_A_CELL:  # an output of the calling cell of its own
        fe.wait_for(
            lambda: any(said in d.get("text/plain", "") for d in fe.by_display_id.values()),
            timeout=20,
            what="the result under the panel",
        )
    else:  # the box's result view
        view = fe.find(cell, css="mcpnb-retry-result")
        fe.wait_for(lambda: said in fe.models[view].get("value", ""), timeout=20, what="the result")
    _panel_says(fe, "Done: the result is below", "the panel saying it is done")


def test_a_retry_that_fails_says_so_under_the_panel(kernel):
    """The server went away before the click: the retry cannot start, and the panel says so (the
    error under it), rather than an exception in the kernel's log that nobody sees."""
    fe = Frontend(kernel)
    _run(fe, SETUP)
    cell = _run(fe, FROM_CODE)
    fe.wait_for(lambda: fe.find(cell, css="mcpnb-url-consent"), what="the consent panel")
    _run(fe, "mcpnb.default_pool().disconnect('gate')")
    fe.click(fe.find(cell, css="mcpnb-retry", model="ButtonModel"))
    view = fe.find(cell, css="mcpnb-retry-result")
    fe.wait_for(lambda: "gate" in fe.models[view].get("value", ""), timeout=20, what="the error")
    assert "disconnected" in fe.models[view]["value"]
    _panel_says(fe, "The retry failed", "the panel saying the retry failed")


def _panel_says(fe: Frontend, words: str, what: str) -> None:
    """Wait until the panel's status line says ``words``."""
    fe.wait_for(
        lambda: any(
            words in st.get("value", "")
            for st in fe.models.values()
            if "mcpnb-status" in st.get("_dom_classes", [])
        ),
        timeout=20,
        what=what,
    )
