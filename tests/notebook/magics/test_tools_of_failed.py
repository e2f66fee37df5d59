"""``%mcp tools NAME`` of a server that is down, through a real IPython shell and real stdio
servers: the tools it listed before are shown as such (its state, since when, its last error, as
``%mcp status`` says them, and when the list was fetched), never as a live server's."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import wait_until
from IPython.core.error import UsageError

from mcpnb.client.errors import McpnbError
from mcpnb.client.toolinfo import ToolList

from .conftest import bundle, line

PY = sys.executable
QUICK = {"retry_delay": 0.05, "max_retries": 2, "health_check_interval": 0}

#: Works until its crash tool runs; from then on (a marker file) every start fails.
CRASHY = """
    import os
    import sys
    from pathlib import Path

    from mcp.server.mcpserver import MCPServer

    MARK = Path(sys.argv[1])
    if MARK.exists():
        print("RuntimeError: the database at /var/db is gone", file=sys.stderr)
        sys.exit(1)

    server = MCPServer("crashy", log_level="WARNING")


    @server.tool()
    def echo(text: str) -> str:
        \"\"\"Say it back.\"\"\"
        return text


    @server.tool()
    def crash() -> str:
        \"\"\"Exit the process (code 1), and at every start from now on.\"\"\"
        MARK.touch()
        os._exit(1)


    if __name__ == "__main__":
        server.run()
"""


def _crashy(pool, tmp_path: Path) -> Path:
    """``cr`` connected; the marker file that, once there, fails each of its starts."""
    script = tmp_path / "crashy.py"
    script.write_text(textwrap.dedent(CRASHY).lstrip())
    mark = tmp_path / "mark"
    pool.connect("cr", command=PY, args=[str(script), str(mark)], **QUICK)
    return mark


def _fail(ip, pool) -> None:
    with pytest.raises(McpnbError, match="exit code 1"):
        line(ip, "call cr.crash")
    assert wait_until(lambda: pool.status()["cr"].state == "failed"), pool.status()["cr"]


def test_the_tools_of_a_failed_server_say_it_failed_and_when_they_were_listed(ip, mcp, pool, tmp_path):
    _crashy(pool, tmp_path)
    live = line(ip, "tools cr")
    assert "failed" not in bundle(ip, live)["text/plain"]
    _fail(ip, pool)
    row = line(ip, "status cr")["cr"]

    listed = line(ip, "tools cr")
    assert isinstance(listed, ToolList) and [t.name for t in listed] == ["echo", "crash"]  # still a list
    assert list(listed.df["tool"]) == ["echo", "crash"]
    text = bundle(ip, listed)["text/plain"]
    said, fetched, *table = text.splitlines()
    # what %mcp status says of it, word for word: state, since when, why
    assert said == f"⚠ cr is failed since {row.since:%H:%M:%S}: {row.last_error}"
    assert "the server process exited (exit code 1)" in said
    assert "(server stderr: RuntimeError: the database at /var/db is gone)" in said
    assert re.fullmatch(
        r"  below: its tools as listed at \d\d:\d\d:\d\d, while it was connected; %mcp reconnect cr "
        r"\(pool.reconnect\('cr'\)\) starts it again",
        fetched,
    ), fetched
    assert table[0].split() == ["server", "tool", "description", "parameters"]
    html = bundle(ip, listed)["text/html"]
    assert '<span class="mcpnb-badge mcpnb-bad">failed</span> cr is failed since' in html
    assert html.index("is failed since") < html.index("<table")  # above the table, not under it
    assert "while it was connected" in html

    # a pattern keeps the warning: a filtered old list is still an old list
    found = line(ip, "tools cr ech")
    assert [t.name for t in found] == ["echo"]
    assert bundle(ip, found)["text/plain"].startswith("⚠ cr is failed since")
    # and the Python API's list is the same: a script sees it too
    assert pool.tools("cr").stale is not None and repr(pool.tools("cr")).startswith("⚠ cr is failed since")


def test_one_tool_of_a_failed_server_is_shown_under_what_is_wrong(ip, mcp, pool, tmp_path, capsys):
    _crashy(pool, tmp_path)
    capsys.readouterr()
    assert line(ip, "tools cr.echo").name == "echo" and capsys.readouterr().out == ""  # live: no word
    _fail(ip, pool)
    card = line(ip, "tools cr.echo")
    assert (card.server, card.name) == ("cr", "echo")  # still the card, from the list it had
    said, fetched = capsys.readouterr().out.splitlines()
    assert said.startswith("⚠ cr is failed since ") and "exit code 1" in said
    assert fetched.startswith("  below: its card as listed at ") and fetched.endswith(
        "%mcp reconnect cr (pool.reconnect('cr')) starts it again"
    )


def test_once_it_is_back_its_tools_are_listed_plainly(ip, mcp, pool, tmp_path):
    mark = _crashy(pool, tmp_path)
    _fail(ip, pool)
    mark.unlink()  # its author fixed it
    line(ip, "reconnect cr")
    listed = line(ip, "tools cr")
    assert type(listed) is ToolList
    assert bundle(ip, listed)["text/plain"].startswith("server  tool")


def test_a_server_that_failed_at_its_first_start_lists_nothing_and_says_why(ip, mcp, pool, tmp_path):
    # never connected, so no list from before: the listing is its failure, as %mcp status says it
    server = tmp_path / "server.py"
    server.write_text("from mcp.server.mcpserver import MCPServer\n\nserver = MCPServer(\n")
    with pytest.raises(McpnbError) as connect:
        line(ip, f"connect broken -- {PY} {server}")
    shown = str(connect.value)
    assert "the server process exited (exit code 1)" in shown
    assert f"was never closed, at {server}:3: server = MCPServer(" in shown  # where, not only the error
    with pytest.raises((UsageError, McpnbError)) as listing:
        line(ip, "tools broken")
    assert "server 'broken' is" in str(listing.value)
    assert "exit code 1" in str(listing.value) and f"{server}:3" in str(listing.value)
