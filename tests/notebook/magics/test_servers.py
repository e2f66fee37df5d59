"""Server subcommands through a real IPython shell against real servers: status, disconnect,
reconnect, logs, config, serve, help (connect: ``test_connect.py``). No protocol mocking."""

from __future__ import annotations

import json
import re
import sys

import pytest
from conftest import HttpServer
from IPython.core.error import UsageError

from mcpnb.client.errors import ConnectError
from mcpnb.client.status import StatusTable
from mcpnb.probekit.toolsets import CONFORMANCE

from .conftest import bundle, connect_demo, line

PY = sys.executable


# ---------------------------------------------------------------- status, tools
def test_errors_advise_the_magic():
    from mcpnb.client.errors import NotConnectedError
    from mcpnb.notebook.magics import _shorten

    exc = NotConnectedError("server 'x' is failed: gone; reconnect it with pool.reconnect('x')")
    _shorten(exc)
    shown = "\n".join(exc._render_traceback_())
    assert "%mcp reconnect x" in shown and "--verbose" in shown
    assert (
        str(exc) == "server 'x' is failed: gone; reconnect it with %mcp reconnect x"
    )  # the error's one line too


def test_status_and_bare_mcp(ip, mcp):
    connect_demo(ip)
    for text in ("status", ""):
        table = line(ip, text)
        assert isinstance(table, StatusTable)
        assert table["demo"].state == "connected"
    data = bundle(ip, line(ip, ""))
    assert "connected" in data["text/plain"] and "<table" in data["text/html"]
    connect_demo(ip, "other")
    assert [row.name for row in line(ip, "status other")] == ["other"]  # only the servers named
    assert [row.name for row in line(ip, "status demo other")] == ["demo", "other"]
    with pytest.raises(UsageError, match=r"no server named 'othr'; did you mean 'other'\?"):
        line(ip, "status othr")


# ---------------------------------------------------------------- lifecycle, logs, config, serve
def test_disconnect_reconnect_logs(ip, mcp, capsys):
    connect_demo(ip)
    connect_demo(ip, "demo2")
    line(ip, "call demo.stderr_line text=hello-from-stderr")
    pid = line(ip, "call demo.pid").data
    assert line(ip, "reconnect demo")["demo"].state == "connected"
    assert line(ip, "call demo.pid").data != pid
    logs = line(ip, "logs demo")
    assert any("connected" in entry for entry in logs)
    assert len(line(ip, "logs demo -n 1")) == 1
    every = line(ip, "logs")  # every server's, in the order it happened
    assert {entry.split()[1] for entry in every} == {"demo", "demo2"}
    assert set(every) >= set(logs) and every == sorted(every, key=lambda e: e.split()[0])
    with pytest.raises(UsageError, match="--log-level asks one server"):
        line(ip, "logs --log-level debug")
    for _ in range(3):
        line(ip, "call demo.stderr_line text=again")
    shown = [x for x in repr(line(ip, "logs demo")).splitlines() if "stderr: again" in x]
    counts = [int(m.group(1)) if (m := re.search(r" \(×(\d+)\)$", x)) else 1 for x in shown]
    assert sum(counts) == 3 and len(shown) < 3, shown  # folded (a second may end between two of them)
    line(ip, "disconnect demo")
    assert "disconnected: demo" in capsys.readouterr().out
    assert mcp.pool.names == ["demo2"]
    assert any("hello-from-stderr" in entry for entry in line(ip, "logs demo"))  # its log stays readable
    with pytest.raises(UsageError, match="'demo' was disconnected"):
        line(ip, "logs demo --log-level debug")
    line(ip, "disconnect demo")  # the cell run again (Run All twice): said, not an error
    assert "demo: already disconnected" in capsys.readouterr().out
    with pytest.raises(UsageError, match=r"was disconnected; %mcp reconnect demo \(pool"):
        line(ip, "call demo.echo text=hi")
    line(ip, "reconnect demo")  # as the error says: back as it was
    assert line(ip, "call demo.echo text=back").text == "back" and "demo" in mcp.pool.names
    line(ip, "disconnect demo")
    with pytest.raises(UsageError):
        line(ip, "disconnect")
    line(ip, "disconnect --all")
    assert mcp.pool.names == []


def test_config_view(ip, mcp, tmp_path, monkeypatch):
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"filed": {"command": "echo"}}}))
    monkeypatch.chdir(tmp_path)
    connect_demo(ip)
    view = line(ip, "config")
    assert set(view) == {"filed", "demo"} and view["demo"]["state"] == "connected"
    assert "state" not in view["filed"]  # in the file, not in the pool
    assert str(tmp_path / ".mcp.json") in repr(view)
    # one server, by name (a word that is no file), as %mcp status and %mcp tools take names
    assert set(line(ip, "config demo")) == {"demo"}
    assert set(line(ip, "config .mcp.json filed")) == {"filed"}
    with pytest.raises(UsageError, match=r"no server named 'dem'; did you mean 'demo'\?.*%mcp config PATH"):
        line(ip, "config dem")


def test_config_shows_the_transport_in_use_where_the_urls_guess_was_refused(ip, mcp):
    """A URL alone is Streamable HTTP first; an SSE server elsewhere than /sse answers the fallback."""
    server = HttpServer("sse", "--path", "/events")
    try:
        line(ip, f"connect d {server.url}")
        assert line(ip, "status")["d"].transport == "sse"
        assert line(ip, "config d")["d"]["transport"] == "sse (in use; http was refused)"
    finally:
        server.stop()


def test_serve_probekit_in_process_and_http(ip, mcp, capsys):
    table = line(ip, "serve probe-kit")  # into this test's (empty) pool, not the default one
    # full = 40 tools + the conformance fixtures (both eras', 2026-07-28's, the tasks extension's)
    assert table["probe"].transport == "inprocess" and table["probe"].tools == 40 + len(CONFORMANCE)
    assert mcp.pool.names == ["probe"]
    table = line(ip, "serve --http --name kit --toolset ui")  # probe-kit is the default
    assert table["kit"].transport == "http" and table["kit"].state == "connected"
    assert line(ip, "call kit.ui_search query=button limit=1").data["results"]
    line(ip, "serve --stop kit")
    assert "stopped: kit" in capsys.readouterr().out
    assert "kit" not in mcp.pool
    with pytest.raises(UsageError, match="did you mean 'core'"):
        line(ip, "serve probe-kit --toolset cor")
    with pytest.raises(UsageError, match="--port needs --http"):
        line(ip, "serve probe-kit --port 8000")


def test_serve_on_a_taken_port_says_so(ip, mcp):
    """A port another server holds was a bare "OSError: [Errno 98] Address already in use"."""
    import socket

    line(ip, "serve probe-kit --toolset core")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(
            ConnectError, match=rf"probe-kit cannot listen on 127\.0\.0\.1:{port}: another server"
        ):
            line(ip, f"serve probe-kit --http --port {port} --name kit")
    assert mcp.pool.names == ["probe"] and line(ip, "call probe.estimate task=x").data["task"] == "x"
    line(ip, f"serve probe-kit --http --port {port} --name kit")  # free again: it serves there
    assert mcp.pool.status()["kit"].state == "connected"


def test_serve_stop_without_a_name_stops_probe(ip, mcp, capsys):
    line(ip, "serve probe-kit")
    line(ip, "serve --stop")
    assert "stopped: probe" in capsys.readouterr().out and "probe" not in mcp.pool


def test_serve_run_again_is_said_and_stop_takes_no_restart(ip, mcp, capsys):
    line(ip, "serve probe-kit")
    row = line(ip, "serve probe-kit")
    assert capsys.readouterr().out == (
        "probe is already serving (in-process, toolset full); --restart starts it afresh\n"
    )
    assert row["probe"].state == "connected"
    line(ip, "serve probe-kit --restart")
    assert capsys.readouterr().out == "restarted probe afresh, as asked\n"
    with pytest.raises(UsageError, match="takes no other options"):
        line(ip, "serve --stop --restart")
    assert "probe" in mcp.pool


def test_help_and_generated_usage(ip, mcp, capsys):
    line(ip, "help")
    out = capsys.readouterr().out
    for sub in (
        "connect",
        "status",
        "tools",
        "call",
        "resources",
        "read",
        "prompts",
        "prompt",
        "disconnect",
        "reconnect",
        "logs",
        "config",
        "serve",
    ):
        assert f"%mcp {sub}" in out
    assert "%mcp connect NAME {{server}}" in out  # the in-process form is a usage line of its own
    assert line(ip, "call -h") is None
    assert "--timeout" in capsys.readouterr().out
    doc = ip.find_line_magic("mcp").__doc__
    assert "%mcp call" in doc and doc.startswith("Usage: %mcp")
    assert "::" not in doc.split("\n")[0] and "``" not in doc  # text, not reST markup


def test_help_lines_fit_a_pager_and_break_between_options(ip, mcp, capsys):
    # lines of up to 197 characters: JupyterLab's help pager broke them anywhere ("--ti" / "meout")
    line(ip, "help")
    shown = capsys.readouterr().out
    doc = ip.find_line_magic("mcp").__doc__
    for text in (shown, doc):
        lines = text.splitlines()
        assert max(len(each) for each in lines) <= 88, [each for each in lines if len(each) > 88]
        usage = [each for each in lines if each.lstrip().startswith(("%mcp", "%%mcp", "["))]
        unbalanced = [each for each in usage if each.count("[") != each.count("]")]
        assert not unbalanced  # an option and its value on one line: "[--wait S]", not "[--wait" / "S]"
    words = " ".join(shown.split())
    assert "[--bearer-env VAR | --oauth [--keep-sign-in] [--issuer URL] [--assume-pkce]]" in words


def test_serve_help_names_every_toolset(ip, mcp, capsys):
    from mcpnb.probekit import TOOLSETS

    assert line(ip, "serve -h") is None
    said = " ".join(capsys.readouterr().out.split())  # argparse wraps the help text
    missing = [name for name in TOOLSETS if name not in said.split("--toolset", 1)[1]]
    assert not missing, f"%mcp serve -h leaves out toolsets {missing}"


def test_a_tools_one_text_parameter_goes_bare(ip, mcp):
    """``echo(text)``: one quoted word, or a body that is the text (as JupySQL's ``%%sql`` cell is
    the query); a tool of several parameters still wants their names."""
    connect_demo(ip)
    assert line(ip, 'call demo.echo "hello, world: a=1"').data == "hello, world: a=1"
    ip.user_ns.update(said="from a variable", args={"text": "all at once"})
    assert line(ip, "call demo.echo {{said}}").data == "from a variable"
    assert line(ip, "call demo.echo {{args}}").data == "all at once"  # a dict: the arguments, as before
    body = "first line: not a key\n  indented {{said}}\n"
    assert (
        ip.run_cell_magic("mcp", "call demo.echo", body).data
        == "first line: not a key\n  indented from a variable"
    )
    code = "render('{{ item }}', {{#each rows}}, {{open}}, {{said.nope}})"  # braces of its own: as written
    assert ip.run_cell_magic("mcp", "call demo.echo", code).data == code
    assert ip.run_cell_magic("mcp", "call demo.echo", "text: by name\n").data == "by name"
    with pytest.raises(UsageError, match=r"echo takes its 'text' bare, as one word: quote it \(%mcp call"):
        line(ip, "call demo.echo hello world")
    with pytest.raises(UsageError, match="expected key=value, got '2'"):
        line(ip, "call demo.add 2")  # two parameters: a bare value would be a guess
    with pytest.raises(UsageError, match="unknown argument"):
        line(ip, "call demo.echo txt=typo")  # a name that is no parameter says so, not sent as text
    # a prompt's one argument too: review(code)
    assert "Please review:\nprint(1)" in line(ip, 'prompt demo.review "print(1)"').text


def test_the_text_parameter_the_line_leaves_is_the_body(ip, mcp):
    """Datasette's ``execute_sql(database, sql)``: the line names the database, the body below is
    the query, as written (but for ``{{name}}``); ``key: value`` lines still read as arguments."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("sql", log_level="WARNING")

    @server.tool()
    def execute_sql(database: str, sql: str) -> dict[str, str]:
        return {"database": database, "sql": sql}

    ip.user_ns.update(srv=server, cid=7)
    line(ip, "connect ds {{srv}}")
    query = "select city, count(*) as n\nfrom customers where id = {{cid}}\ngroup by city"
    sent = ip.run_cell_magic("mcp", "call ds.execute_sql database=shop", query).data
    assert sent == {"database": "shop", "sql": query.replace("{{cid}}", "7")}
    named = ip.run_cell_magic("mcp", "call ds.execute_sql database=shop", "sql: select 1\n").data
    assert named == {"database": "shop", "sql": "select 1"}
    with pytest.raises(UsageError, match="expected 'key: value'"):  # nothing named: which one is it?
        ip.run_cell_magic("mcp", "call ds.execute_sql", "select 1")
    on_the_line = line(ip, 'call ds.execute_sql "select 2" database=shop').data  # one line, either order
    assert on_the_line == {"database": "shop", "sql": "select 2"}
    with pytest.raises(UsageError, match=r"execute_sql takes its 'sql' bare, as one word: quote it"):
        line(ip, "call ds.execute_sql database=shop select 2")


def test_call_help_examples_run_on_probe_kit(ip, mcp, capsys):
    """The examples of ``%mcp call -h`` use a server everyone has, and each one works as written."""
    line(ip, "serve probe-kit")
    line(ip, "call -h")
    examples = [
        x.strip().removeprefix("r = ")
        for x in capsys.readouterr().out.split("examples", 1)[1].splitlines()
        if x.strip().startswith(("%mcp call", "r = %mcp call"))
    ]
    assert examples and all(" probe." in x for x in examples)
    for example in examples:
        result = line(ip, example.removeprefix("%mcp "))
        assert not result.is_error, example


@pytest.mark.parametrize(
    "command",
    [
        "status",
        "tools probe",
        "resources probe",
        "read probe probe://toolsets",
        "prompts probe",
        "prompt probe.explain_tool tool_name=estimate",
        "logs probe",
        "config",
        "reconnect probe",
        "call probe.estimate task=x",
    ],
)
def test_dash_o_stores_every_listing_and_result(ip, mcp, command):
    line(ip, "serve probe-kit")
    shown = line(ip, f"{command} -o kept")
    assert ip.user_ns["kept"] is shown and shown is not None
    assert "text/plain" in bundle(ip, shown)


def test_listings_of_an_empty_pool_say_how_to_connect(ip, mcp, capsys):
    for sub in ("tools", "resources", "prompts", "functions"):
        assert len(line(ip, sub)) == 0
        out = capsys.readouterr().out
        assert "no servers are connected yet: %mcp serve probe-kit starts the teaching server" in out, sub
    line(ip, "serve probe-kit --toolset core")
    capsys.readouterr()
    assert len(line(ip, "tools")) == 15 and "no servers" not in capsys.readouterr().out


def test_a_mistyped_option_or_name_is_named_whatever_its_case(ip, mcp):
    """``--toolsets code`` once said "argument probe-kit: invalid choice: 'code'" (argparse took the
    value for the positional); ``--TIMEOUT`` and ``PROBE`` got no suggestion (difflib minds case)."""
    with pytest.raises(UsageError, match=r"unknown option '--toolsets'; did you mean '--toolset'\?"):
        line(ip, "serve --toolsets code")
    line(ip, "serve probe-kit")
    with pytest.raises(UsageError, match=r"unknown option '--TIMEOUT'; did you mean '--timeout'\?"):
        line(ip, "call probe.ui_search query=x --TIMEOUT 3")
    with pytest.raises(UsageError, match=r"no server named 'PROBE'; did you mean 'probe'\?"):
        line(ip, "tools PROBE")
    assert line(ip, "call probe.ui_search query=x --timeout 30").data


def test_an_unknown_server_lists_a_dozen_names_not_all(ip, mcp):
    from conftest import demo_server_object

    for i in range(14):
        mcp.pool.connect(f"s{i:02d}", server=demo_server_object())
    with pytest.raises(UsageError) as said:
        line(ip, "tools nope")
    assert "(connected: s00, s01," in str(said.value) and "s11 and 2 more: %mcp status)" in str(said.value)
    assert "s12" not in str(said.value)


def test_reconnect_says_when_the_servers_cell_built_a_new_one(ip, mcp, capsys):
    """The dev loop, for a server connected from Python (pool.connect(server=srv)): edit the cell
    that builds it, run it, %mcp reconnect. The connected object (the old code) runs again; the
    note names the variable and the line to run. (Connected as {{srv}}, reconnect runs the new
    one: test_cell_servers.py.)"""
    ip.run_cell(
        "from mcp.server import MCPServer\n"
        "srv = MCPServer('notes')\n"
        "@srv.tool()\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
    )
    mcp.pool.connect("notes", server=ip.user_ns["srv"])
    line(ip, "reconnect notes")
    assert "note:" not in capsys.readouterr().out  # the same object: nothing to say
    ip.run_cell(
        "srv = MCPServer('notes')\n@srv.tool()\ndef add(a: int, b: int) -> int:\n    return a + b + 1000\n"
    )
    line(ip, "reconnect notes")
    said = capsys.readouterr().out
    assert "note: srv now holds another server of that name" in said
    assert "%mcp connect notes {{srv}} runs the new one" in said
    assert line(ip, "call notes.add a=1 b=1").data == 2  # reconnect kept the connected one, as it says
    line(ip, "connect notes {{srv}}")
    assert line(ip, "call notes.add a=1 b=1").data == 1002
