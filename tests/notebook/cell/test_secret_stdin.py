"""A text-mode form reads every typed secret with the kernel's ``getpass`` (a real kernel).

JupyterLab keeps what a cell's ``input()`` read as a ``stdin`` output of the cell, saved with the
notebook: a PIN (an integer field), an OTP code (a number field) asked with ``input()`` stayed there
as ``pin (integer) (optional, Enter to skip): 97531864``. ``getpass`` asks with ``password: true``,
and JupyterLab shows (and keeps) dots instead. The test plays the frontend and the person typing.
"""

from __future__ import annotations

import sys

from conftest import ROOT

from tests.frontend import Frontend, input_request

SERVER = ROOT / "tests" / "servers" / "secrets_server.py"
ANSWERS = {
    "user": "ann",
    "secret_answer": "TextPassWd_Q1w2E3r4T5",
    "pin": "97531864",
    "otp_code": "13572468",
    "blob": "TextWOBlob_Z9Y8X7",
    "colour": "red",
}


def test_every_typed_secret_is_asked_as_a_password(kernel):
    fe = Frontend(kernel)
    fe.run_ok(f"%load_ext mcpnb\n%mcp connect sec --era legacy -- {sys.executable} {SERVER}")
    fe.run_ok('%config Mcp.elicitation = "text"')
    cell = fe.execute("%mcp call sec.ask_secrets", allow_stdin=True)
    hidden = {}
    for _ in ANSWERS:
        asked = input_request(fe.kc, cell, between=lambda: fe.pump(0.05))
        name = asked["prompt"].split(" ", 1)[0]
        hidden[name] = asked["password"]
        fe.kc.input(ANSWERS[name])
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    assert hidden == {
        "user": False,
        "secret_answer": True,
        "pin": True,
        "otp_code": True,
        "blob": True,
        "colour": False,
    }
    said = fe.stdout.get(cell, "") + str(fe.results.get(cell, ""))
    assert "accept:" in said and all(ANSWERS[k] not in said for k in hidden if hidden[k])
