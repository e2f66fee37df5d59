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
    quiet = cell(ip, "%mcp call demo.echo text=quiet -o kept;")
    assert quiet.success and quiet.result is None  # nothing shown
    assert ip.user_ns["kept"].text == "quiet"
    assert cell(ip, "%mcp call demo.echo text=loud").result.text == "loud"  # the next cell shows again
    assert line(ip, 'call demo.echo "text=a;b"').text == "a;b"  # a ';' inside an argument is no silencer
    result = cell(ip, "%mcp status;")
    assert result.success and result.result is None


def test_a_silenced_call_still_gives_its_value_to_an_assignment(ip, mcp):
    """``r = %mcp call ...;`` once left ``r`` None: the ``;`` hid the value from the assignment too."""
    connect_demo(ip)
    assigned = cell(ip, "r = %mcp call demo.echo text=kept;\nbox = %mcp tools demo;")
    assert assigned.success and assigned.result is None
    assert ip.user_ns["r"].text == "kept" and "echo" in {t.name for t in ip.user_ns["box"]}
    looped = cell(
        ip, "seen = []\nfor w in 'ab':\n    r = %mcp call demo.echo text={{w}};\n    seen.append(r.text)"
    )
    assert looped.success and ip.user_ns["seen"] == ["a", "b"], looped.error_in_exec


def test_a_cell_bodys_final_semicolon_is_no_argument(ip, mcp):
    """A ``%%mcp call`` body ending in ``;`` (the cell's "show nothing") was parsed with the ``;``:
    ``{...};`` was invalid JSON, ``b: 2;`` the text "2;". A tool's one text keeps it (SQL)."""
    connect_demo(ip)
    for body in ('{"a": 1, "b": 2};', "a: 1\nb: 2;", "a: 1\nb: 2 ;\n"):
        ran = cell(ip, f"%%mcp call demo.add -o total\n{body}\n")
        assert ran.success and ran.result is None, (body, ran.error_in_exec)
        assert ip.user_ns["total"].data == 3
    typed = cell(ip, "%%mcp call demo.echo -o said\ntext: hello;\n")
    assert typed.result is None and ip.user_ns["said"].text == "hello"
    query = cell(ip, "%%mcp call demo.echo\nSELECT * FROM t;\n")
    assert query.result.text == "SELECT * FROM t;"  # the text, shown: its ';' ends the query


def test_a_whole_result_as_an_argument_is_a_short_error(ip, mcp):
    """``text={{r}}`` (a ToolResult) once ended in a long traceback: "not JSON serializable"."""
    connect_demo(ip)
    cell(ip, "r = %mcp call demo.add a=1 b=2")
    with pytest.raises(UsageError) as said:  # the magics' short form of an ArgumentsError
        line(ip, "call demo.echo text={{r}}")
    assert "argument 'text' is a ToolResult, which JSON cannot carry (a result's data is r.data" in str(
        said.value
    )
    assert "nothing was sent" in str(said.value)
    assert line(ip, "call demo.echo text={{r.text}}").text == "3"


def test_spaces_around_equals_on_a_tool_of_one_text(ip, mcp):
    connect_demo(ip)
    with pytest.raises(UsageError, match=r"write text=VALUE with no spaces around '='"):
        line(ip, "call demo.echo text = hello")


def test_o_refuses_a_name_that_is_no_variable_or_hides_a_builtin(ip, mcp):
    connect_demo(ip)
    with pytest.raises(UsageError, match=r"^-o needs a Python variable name, got 'class'$"):
        line(ip, "call demo.echo text=x -o class")
    with pytest.raises(UsageError, match=r"^-o print would hide Python's own print; choose another name$"):
        line(ip, "call demo.echo text=x -o print")  # nothing was sent, and print() still works
    assert "print" not in ip.user_ns or ip.user_ns["print"] is print


def test_no_validate_lets_the_server_answer_bad_arguments(ip, mcp):
    """A server author testing their server's own validation: ``--no-validate`` sends what was
    written, and the server's answer (an error result) is the cell's result."""
    connect_demo(ip)
    with pytest.raises(UsageError, match="nothing was sent"):
        line(ip, "call demo.add a=1 b=two")
    result = line(ip, "call demo.add a=1 b=two --no-validate")
    assert result.is_error and "validation error" in result.text.lower() and "b" in result.text
    assert line(ip, "call demo.add a=1 b=2 --no-validate").data == 3


def test_no_validate_sends_a_tool_the_server_does_not_list(ip, mcp):
    """The server's own unknown-tool error is what its author tests: ``--no-validate`` sends it."""
    connect_demo(ip)
    with pytest.raises(UsageError, match="has no tool 'ech'; did you mean 'echo'"):
        line(ip, "call demo.ech text=hi")
    result = line(ip, "call demo.ech text=hi --no-validate")
    assert result.is_error and "Unknown tool: ech" in result.text
