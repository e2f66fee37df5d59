"""A call that asks twice keeps both answers on record, in the order they were asked.

Each question of a ``%mcp call`` shows in the calling cell and, once answered, its output becomes its
record (``forms.record``): what was asked and what was sent, secrets masked, which a saved notebook
keeps. All the questions of one call shared one output, so the second question's form took the
first one's record's place and the saved .ipynb kept only the second answer. A real kernel, the
SDK's own ``MCPServer`` (a sign-in with a password, then a question that follows from its answer,
so both eras ask them one after the other), and this test playing JupyterLab over jupyter_client:
the notebook is built from the iopub messages as a frontend saves it and read back as the file's
JSON. Both ways a cell calls: awaiting the call (a top-level ``%mcp call``) and a plain synchronous
call (inside a function: the cell lets go and the questions come after it ended).
"""

from __future__ import annotations

import json

import pytest

from tests.frontend import Frontend
from tests.notebook.test_saved_forms import WIDGET_VIEW, SavedNotebook, _html, _text

pytestmark = pytest.mark.timeout(180)

PASSWORD = "correct-horse-9"

SETUP = """\
%load_ext mcpnb
from typing import Annotated
from pydantic import BaseModel, Field
from mcp.server.mcpserver import Elicit, ElicitationResult, MCPServer, Resolve
import mcpnb

class SignIn(BaseModel):
    user: str = Field(title="User name")
    password: str = Field(title="Password")

class Shelf(BaseModel):
    shelf: str = Field(title="Shelf")

def ask_sign_in() -> Elicit[SignIn]:
    return Elicit("Sign in to the vault", SignIn)

def ask_shelf(signed: Annotated[ElicitationResult[SignIn], Resolve(ask_sign_in)]) -> Elicit[Shelf]:
    who = signed.data.user if signed.action == "accept" else "nobody"
    return Elicit(f"Which shelf should {who} open?", Shelf)

vault = MCPServer("vault", log_level="WARNING")

@vault.tool()
def open_shelf(
    signed: Annotated[ElicitationResult[SignIn], Resolve(ask_sign_in)],
    shelf: Annotated[ElicitationResult[Shelf], Resolve(ask_shelf)],
) -> str:
    if signed.action != "accept" or shelf.action != "accept":
        return "nothing opened"
    return f"{signed.data.user} opened shelf {shelf.data.shelf}"

_ = mcpnb.default_pool().connect("vault", server=vault)
"""
AWAITED = 'r = %mcp call vault.open_shelf\nprint("after:", r.text)'
LET_GO = "def go():\n    r = %mcp call vault.open_shelf\n    return r\nlive = go()"


def _answer_both(fe: Frontend, run: str) -> None:
    """Each form as :meth:`Frontend.form` finds it: the newest live one whose own widgets hold its
    fields and Accept (the answered form closes while the next one opens, so "a live form" and "a
    live Accept" alone can be the old form's, or the new one may not have all its widgets yet)."""
    sign_in = fe.form(run, "user", "password")
    fe.set(sign_in["user"], "ada")
    fe.set(sign_in["password"], PASSWORD)
    fe.click(sign_in["accept"])
    shelf = fe.form(run, "shelf")  # the second question, once the first was answered
    fe.set(shelf["shelf"], "B-7")
    fe.click(shelf["accept"])


@pytest.mark.parametrize("how", ["awaited", "let go"])
def test_both_questions_of_one_call_are_saved_in_order(kernel, how):
    fe = Frontend(kernel)
    saved = SavedNotebook(kernel)
    setup = fe.run_ok(SETUP)
    code = AWAITED if how == "awaited" else LET_GO
    run = fe.execute(code)
    if how == "let go":
        assert fe.reply(run)["status"] == "ok"  # the cell ended: the questions come after it
    _answer_both(fe, run)
    if how == "awaited":
        assert fe.reply(run)["status"] == "ok"
        assert "after: ada opened shelf B-7" in fe.stdout[run]
    else:
        fe.wait_for(
            lambda: any("ada opened shelf B-7" in str(o) for o in saved.outputs.get(run, [])),
            what="the result under the questions",
        )
    fe.pump(0.3)

    text = saved.json([(SETUP, setup), (code, run)])
    assert PASSWORD not in text
    outputs = json.loads(text)["cells"][1]["outputs"]
    assert all(WIDGET_VIEW not in o.get("data", {}) for o in outputs), outputs  # no "model not found"
    records = [o for o in outputs if "mcpnb-record" in _html(o)]
    assert len(records) == 2, outputs  # one record for each question, none overwritten
    first, second = (_text(r["data"]["text/plain"]) for r in records)
    assert "Sign in to the vault" in first and "user: ada" in first and "password: ••••••" in first
    assert "Which shelf should ada open?" in second and "shelf: B-7" in second
    assert outputs.index(records[0]) < outputs.index(records[1])
