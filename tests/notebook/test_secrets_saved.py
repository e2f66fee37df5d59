"""A saved notebook holds no secret a connection knows: a real kernel runs the cells, the outputs
are saved as a frontend saves them (``SavedNotebook``) and the .ipynb's text is searched.

The server (``tests/servers/leaky_server.py``, the SDK's ``MCPServer`` over stdio) logs its own
key under a call and asks for a passphrase, a PIN and a one-time code, answered with ``--answers``.
No secret is written in a cell's source: each is put together in the kernel, so only what the
outputs show can put one in the file.

And a usage error of the magics never repeats a secret typed in the wrong place (a real IPython
shell, as ``tests/notebook/magics`` runs the magics).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from IPython.core.error import UsageError

from tests.frontend import Frontend
from tests.notebook.magics.conftest import _loaded_shell, ip, line  # noqa: F401  (fixtures)
from tests.notebook.test_saved_forms import SavedNotebook

pytestmark = pytest.mark.timeout(180)

LEAKY = str(Path(__file__).parents[1] / "servers" / "leaky_server.py")
KEY = "apiSECRETz9y8x7w6"
PASSPHRASE = "correct-horse-battery"
CODE = "O7T1C0D3"
PIN = "802211"

# each secret is written reversed and turned round in the kernel: the cell's source never holds it
SETUP = f"""\
%load_ext mcpnb
import sys, mcpnb
key = {KEY[::-1]!r}[::-1]
answers = {{"user": "ann", "passphrase": {PASSPHRASE[::-1]!r}[::-1], "pin": {PIN[::-1]!r}[::-1],
           "one_time_code": {CODE[::-1]!r}[::-1]}}
_ = mcpnb.default_pool().connect(
    "leaky", command=sys.executable, args=[{LEAKY!r}], env={{"API_KEY": key}}, era="legacy"
)
"""
CELLS = [
    "%mcp call --transcript leaky.log_env name=API_KEY",
    "r = %mcp call leaky.log_env name=API_KEY\nr",
    "%mcp call --transcript --answers answers leaky.ask_unlock",
    "%mcp logs leaky",
    "%mcp status",
    "%mcp config",
]


def test_a_saved_notebook_holds_no_secret_of_a_log_line_a_transcript_or_an_answer(kernel):
    fe = Frontend(kernel)
    saved = SavedNotebook(kernel)
    runs = [(SETUP, fe.run_ok(SETUP))]
    runs += [(cell, fe.run_ok(cell)) for cell in CELLS]
    fe.pump(0.3)
    text = saved.json(runs)
    for secret in (KEY, PASSPHRASE, CODE, PIN):
        assert secret not in text, secret
    cells = json.loads(text)["cells"]
    transcript = json.dumps(cells[1]["outputs"])
    assert "log says API_KEY=***" in transcript and "notifications/message" in transcript
    assert "log says API_KEY=***" in json.dumps(cells[2]["outputs"])  # the log lines under a result
    answered = json.dumps(cells[3]["outputs"])
    assert "elicitation/create" in answered and "ann" in answered


@pytest.mark.parametrize(
    "typed",
    [
        "connect g {secret} http://127.0.0.1:9/mcp",
        "connect g http://127.0.0.1:9/mcp --wait {secret}",
        "connect g http://127.0.0.1:9/mcp --era {secret}",
    ],
)
def test_a_usage_error_does_not_repeat_a_secret_typed_in_the_wrong_place(ip, typed):  # noqa: F811
    secret = "ghp_Q7rT2xLm9KpZ4vWb8NcY1dHs6JfA3eGu"
    with pytest.raises(UsageError) as refused:
        line(ip, typed.format(secret=secret))
    assert secret not in str(refused.value)
    assert "not shown" in str(refused.value)


def test_a_usage_error_still_names_a_plain_word(ip):  # noqa: F811
    with pytest.raises(UsageError) as refused:
        line(ip, "connect g uvx some-server")
    assert "'uvx' starts the server, so it goes after --" in str(refused.value)
    with pytest.raises(UsageError) as refused:
        line(ip, "connect g http://127.0.0.1:9/mcp --era modrn")
    assert "invalid choice: 'modrn'" in str(refused.value)
