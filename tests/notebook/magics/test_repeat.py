"""A ``%mcp call`` line run again and again (a loop, a re-run cell): parsed once, each run its own.

Also the trailing ``;``: %mcp silences its own output, as IPython's magics do, without IPython
tokenizing every line.
"""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from mcpnb.notebook.magics.commands import COMMANDS

from .conftest import cell, connect_demo, line


def test_a_repeated_line_gives_a_fresh_namespace_each_time():
    parser = COMMANDS["call"].parser
    first = parser.parse(["demo.echo", "text=hi", "-o", "r"])
    first.pairs.append("extra=1")  # a subcommand changing what it was given
    first.out = "changed"
    second = parser.parse(["demo.echo", "text=hi", "-o", "r"])
    assert second.pairs == ["text=hi"]
    assert second.out == "r"
    assert second is not first


def test_a_repeated_bad_line_fails_every_time():
    parser = COMMANDS["call"].parser
    for _ in range(2):
        with pytest.raises(UsageError, match="unknown option '--nope'"):
            parser.parse(["demo.echo", "--nope"])


def test_subcommands_that_take_secrets_are_never_remembered():
    assert not COMMANDS["connect"].parser.remember
    assert not COMMANDS["config"].parser.remember
    connect = COMMANDS["connect"].parser
    connect.parse(["demo", "--header", "Authorization=Bearer s3cret"])
    assert not connect._parsed


def test_only_lines_of_remembering_subcommands_are_kept_split(ip, mcp):
    from mcpnb.notebook.magics import _remembered_words

    _remembered_words.cache_clear()
    connect_demo(ip)
    line(ip, "call demo.echo text=kept")
    line(ip, "call demo.echo text=kept")
    kept = _remembered_words.cache_info()
    assert (kept.hits, kept.currsize) == (1, 1)  # the connect line (its command, its env) is not there


def test_the_same_call_in_a_loop_uses_each_iterations_variables(ip, mcp):
    connect_demo(ip)
    result = cell(
        ip,
        "seen = []\n"
        "for word in ['one', 'two', 'three']:\n"
        "    r = %mcp call demo.echo text={{word}}\n"
        "    seen.append(r.text)\n",
    )
    assert result.success, result.error_in_exec
    assert ip.user_ns["seen"] == ["one", "two", "three"]


def test_a_trailing_semicolon_silences_the_output_but_runs_the_call(ip, mcp):
    connect_demo(ip)
    assert line(ip, "call demo.echo text=quiet -o kept;") is None
    assert ip.user_ns["kept"].text == "quiet"
    assert line(ip, "call demo.echo text=loud") is not None
    assert line(ip, 'call demo.echo "text=a;b"') is not None  # a ';' inside an argument is no silencer
    result = cell(ip, "%mcp status;")
    assert result.success and result.result is None
