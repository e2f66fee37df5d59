"""A server written in notebook cells, as a teacher or a server author writes one: the loop of
editing the cell that builds it and trying it again, and the words around it.

- ``%mcp connect NAME {{srv}}`` remembers the variable; a cell that builds a new ``srv`` (an edit)
  is the one ``%mcp reconnect NAME`` connects, and until then ``%mcp tools``, ``%mcp call`` and
  ``%mcp status`` say once that the server connected is the old one (an error of a call says it
  again): the edit did nothing, silently.
- ``%mcp connect NAME srv`` (no braces) says to write ``{{srv}}``, not to put it after ``--``.
- ``%mcp read URI`` with one server connected reads it there (the URI was taken as the server).
- ``%mcp prompt NAME.P "x = 1"``: the quoted code is the prompt's one argument, not ``x``.
- A tool's card leaves out pydantic's automatic parameter titles ("A" for ``a``).

Real ``MCPServer`` objects, run in-process, in a real IPython shell.
"""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.error import UsageError

from .conftest import line

BUILD = (
    "from mcp.server.mcpserver import MCPServer\n"
    "srv = MCPServer('demo')\n"
    "@srv.tool()\n"
    "def add(a: int, b: int) -> int:\n"
    "    '''Add two numbers.'''\n"
    "    return a + b\n"
)
EDITED = (
    "srv = MCPServer('demo')\n"
    "@srv.tool()\n"
    "def add(a: int, b: int, c: int = 0) -> int:\n"
    "    '''Add three numbers.'''\n"
    "    return a + b + c + 1000\n"
)
NOTE = "note: srv now holds another server than the one 'demo' runs (its cell ran again): %mcp reconnect demo"


def _run(ip: Any, source: str) -> None:
    assert ip.run_cell(source).success


def test_an_edited_cell_is_said_once_and_reconnect_runs_it(ip, mcp, capsys):
    _run(ip, BUILD)
    line(ip, "connect demo {{srv}}")
    assert [t.name for t in line(ip, "tools demo")] == ["add"]
    assert "note:" not in capsys.readouterr().out  # nothing changed yet
    _run(ip, EDITED)
    listed = line(ip, "tools demo")
    assert NOTE in capsys.readouterr().out  # the old server's tools, said to be the old one's
    assert [t.parameters for t in listed] == [["a", "b"]]
    line(ip, "tools demo")
    line(ip, "status")
    assert "note:" not in capsys.readouterr().out  # once per new object, not on every line
    with pytest.raises(UsageError) as said:
        line(ip, "call demo.add a=2 b=3 c=4")
    assert "unknown argument 'c'" in str(said.value)
    assert str(said.value).endswith("%mcp reconnect demo runs the new one)")  # the error says it again
    line(ip, "reconnect demo")
    assert "demo: srv holds a new server object (its cell ran again): connecting that one" in (
        capsys.readouterr().out
    )
    assert line(ip, "call demo.add a=2 b=3 c=4").data == 1009
    line(ip, "reconnect demo")  # the same object now: a plain reconnect, nothing to say
    assert "srv" not in capsys.readouterr().out
    assert line(ip, "call demo.add a=1 b=1").data == 1002


def test_reconnect_keeps_the_connections_settings(ip, mcp, capsys):
    _run(ip, BUILD)
    line(ip, "connect demo {{srv}} --era legacy")
    _run(ip, EDITED)
    line(ip, "reconnect demo")
    assert mcp.pool.connection("demo").era == "legacy"
    assert mcp.pool.connection("demo").config.server is ip.user_ns["srv"]


def test_a_server_disconnected_then_edited_comes_back_as_the_new_one(ip, mcp, capsys):
    _run(ip, BUILD)
    line(ip, "connect demo {{srv}}")
    line(ip, "disconnect demo")
    _run(ip, EDITED)
    line(ip, "reconnect demo")
    assert line(ip, "call demo.add a=1 b=1").data == 1002


def test_a_server_connected_otherwise_since_is_not_said_to_be_old(ip, mcp, capsys):
    """A name connected again as a URL or a command, or with pool.connect in Python: the
    variable it once came from says nothing about it."""
    _run(ip, BUILD)
    line(ip, "connect demo {{srv}}")
    _run(ip, "mine = MCPServer('demo')")
    mcp.pool.connect("demo", server=ip.user_ns["mine"])  # from Python: not the magics' to track
    _run(ip, EDITED)
    line(ip, "tools demo")
    assert "note:" not in capsys.readouterr().out


def test_a_server_object_named_without_braces_says_to_write_braces(ip, mcp):
    _run(ip, BUILD)
    with pytest.raises(UsageError) as said:
        line(ip, "connect rp2 srv")
    assert str(said.value) == (
        "'srv' is a server object of this notebook: write it as {{srv}} to run it in-process: "
        "%mcp connect rp2 {{srv}}"
    )
    with pytest.raises(UsageError, match=r"'uvx' starts the server, so it goes after --"):
        line(ip, "connect rp2 uvx some-server")  # a program stays a program


RESOURCES = (
    "from mcp.server.mcpserver import MCPServer\n"
    "srv = MCPServer('rp')\n"
    "@srv.resource('rp://motto')\n"
    "def motto() -> str:\n"
    "    return 'Be kind.'\n"
    "@srv.prompt()\n"
    "def review(code: str, style: str = 'short') -> str:\n"
    "    '''Review some code.'''\n"
    "    return f'Please review ({style}): {code}'\n"
    "other = MCPServer('other')\n"
    "@other.resource('other://x')\n"
    "def x() -> str:\n"
    "    return 'x'\n"
)


def test_read_with_a_uri_alone_reads_it_from_the_server_that_has_it(ip, mcp):
    _run(ip, RESOURCES)
    line(ip, "connect rp {{srv}}")
    assert line(ip, "read rp://motto").text == "Be kind."  # one server: that one
    line(ip, "connect other {{other}}")
    assert line(ip, "read rp://motto").text == "Be kind."  # of two, the one that lists it
    with pytest.raises(UsageError, match=r"name the server to read rp://nowhere from: %mcp read NAME"):
        line(ip, "read rp://nowhere")
    with pytest.raises(UsageError, match=r"%mcp read rp needs the resource's URI too"):
        line(ip, "read rp")


def test_a_quoted_python_line_is_the_prompts_one_argument(ip, mcp):
    _run(ip, RESOURCES)
    line(ip, "connect rp {{srv}}")
    said = line(ip, 'prompt rp.review "x = 1"')
    assert "Please review (short): x = 1" in repr(said)
    said = line(ip, 'prompt rp.review "x = 1" style=long')
    assert "Please review (long): x = 1" in repr(said)
    assert "Please review (short): y" in repr(line(ip, "prompt rp.review code=y"))
    with pytest.raises(UsageError, match=r"unknown argument 'x'"):
        line(ip, "prompt rp.review code=y x=1")  # unspaced: still an argument's name


def test_a_tools_card_leaves_out_pydantics_automatic_titles(ip, mcp):
    _run(
        ip,
        "from mcp.server.mcpserver import MCPServer\n"
        "from typing import Annotated\n"
        "from pydantic import Field\n"
        "srv = MCPServer('demo')\n"
        "@srv.tool()\n"
        "def add(a: int, user_id: int, n: Annotated[int, Field(title='How many')] = 1) -> int:\n"
        "    return a\n",
    )
    line(ip, "connect demo {{srv}}")
    card = line(ip, "tools demo.add")
    text = card._repr_mimebundle_()["text/plain"]
    assert "How many" in text  # a title of the author's own
    assert "User Id" not in text and not any(row.strip().endswith(" A") for row in text.splitlines())


def test_a_quoted_python_line_is_a_tools_one_text_too(ip, mcp):
    """``%mcp call demo.echo "x = 1"``: as a prompt's one argument takes it (above), the tool's one
    text; it was read as an argument named ``x``. A name the tool has is still that argument."""
    from conftest import demo_server_object

    mcp.pool.connect("demo", server=demo_server_object())
    assert line(ip, 'call demo.echo "x = 1"').text == "x = 1"
    assert line(ip, 'call demo.echo "print(a == b)"').text == "print(a == b)"
    with pytest.raises(UsageError, match="no spaces around"):
        line(ip, "call demo.echo text = hi")  # unquoted: three words, as before
