"""A server's escape sequences and bidi overrides never reach ``text/plain`` (security sweep).

The server is the SDK's ``MCPServer`` over stdio: its name and version, instructions, a tool's name
and description, a resource, a prompt, a log message, its stderr, a tool error and a result all
carry an OSC 52 (which writes a terminal's clipboard), a screen clear, a cursor move and U+202E
(right-to-left override). What a terminal IPython prints (the ``text/plain`` its display formatter
takes) has none of them, each shown instead as something a reader sees; what the server sent stays
as sent in the data.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from mcpnb.client.errors import ConnectError
from mcpnb.client.printable import printable
from mcpnb.client.status import StatusTable
from mcpnb.client.toolbox.box import Toolbox
from mcpnb.notebook.magics.listings import LogView, PromptCard, PromptList, ResourceList
from mcpnb.notebook.render.html import esc

EVIL = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[1A\u202e"
RAW = ("\x1b", "\x07", "\u202e", "]52;", "[2J", "[1A")
SHOWN = "<U+202E>"  # the override, said where it was

SERVER = f"""
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

EVIL = {EVIL!r}
server = MCPServer("evil" + EVIL, version="6.6" + EVIL, instructions="read me" + EVIL, log_level="ERROR")


@server.tool(name="peek" + EVIL, description="looks" + EVIL + "\\nsecond line")
async def peek(ctx: Context) -> str:
    await ctx.info("logged" + EVIL)
    print("stderr" + EVIL, file=sys.stderr, flush=True)
    return "said" + EVIL


@server.tool()
def fail() -> str:
    raise ToolError("broken" + EVIL)


@server.resource("evil://r", name="res" + EVIL, description="resource" + EVIL)
def res() -> str:
    return "body" + EVIL


@server.prompt(name="pr" + EVIL, description="prompt" + EVIL)
def pr(topic: str) -> str:
    return "about " + topic + EVIL


print("starting" + EVIL, file=sys.stderr, flush=True)
server.run("stdio")
"""

#: A server that says why it cannot start on stderr, and exits: its words are the row's last error.
DYING = f"import sys; print('dying' + {EVIL!r}, file=sys.stderr, flush=True); sys.exit(3)"


def plain(obj: Any) -> str:
    """The ``text/plain`` terminal IPython prints for ``obj`` (its display formatter's)."""
    data, _ = InteractiveShell.instance().display_formatter.format(obj)
    return data["text/plain"]


def assert_clean(text: str, *said: str) -> None:
    """``text`` has no raw control character or escape of the server's, and each of ``said``
    (the server's words, the override shown where it was)."""
    assert [r for r in RAW if r in text] == [], repr(text)
    for words in said:
        assert f"{words}{SHOWN}" in text, (words, text)


@pytest.fixture
def evil(pool: Any, tmp_path: Path) -> Any:
    script = tmp_path / "evil_server.py"
    script.write_text(SERVER)
    pool.connect("evil", command=sys.executable, args=[str(script)])
    with pytest.raises(ConnectError) as failed:
        pool.connect("dying", command=sys.executable, args=["-c", DYING])
    assert EVIL in str(failed.value)  # the error as the server said it (a message, not a display)
    return pool


def test_status_table_tools_and_card_show_no_escapes(evil: Any) -> None:
    status = evil.status()
    assert status["evil"].server_name == "evil" + EVIL  # the data as sent
    text = plain(status)  # IPython prints a list's repr: the client's text table
    assert_clean(text, "evil", "6.6", "dying")
    assert repr(status) == text == status._repr_mimebundle_()["text/plain"]
    head, row = text.splitlines()[:2]
    assert row.index("2 ") == head.index("tools")  # measured as shown: the columns hold
    assert "evil" + SHOWN + " 6.6" + SHOWN in text
    assert_clean(plain(StatusTable([status["evil"]])), "read me")  # the one row: its instructions too
    assert_clean(str(status["evil"]), "evil")  # print(pool.connect(...)) in a script
    html = status._repr_mimebundle_()["text/html"]
    assert "\u202e" not in html and "&lt;U+202E&gt;" in html  # the override spoofs in HTML too

    tools = evil.tools("evil")
    peek = next(t for t in tools if t.name.startswith("peek"))
    assert peek.name == "peek" + EVIL and peek.description.startswith("looks" + EVIL)
    text = plain(tools)
    assert_clean(text, "peek", "looks")
    assert repr(tools) == text
    head, row = text.splitlines()[:2]
    assert row.index("looks") == head.index("description")  # measured as shown: the columns hold
    assert_clean(plain(peek), "peek", "looks")  # %mcp tools evil.peek…: the card
    toolbox = Toolbox(evil, list(tools))  # drawn by a renderer that leaves text to bundle()
    assert [r for r in RAW if r in plain(toolbox)] == [] and SHOWN in plain(toolbox)
    card_html = peek._repr_mimebundle_()["text/html"]
    assert "\u202e" not in card_html and "&lt;U+202E&gt;" in card_html


def test_results_logs_resources_and_prompts_show_no_escapes(evil: Any) -> None:
    peek = next(t.name for t in evil.tools("evil") if t.name.startswith("peek"))
    result = evil.call("evil", peek)
    assert result.text == "said" + EVIL and result.logs[0].data == "logged" + EVIL  # kept as sent
    assert_clean(plain(result), "said", "logged")
    failed = evil.call("evil", "fail")
    assert failed.is_error and EVIL in failed.text
    assert_clean(plain(failed), "broken")

    lines = evil.logs("evil")
    assert any(line.endswith("stderr: starting" + EVIL) for line in lines)  # pool.logs: as sent
    logs = LogView("evil", lines)
    assert_clean(repr(logs), "starting", "stderr", "logged")
    assert plain(logs) == repr(logs)

    resources = ResourceList([("evil", r) for r in evil.resources("evil")])
    assert_clean(plain(resources), "res", "resource")
    # a notebook's text of %mcp read and %mcp prompt (a terminal prints their repr, which
    # mcpnb.client.contents writes: not this fix's)
    assert_clean(evil.read("evil", "evil://r")._repr_mimebundle_()["text/plain"], "body")

    prompt = evil.prompts("evil")[0]
    assert prompt.name == "pr" + EVIL
    assert_clean(plain(PromptList([("evil", prompt)])), "pr", "prompt")
    assert_clean(plain(PromptCard("evil", prompt)), "pr", "prompt")
    messages = evil.prompt("evil", prompt.name, {"topic": "x"})
    assert_clean(messages._repr_mimebundle_()["text/plain"], "prompt", "about x")


def test_what_a_terminal_prints_of_results_contents_progress_and_errors(evil: Any) -> None:
    """The reprs a script's ``print`` and terminal IPython print (a list subclass's repr, not its
    bundle), a text progress bar's lines, a log line, and the one line an error of ``%mcp`` shows."""
    from mcpnb.notebook.forms.progress import TextProgress, format_log
    from mcpnb.notebook.magics import _shorten

    peek = next(t.name for t in evil.tools("evil") if t.name.startswith("peek"))
    assert_clean(repr(evil.call("evil", peek)), "said")
    assert_clean(repr(evil.read("evil", "evil://r")), "body")
    prompt = evil.prompts("evil")[0]
    assert_clean(repr(evil.prompt("evil", prompt.name, {"topic": "x"})), "prompt", "about x")

    printed: list[str] = []
    bar = TextProgress(print_fn=printed.append)
    bar.update(1, 2, "half" + EVIL)
    bar.done(False, "stopped" + EVIL)
    assert_clean("\n".join(printed), "half", "stopped")
    assert_clean(format_log("info", "db" + EVIL, "slow" + EVIL), "db", "slow")

    with pytest.raises(ConnectError) as failed:
        evil.connect("dying2", command=sys.executable, args=["-c", DYING])
    _shorten(failed.value)
    red, *_ = failed.value._render_traceback_()  # red as IPython shows an error: its own escapes
    assert_clean(red.removeprefix("\x1b[0;31m").removesuffix("\x1b[0m"), "dying")


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        ("a\x1b]52;c;ZXZpbA==\x07b", "ab"),  # OSC 52 to BEL: the clipboard
        ("a\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # OSC 8 to ST: a link's text stays
        ("a\x1b[2Jb\x1b[1Ac\x1b[0;31md", "abcd"),  # CSI: clear, cursor up, colour
        ("a\x1b7b\x1b8c\x1bcd\x1b(Be", "abcde"),  # save/restore the cursor, reset, a character set
        ("a\x1b]52;c;QQ==", "a52;c;QQ=="),  # an OSC never ended: its words are text
        ("end\x1b", "end\\x1b"),  # an ESC that starts nothing, shown
        ("a\rb\x00c\x08d\x7fe\x9b2Jf", "a\\rb\\x00c\\x08d\\x7fe\\x9b2Jf"),  # C0, DEL and C1 (8-bit CSI)
        ("line\r\nnext\tcolumn", "line\nnext\tcolumn"),  # a Windows newline is a newline; tab stays
        ("\u202aa\u202bb\u202cc\u202dd\u202ee\u2066f\u2067g\u2068h\u2069", None),  # every bidi control
        ("مرحبا \u200f(1)", "مرحبا \u200f(1)"),  # right-to-left text and its marks are text
    ],
)
def test_printable(sent: str, shown: str | None) -> None:
    out = printable(sent)
    if shown is None:
        assert out == "".join(f"<U+{ord(c):04X}>" if not c.isalpha() else c for c in sent) and out.startswith(
            "<U+202A>a"
        )
    else:
        assert out == shown
    assert printable(out) == out  # shown once is shown: a second pass changes nothing


def test_esc_shows_bidi_controls_escaped() -> None:
    assert esc("a\u202e<b>") == "a&lt;U+202E&gt;&lt;b&gt;"
    assert esc("plain <b>") == "plain &lt;b&gt;"
