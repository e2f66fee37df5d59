"""Every subcommand through a real IPython shell against real servers.

probe-kit and a counting server in-process, the demo server over stdio/HTTP/SSE, and
server-everything over stdio. Nothing here mocks the protocol.
"""

from __future__ import annotations

import json
import sys

import pytest
from conftest import DEMO, ROOT
from IPython.core.error import UsageError

from mcpnb.errors import ConnectError
from mcpnb.results import ToolResult
from mcpnb.status import StatusTable

from .conftest import bundle, cell, line

PY = sys.executable


def connect_demo(ip, name: str = "demo", extra: str = "") -> StatusTable:
    return line(ip, f"connect {name} {extra} -- {PY} {DEMO} stdio")


# ---------------------------------------------------------------- connect variants
def test_connect_stdio_with_env_and_cwd(ip, mcp):
    servers = ROOT / "tests" / "servers"
    # A relative script path only works if --cwd really sets the working directory.
    table = line(
        ip, f"connect demo --env GREETING=hello --env OTHER=x --cwd {servers} -- {PY} demo_server.py stdio"
    )
    assert isinstance(table, StatusTable) and table["demo"].state == "connected"
    assert line(ip, "call demo.env name=GREETING").data == "hello"
    assert mcp.pool.connection("demo").config.cwd == str(servers)


def test_connect_http_with_header_and_era(ip, mcp, http_url):
    table = line(ip, f'connect web {http_url} --header "X-Trace: abc" --era legacy')
    assert table["web"].state == "connected"
    assert table["web"].era == "legacy"
    assert mcp.pool.connection("web").config.headers == {"X-Trace": "abc"}
    assert line(ip, "call web.add a=2 b=3").data == 5


def test_connect_sse(ip, mcp, sse_url):
    table = line(ip, f"connect old {sse_url} --sse")
    assert table["old"].transport == "sse" and table["old"].state == "connected"


def test_connect_bearer_env(ip, mcp, http_url, monkeypatch):
    monkeypatch.setenv("MCPNB_MAGIC_TOKEN", "tok-abcdef-123456")
    table = line(ip, f"connect web {http_url} --bearer-env MCPNB_MAGIC_TOKEN")
    assert table["web"].state == "connected"
    assert mcp.pool.connection("web").config.auth.token_env == "MCPNB_MAGIC_TOKEN"


def test_connect_bearer_env_unset_names_the_variable(ip, mcp, http_url, monkeypatch):
    monkeypatch.delenv("MCPNB_MAGIC_MISSING", raising=False)
    with pytest.raises(Exception, match="MCPNB_MAGIC_MISSING"):
        line(ip, f"connect web {http_url} --bearer-env MCPNB_MAGIC_MISSING")


def test_connect_config_file(ip, mcp, tmp_path):
    path = tmp_path / ".mcp.json"
    entry = {"command": PY, "args": [DEMO, "stdio"]}
    path.write_text(
        json.dumps({"mcpServers": {"one": entry, "two": entry, "off": {**entry, "enabled": False}}})
    )
    table = line(ip, f"connect --config {path} one")
    assert [r.name for r in table] == ["one"]
    table = line(ip, f"connect --config {path}")
    assert {r.name: r.state for r in table} == {"one": "connected", "two": "connected", "off": "disabled"}
    with pytest.raises(UsageError, match="did you mean 'two'"):
        line(ip, f"connect --config {path} twoo")


def test_connect_usage_errors(ip, mcp):
    with pytest.raises(UsageError, match="NAME"):
        line(ip, "connect")
    with pytest.raises(UsageError, match="say how to reach"):
        line(ip, "connect demo")
    with pytest.raises(UsageError, match="nothing after"):
        line(ip, "connect demo --")
    with pytest.raises(UsageError, match="did you mean 'legacy'"):
        line(ip, "connect demo http://127.0.0.1:1/mcp --era legasy")
    with pytest.raises(UsageError, match="did you mean '--header'"):
        line(ip, "connect demo http://127.0.0.1:1/mcp --headr X")
    with pytest.raises(UsageError, match="for HTTP/SSE"):
        line(ip, f'connect demo --header "A: b" -- {PY} {DEMO}')


def test_connect_failure_is_short_and_verbose_adds_the_traceback(ip, mcp, capsys):
    with pytest.raises(ConnectError, match="command not found"):
        line(ip, "connect bad -- /nonexistent/server")
    cell(ip, "%mcp connect bad -- /nonexistent/server")
    err = capsys.readouterr()
    text = err.out + err.err
    assert "ConnectError: could not connect to 'bad'" in text
    assert "Traceback" not in text and "--verbose" in text
    cell(ip, "%mcp connect bad --verbose -- /nonexistent/server")
    err = capsys.readouterr()
    assert "Traceback" in err.out + err.err or "File " in err.out + err.err


# ---------------------------------------------------------------- status, tools
def test_status_and_bare_mcp(ip, mcp):
    connect_demo(ip)
    for text in ("status", ""):
        table = line(ip, text)
        assert isinstance(table, StatusTable)
        assert table["demo"].state == "connected"
    data = bundle(ip, line(ip, ""))
    assert "connected" in data["text/plain"] and "<table" in data["text/html"]


def test_tools_listing_filter_and_store(ip, mcp):
    connect_demo(ip)
    line(ip, "serve probe-kit --toolset core")
    every = line(ip, "tools")
    assert {t.server for t in every} == {"demo", "probe"}
    only = line(ip, "tools demo --filter point -o found")
    assert [t.name for t in only] == ["point", "bad_point"]
    assert ip.user_ns["found"] is only
    globbed = [t.name for t in line(ip, "tools demo --filter 'p*'")]
    assert {"pid", "people", "point"} <= set(globbed) and all(n.startswith("p") for n in globbed)
    data = bundle(ip, only)
    assert "x*" in data["text/plain"] and "<table" in data["text/html"]
    with pytest.raises(UsageError, match="did you mean 'demo'"):
        line(ip, "tools dmeo")


# ---------------------------------------------------------------- calls
def test_call_line_capture_and_store(ip, mcp):
    connect_demo(ip)
    result = line(ip, "call demo.add a=1 b=2")
    assert isinstance(result, ToolResult) and result.data == 3
    cell(ip, "x = %mcp call demo.echo text='hello world'")
    assert ip.user_ns["x"].text == "hello world"
    line(ip, "call demo.people -o people")
    assert list(ip.user_ns["people"].df["name"]) == ["Ada", "Linus", "Grace"]
    assert line(ip, "call add a=5 b=5").data == 10  # a bare tool name works when it is unique


def test_call_text_argument_keeps_what_was_typed(ip, mcp):
    connect_demo(ip)
    assert line(ip, "call demo.echo text=007").data == "007"  # the schema wants a string
    assert line(ip, "call demo.echo text=true").data == "true"


def test_cell_call_body_forms_and_interpolation(ip, mcp):
    connect_demo(ip)
    ip.user_ns["who"] = "Ada"
    ip.user_ns["num"] = 40
    cell(ip, "%%mcp call demo.echo -o r1\ntext: hello {{who}}\n")
    assert ip.user_ns["r1"].data == "hello Ada"
    cell(ip, '%%mcp call demo.add -o r2\n{"a": {{num}}, "b": 2}\n')
    assert ip.user_ns["r2"].data == 42
    cell(ip, "%%mcp call demo.echo -o r3\ntext: costs $5 {not an expression}\n")
    assert ip.user_ns["r3"].data == "costs $5 {not an expression}"  # no $var / {expr} expansion
    res = cell(ip, "r4 = %mcp call demo.echo text=$who")
    assert res.success and ip.user_ns["r4"].data == "$who"


def test_trailing_semicolon_silences(ip, mcp):
    connect_demo(ip)
    silenced = cell(ip, "%mcp status;")
    assert silenced.success and silenced.result is None
    assert cell(ip, "%mcp status").result is not None


def test_cell_call_timeout_and_raw(ip, mcp):
    connect_demo(ip)
    cell(ip, "%%mcp call demo.add --raw -o raw\na: 1\nb: 1\n")
    assert ip.user_ns["raw"]["structuredContent"] == {"result": 2}
    assert "application/json" in bundle(ip, ip.user_ns["raw"])
    res = cell(ip, "%%mcp call demo.slow --timeout 0.5\nseconds: 5\n")
    assert res.error_in_exec is not None and "timed out" in str(res.error_in_exec)
    with pytest.raises(UsageError, match="positive"):
        line(ip, "call demo.slow seconds=1 --timeout 0")


@pytest.fixture
def counter(mcp):
    """An in-process server whose only tool records every call it receives."""
    from mcp.server.mcpserver import MCPServer

    calls: list[int] = []
    server = MCPServer("counter", log_level="WARNING")

    @server.tool()
    def count(n: int, label: str = "") -> int:
        """Record a call."""
        calls.append(n)
        return len(calls)

    mcp.pool.connect("counter", server=server)
    return calls


def test_bad_arguments_are_caught_before_anything_is_sent(ip, mcp, counter):
    with pytest.raises(UsageError, match=r"argument 'n': 'abc' is not of type 'integer'") as info:
        line(ip, "call counter.count n=abc")
    assert "nothing was sent" in str(info.value) and "count(n*: integer" in str(info.value)
    with pytest.raises(UsageError, match=r"line 2\): 'x' is not of type"):
        cell(ip, '%%mcp call counter.count\nlabel: ok\nn: "x"\n').raise_error()
    with pytest.raises(UsageError, match="missing required argument 'n'"):
        line(ip, "call counter.count label=x")
    with pytest.raises(UsageError, match=r"unknown argument 'nn'.*did you mean 'n'"):
        line(ip, "call counter.count nn=1")
    assert counter == []  # the server saw no call at all
    assert line(ip, "call counter.count n=7").data == 1
    assert counter == [7]


def test_unknown_tools_servers_and_subcommands_suggest(ip, mcp):
    connect_demo(ip)
    with pytest.raises(UsageError, match="did you mean 'echo'"):
        line(ip, "call demo.ecko text=x")
    with pytest.raises(UsageError, match="did you mean 'demo'"):
        line(ip, "call dmeo.echo text=x")
    with pytest.raises(UsageError, match="did you mean 'tools'"):
        line(ip, "tols")
    with pytest.raises(UsageError, match="did you mean '--timeout'"):
        line(ip, "call demo.echo text=x --timout 3")
    with pytest.raises(UsageError, match="takes no cell body"):
        ip.run_cell_magic("mcp", "status", "something")


def test_tool_error_renders_as_server_error(ip, mcp):
    connect_demo(ip)
    result = line(ip, "call demo.fail message=nope")
    assert result.is_error
    data = bundle(ip, result)
    assert "The server reported an error" in data["text/plain"] and "nope" in data["text/plain"]


# ---------------------------------------------------------------- server-everything, resources, prompts
@pytest.fixture
def everything_connected(ip, mcp, everything):
    return line(ip, f"connect ev -- node {everything} stdio")


def test_everything_calls(ip, mcp, everything_connected):
    assert "5" in line(ip, "call ev.get-sum a=2 b=3").text
    image = line(ip, "call ev.get-tiny-image")
    assert "image/png" in bundle(ip, image)
    structured = line(ip, "call ev.get-structured-content location=Chicago")
    assert structured.data is not None


def test_resources_read_prompts_prompt(ip, mcp, everything_connected):
    res = line(ip, "resources ev -o res")
    assert ip.user_ns["res"] is res and len(res) > 0
    uri = str(res[0].uri)
    assert "<table" in bundle(ip, res)["text/html"]
    contents = line(ip, f"read ev {uri}")
    assert contents.text and uri in bundle(ip, contents)["text/plain"]
    prompts = line(ip, "prompts ev")
    assert "args-prompt" in repr(prompts) and "city*" in repr(prompts)
    messages = line(ip, "prompt ev.args-prompt city=Paris state=IDF")
    assert "Paris" in repr(messages)
    with pytest.raises(UsageError, match="missing required argument 'city'"):
        line(ip, "prompt ev.args-prompt")
    with pytest.raises(UsageError, match="did you mean 'args-prompt'"):
        line(ip, "prompt ev.args-promt city=x")
    everything_listing = line(ip, "prompts")
    assert len(everything_listing) == len(prompts)


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
    line(ip, "disconnect demo")
    assert "disconnected: demo" in capsys.readouterr().out
    assert mcp.pool.names == ["demo2"]
    with pytest.raises(UsageError):
        line(ip, "disconnect")
    line(ip, "disconnect --all")
    assert mcp.pool.names == []


def test_config_view(ip, mcp, tmp_path, monkeypatch):
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"filed": {"command": "echo"}}}))
    monkeypatch.chdir(tmp_path)
    connect_demo(ip)
    view = line(ip, "config")
    assert set(view) == {"filed", "demo"} and view["demo"]["connected"] is True
    assert str(tmp_path / ".mcp.json") in repr(view)


def test_serve_probekit_in_process_and_http(ip, mcp, capsys):
    # serve_probekit() falls back to the default pool when given an *empty* pool (`pool or
    # default_pool()`, and Pool has __len__): keep this test's pool non-empty until that is fixed.
    connect_demo(ip)
    table = line(ip, "serve probe-kit")
    assert table["probe"].transport == "inprocess" and table["probe"].tools == 36
    table = line(ip, "serve probe-kit --http --name kit --toolset ui")
    assert table["kit"].transport == "http" and table["kit"].state == "connected"
    assert line(ip, "call kit.ui_search query=button limit=1").data["results"]
    line(ip, "serve --stop kit")
    assert "stopped: kit" in capsys.readouterr().out
    assert "kit" not in mcp.pool
    with pytest.raises(UsageError, match="did you mean 'core'"):
        line(ip, "serve probe-kit --toolset cor")
    with pytest.raises(UsageError, match="--port needs --http"):
        line(ip, "serve probe-kit --port 8000")


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
    assert line(ip, "call -h") is None
    assert "--timeout" in capsys.readouterr().out
    doc = ip.find_line_magic("mcp").__doc__
    assert "%mcp call" in doc and "usage" in doc.lower()
