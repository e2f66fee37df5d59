"""Terminal IPython, driven through a pseudo-terminal as a person types: a text question given up
by Ctrl-C takes no line typed after it.

``input()`` in a thread went on waiting on stdin after the call that asked was interrupted, and
took the next line typed at ``In [N]``: ``x = 41 + 1`` never ran, and ``x`` was a NameError.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX's")

if sys.platform != "win32":
    import pexpect  # the test extra's (POSIX only)

#: What a terminal draws besides the text (prompt_toolkit's cursor moves, colours, carriage returns).
_DRAWING = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]|\x1b\][^\x07]*\x07|\x1b[=>]|\r")


def _ipython(tmp_path: Any, *, simple: bool = True) -> Any:
    """Terminal IPython in a pseudo-terminal, with an IPython profile of its own; Ctrl-C reaches it
    (a child of a non-interactive shell would otherwise ignore SIGINT). ``simple``: its plain
    prompt; else prompt_toolkit's, which sets the terminal up for each prompt."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "IPython", "--no-banner", "--colors=nocolor", *(["--simple-prompt"] if simple else [])],
        encoding="utf-8",
        dimensions=(50, 200),
        env=dict(os.environ, TERM="xterm", IPYTHONDIR=str(tmp_path)),
        timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def test_ctrl_c_at_a_text_question_leaves_the_next_line_to_ipython(tmp_path):
    ipython = _ipython(tmp_path)
    try:
        ipython.expect(r"In \[1\]: ")
        ipython.sendline("%load_ext mcpnb")
        ipython.expect(r"In \[2\]: ")
        ipython.sendline("%mcp serve probe-kit")
        ipython.expect(r"In \[3\]: ")
        ipython.sendline('%mcp call probe.ask_user question="Pick a colour"')
        ipython.expect(r"Answer \(required\): ")  # the question's field, asked on the terminal
        ipython.sendintr()  # Ctrl-C: the call ends, and its question with it
        ipython.expect(r"In \[4\]: ")
        ipython.sendline("x = 41 + 1")
        ipython.expect(r"In \[5\]: ")
        ipython.sendline("print('X IS', x)")
        ipython.expect(r"In \[6\]: ")
        said = _DRAWING.sub("", ipython.before)
        assert "X IS 42" in said and "NameError" not in said, said
        ipython.sendline("exit")
        ipython.expect(pexpect.EOF)
    finally:
        ipython.close(force=True)


SIGN_IN = """
from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("vault", log_level="ERROR")


class Login(BaseModel):
    password: str


@server.tool()
async def sign_in(ctx: Context) -> str:
    got = await ctx.elicit("Your password? \x1b]52;c;SEVMTE8=\x07\u202e", Login)  # and a clipboard write
    return f"GOT {got.action} {len(got.data.password) if got.action == 'accept' else 0} characters"


server.run("stdio")
"""


def test_a_password_typed_on_the_terminal_is_not_echoed_and_reaches_the_server(tmp_path):
    """A secret-looking field is read with the terminal's echo off, and the echo comes back after;
    the question's words reach the terminal without the server's escape sequences (an OSC 52
    writes the terminal's clipboard)."""
    server = tmp_path / "vault.py"
    server.write_text(SIGN_IN)
    ipython = _ipython(tmp_path)
    try:
        ipython.expect(r"In \[1\]: ")
        ipython.sendline(f"%load_ext mcpnb\n%mcp connect vault --era legacy -- {sys.executable} {server}")
        ipython.expect(r"In \[3\]: ")
        ipython.sendline("%mcp call vault.sign_in")
        ipython.expect(r"[Pp]assword.*: ")
        asked = ipython.before + ipython.after  # as the terminal got it: the server's escapes written out
        assert "\x1b]52" not in asked and "\u202e" not in asked and "<U+202E>" in asked, asked
        ipython.sendline("hunter2")
        ipython.expect(r"In \[4\]: ")
        said = _DRAWING.sub("", ipython.before)
        assert "GOT accept 7 characters" in said and "hunter2" not in said, said
        ipython.sendline("print('ECHO ' + 'BACK')")  # typed with the echo on again
        ipython.expect(r"In \[5\]: ")
        assert "print('ECHO ' + 'BACK')" in ipython.before and "ECHO BACK" in ipython.before
    finally:
        ipython.close(force=True)


def test_ctrl_c_at_a_password_leaves_the_next_prompt_its_terminal(tmp_path):
    """Given up, a secret's read puts the echo back before IPython's next prompt sets the terminal
    up (prompt_toolkit's, not the simple one): put back after, the prompt ran on a terminal that
    echoed each line itself and held keys until Enter (seen in 4 runs of 6 before)."""
    server = tmp_path / "vault.py"
    server.write_text(SIGN_IN)
    ipython = _ipython(tmp_path, simple=False)
    try:
        ipython.expect(r"In \[1\]")
        ipython.sendline("%load_ext mcpnb")
        ipython.expect(r"In \[2\]")
        ipython.sendline(f"%mcp connect vault --era legacy -- {sys.executable} {server}")
        ipython.expect(r"In \[3\]")
        ipython.sendline("%mcp call vault.sign_in")
        ipython.expect(r"[Pp]assword.*: ")
        time.sleep(0.3)  # a person reads the question; the read waits on the terminal meanwhile
        ipython.sendintr()
        ipython.expect(r"In \[4\]")
        time.sleep(0.5)  # and starts to type once the prompt shows
        ipython.send("x = 41 + 1\r")
        ipython.expect(r"In \[5\]")
        assert "x = 41 + 1\r\n" not in ipython.before, ipython.before  # the terminal echoed it itself
        ipython.send("print('X IS', x)\r")
        ipython.expect("X IS 42")
    finally:
        ipython.close(force=True)
