"""A top-level ``%mcp call`` in a real kernel awaits the server on the kernel's own loop.

What a cell shows, keeps and reports is the same as on the synchronous path (the magic inside a
function); only the threads differ: the awaited lane hands nothing to a magic thread, while the
subcommands that may block (and calls the cache cannot resolve yet) still go to one.
"""

from __future__ import annotations

from tests.frontend import Frontend

SETUP = """
%load_ext mcpnb
%mcp serve probe-kit
import mcpnb.notebook.cell.asynccell as asynccell
"""
#: A magic thread pool exists only once something ran in it; forget the one setup used.
FORGET_THREADS = "asynccell._threads = None"
USED_THREADS = "print('THREADS', asynccell._threads is not None)"


def _error(fe: Frontend, code: str) -> dict:
    reply = fe.reply(fe.execute(code))
    assert reply["status"] == "error", reply
    return reply


def test_an_awaited_call_needs_no_magic_thread_and_shows_what_the_synchronous_one_shows(kernel):
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    fe.run_ok("%mcp tools probe")  # the tool list is cached from here on
    fe.run_ok(FORGET_THREADS)

    awaited = fe.run_ok("r = %mcp call probe.ui_search query=date limit=1\nprint('ROWS', len(r.df))")
    assert "ROWS 1" in fe.stdout[awaited]
    bare = fe.run_ok("%mcp call probe.ui_search query=date limit=1")
    kept = fe.run_ok("%mcp call probe.ui_search query=date limit=1 -o hits\nprint('KEPT', len(hits.df))")
    assert "KEPT 1" in fe.stdout[kept]
    silent = fe.run_ok("%mcp call probe.ui_search query=date limit=1;")
    raw = fe.run_ok("%mcp call probe.ui_search query=date limit=1 --raw")
    body = fe.run_ok("%%mcp call probe.ui_search -o cellhits\nquery: date\nlimit: 1")
    checked = fe.run_ok(USED_THREADS)
    assert "THREADS False" in fe.stdout[checked], "an awaited call went through a magic thread"

    same = fe.run_ok(
        "def sync():\n    s = %mcp call probe.ui_search query=date limit=1\n    return s\n"
        "s = sync()\nprint('SAME', s.data == r.data == hits.data == cellhits.data)",
    )
    assert "SAME True" in fe.stdout[same]
    assert "text/html" in fe.results[bare]  # the rich result
    assert silent not in fe.results  # ';' silences the awaited cell too
    assert '"structuredContent"' in fe.results[raw]["text/plain"]
    assert "text/html" in fe.results[body]  # -o keeps it and the cell shows it


def test_an_awaited_call_reports_bad_input_in_one_line(kernel):
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    fe.run_ok("%mcp tools probe")
    reply = _error(fe, "%mcp call probe.ui_search query=date limit=many")
    assert reply["ename"] == "UsageError"
    assert "limit" in reply["evalue"]
    reply = _error(fe, "%mcp call probe.ui_serch query=date")  # not cached: the thread path says it
    assert reply["ename"] == "UsageError"
    assert "did you mean 'ui_search'" in reply["evalue"]
    reply = _error(fe, "%mcp call probe.ui_search query=date --timeout 0")
    accepted = "accepted: seconds greater than 0, at most 86400, or no --timeout"
    assert reply["evalue"] == f"--timeout must be greater than 0, got 0.0; {accepted}"
    reply = _error(fe, "%mcp call probe.ui_search query=date --timeout nan")  # was sent, then "timed out"
    assert reply["evalue"] == f"--timeout expected a number of seconds, got nan; {accepted}"
    again = fe.run_ok("r = %mcp call probe.ui_search query=date limit=1\nprint('STILL', len(r.df))")
    assert "STILL 1" in fe.stdout[again]


def test_a_call_the_cache_cannot_resolve_takes_the_thread_and_works(kernel):
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    fe.run_ok(FORGET_THREADS)  # a bare tool name is looked up on every server: the thread path
    cell = fe.run_ok("r = %mcp call ui_search query=date limit=1\nprint('ROWS', len(r.df))")
    assert "ROWS 1" in fe.stdout[cell]
    checked = fe.run_ok(USED_THREADS)
    assert "THREADS True" in fe.stdout[checked]
