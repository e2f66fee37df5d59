"""``%mcp connect`` through a real IPython shell against real servers: stdio, HTTP, SSE, a server
made in the notebook, sign-in, ``--config`` (ours and other clients' files), and the usage errors
that say where each word goes. No protocol mocking."""

from __future__ import annotations

import json
import re
import sys

import pytest
from conftest import DEMO, ROOT, HttpServer
from IPython.core.error import UsageError

from mcpnb.client.errors import ConfigError, ConnectError
from mcpnb.client.status import StatusTable

from .conftest import cell, line

PY = sys.executable


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


def test_connect_with_roots(ip, mcp, everything, tmp_path, monkeypatch):
    """``--root DIR`` (repeat): the directories the server may work in, as MCP roots; relative to here."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()  # a root must be a folder that exists
    line(ip, f"connect ev --root . --root sub -- node {everything} stdio")
    assert mcp.pool.connection("ev").config.roots == (str(tmp_path), str(tmp_path / "sub"))
    said = line(ip, "call ev.get-roots-list").text
    assert tmp_path.as_uri() in said and (tmp_path / "sub").as_uri() in said
    with pytest.raises(UsageError, match="--root does not combine with --config"):
        line(ip, "connect --config --root .")


def test_connect_http_with_header_and_era(ip, mcp, http_url):
    table = line(ip, f'connect web {http_url} --header "X-Trace: abc" --era legacy')
    assert table["web"].state == "connected"
    assert table["web"].era == "legacy"
    assert mcp.pool.connection("web").config.headers == {"X-Trace": "abc"}
    assert line(ip, "call web.add a=2 b=3").data == 5


def test_connect_fills_notebook_variables(ip, mcp, http_url):
    """``{{var}}`` as in every %mcp line: a token stays in a variable, not in the saved cell."""
    ip.user_ns.update(url=http_url, token="s3cret-token", script=DEMO, greeting="hi there")
    table = line(ip, 'connect web {{url}} --header "Authorization: Bearer {{token}}"')
    assert table["web"].state == "connected"
    assert mcp.pool.connection("web").config.headers == {"Authorization": "Bearer s3cret-token"}
    assert "s3cret-token" not in repr(table) + repr(mcp.pool.connection("web").config)
    line(ip, f"connect demo --env GREETING={{{{greeting}}}} -- {PY} {{{{script}}}} stdio")
    assert line(ip, "call demo.env name=GREETING").data == "hi there"
    with pytest.raises(
        UsageError, match=r"\{\{tokn\}\}: no variable 'tokn' in the notebook; did you mean 'token'"
    ):
        line(ip, "connect web2 {{url}} --header 'Authorization: Bearer {{tokn}}'")
    assert "web2" not in mcp.pool


def test_ipython_style_variables_are_refused_with_the_double_braces_to_write(ip, mcp, http_url):
    """``{var}`` and ``$var`` insert a variable in IPython's own magics, not in %mcp (JSON has braces):
    a command path ``{script}`` would start nothing and a header would send ``$token`` as typed."""
    ip.user_ns.update(script=DEMO, token="s3cret-token", url=http_url)
    with pytest.raises(UsageError, match=r"^\{script\} would reach the server as typed: .*, \{\{script\}\}$"):
        line(ip, f"connect demo -- {PY} {{script}} stdio")
    with pytest.raises(UsageError, match=r"^\$token would reach the server as typed: .*, \{\{token\}\}$"):
        line(ip, 'connect web {{url}} --header "Authorization: Bearer $token"')
    assert "demo" not in mcp.pool and "web" not in mcp.pool  # nothing was started
    # a config's ${VAR} (the environment's) and names that are no notebook variable stay as typed
    line(ip, f"connect demo --env GREETING=${{HOME}}-{{nobody}}-$nobody -- {PY} {{{{script}}}} stdio")
    assert line(ip, "call demo.env name=GREETING").data.endswith("-{nobody}-$nobody")
    # a tool argument is refused only when the whole value is such a reference
    ip.user_ns["topic"] = "tides"
    with pytest.raises(UsageError, match=r"^\{topic\} would reach the server"):
        line(ip, "call demo.echo text={topic}")
    assert line(ip, 'call demo.echo text="a {topic} template"').data == "a {topic} template"


def test_connect_a_server_made_in_the_notebook(ip, mcp, http_url):
    """``%mcp connect NAME {{srv}}``: a server object written in a cell runs in-process, as people
    write one while learning MCP; a variable holding a URL is still a URL."""
    from mcp.server.mcpserver import MCPServer

    srv = MCPServer("mine", log_level="WARNING")

    @srv.tool()
    def hello(name: str) -> str:
        """Greet someone."""
        return f"hi {name}"

    ip.user_ns.update(srv=srv, url=http_url, notes={"a": 1})
    table = line(ip, "connect mine {{srv}}")
    assert (table["mine"].transport, table["mine"].state) == ("inprocess", "connected")
    assert line(ip, "call mine.hello name=Ada").data == "hi Ada"
    assert line(ip, "connect web {{url}}")["web"].transport == "http"
    with pytest.raises(UsageError, match="--header does not apply to a server object run in-process"):
        line(ip, 'connect mine2 {{srv}} --header "X: y"')
    with pytest.raises(ConfigError, match=r"an in-process server is an MCP server object .*, not a dict"):
        line(ip, "connect odd {{notes}}")


def test_connect_sse(ip, mcp, sse_url):
    table = line(ip, f"connect old {sse_url} --sse")
    assert table["old"].transport == "sse" and table["old"].state == "connected"


def test_connect_waits_for_a_server_that_is_still_starting(ip, mcp):
    import threading

    from conftest import free_port

    port = free_port()
    waiting, started = threading.Event(), []
    mcp.pool.subscribe(lambda e: "waiting for the server" in e.message and waiting.set())

    def start_when_waited_for() -> None:
        if waiting.wait(30):
            started.append(HttpServer("http", port=port))

    starter = threading.Thread(target=start_when_waited_for, daemon=True)
    starter.start()
    try:
        table = line(ip, f"connect late http://127.0.0.1:{port}/mcp --wait 30")
        assert table["late"].state == "connected" and waiting.is_set()
        assert line(ip, "call late.add a=2 b=3").data == 5
    finally:
        starter.join(40)
        for server in started:
            server.stop()
    with pytest.raises(UsageError, match="--wait takes a number of seconds"):
        line(ip, "connect late http://127.0.0.1:9/mcp --wait -1")
    with pytest.raises(UsageError, match="--wait does not combine with --config"):
        line(ip, "connect --config --wait 5")


def test_connect_bearer_env(ip, mcp, http_url, monkeypatch):
    monkeypatch.setenv("MCPNB_MAGIC_TOKEN", "tok-abcdef-123456")
    table = line(ip, f"connect web {http_url} --bearer-env MCPNB_MAGIC_TOKEN")
    assert table["web"].state == "connected"
    assert mcp.pool.connection("web").config.auth.token_env == "MCPNB_MAGIC_TOKEN"


def test_connect_bearer_env_unset_names_the_variable(ip, mcp, http_url, monkeypatch):
    monkeypatch.delenv("MCPNB_MAGIC_MISSING", raising=False)
    with pytest.raises(Exception, match="MCPNB_MAGIC_MISSING"):
        line(ip, f"connect web {http_url} --bearer-env MCPNB_MAGIC_MISSING")


def test_connect_oauth_signs_in_and_a_server_that_wants_it_says_so(ip, mcp, capsys):
    from servers.oauth_server import OAuthServers, Person

    from mcpnb.client.auth import restore_authorization_ui, set_authorization_ui

    with OAuthServers() as servers:
        with pytest.raises(ConnectError) as info:
            line(ip, f"connect secure {servers.mcp_url}")
        assert "signs people in with OAuth" in str(info.value)
        assert f"%mcp connect secure {servers.mcp_url} --oauth" in str(info.value)
        person = Person(follow=True)  # opens the link and approves; the browser goes back to mcpnb
        previous = set_authorization_ui(show_link=person.show_link, mode="listener")
        try:
            table = line(ip, f"connect secure {servers.mcp_url} --oauth")
            assert table["secure"].state == "connected" and len(person.links) == 1
            assert line(ip, "call secure.whoami").text.startswith("dyn-")  # a client it registered
            line(ip, "disconnect secure")
            line(ip, f"connect secure {servers.mcp_url} --oauth")  # still signed in: no link
            assert len(person.links) == 1
            line(ip, "disconnect secure --sign-out")
            assert "disconnected: secure (signed out)" in capsys.readouterr().out
            line(ip, f"connect secure {servers.mcp_url} --oauth")  # signs in afresh
            assert len(person.links) == 2 and servers.state.registrations == 2
        finally:
            restore_authorization_ui(previous)
        line(ip, "disconnect secure --sign-out")


def test_connect_oauth_with_an_issuer_signs_in_only_there(ip, mcp):
    """``--issuer``: a server that sends the person to another authorization server is refused
    before any link shows; the one that names it signs in as before."""
    from servers.oauth_server import OAuthServers, Person

    from mcpnb.client.auth import restore_authorization_ui, set_authorization_ui

    with pytest.raises(UsageError, match="--issuer names the authorization server of an OAuth sign-in"):
        line(ip, "connect web http://127.0.0.1:1/mcp --issuer http://127.0.0.1:2")
    with OAuthServers() as trusted, OAuthServers() as other:
        person = Person(follow=True)
        previous = set_authorization_ui(show_link=person.show_link, mode="listener")
        try:
            with pytest.raises(ConnectError) as info:
                line(ip, f"connect secure {other.mcp_url} --oauth --issuer {trusted.issuer}")
            assert f"(auth.issuer, or --issuer) is {trusted.issuer}: nothing was sent there" in str(
                info.value
            )
            assert person.links == [] and other.state.registrations == 0
            table = line(ip, f"connect secure {trusted.mcp_url} --oauth --issuer {trusted.issuer}")
            assert table["secure"].state == "connected" and len(person.links) == 1
        finally:
            restore_authorization_ui(previous)
        line(ip, "disconnect secure --sign-out")


def test_connect_oauth_with_assume_pkce_signs_in_where_the_metadata_lists_no_methods(ip, mcp):
    """``--assume-pkce``: an authorization server whose metadata leaves out
    code_challenge_methods_supported (as Microsoft Entra ID's does) is refused with the way out
    named; with the flag the setting reaches the server's auth and the sign-in goes on."""
    from servers.oauth_server import OAuthServers, Person

    from mcpnb.client.auth import restore_authorization_ui, set_authorization_ui

    with pytest.raises(UsageError, match="--assume-pkce is about an OAuth sign-in's authorization server"):
        line(ip, "connect web http://127.0.0.1:1/mcp --assume-pkce")
    with pytest.raises(UsageError, match="--assume-pkce is for HTTP/SSE servers"):
        line(ip, f"connect web --assume-pkce -- {PY} -c pass")
    with OAuthServers(pkce_methods=None) as servers:
        person = Person(follow=True)
        previous = set_authorization_ui(show_link=person.show_link, mode="listener")
        try:
            with pytest.raises(ConnectError, match="set assume_pkce: true in the server's auth settings"):
                line(ip, f"connect entra {servers.mcp_url} --oauth")
            assert person.links == [] and servers.state.registrations == 0
            table = line(ip, f"connect entra {servers.mcp_url} --oauth --assume-pkce")
            assert table["entra"].state == "connected" and len(person.links) == 1
            assert mcp.pool.connection("entra").config.auth.assume_pkce is True
            assert line(ip, "call entra.whoami").text.startswith("dyn-")
        finally:
            restore_authorization_ui(previous)
        line(ip, "disconnect entra --sign-out")


def test_keep_sign_in_survives_a_kernel_restart_until_sign_out(ip, mcp, tmp_path, monkeypatch):
    """``--oauth --keep-sign-in``: the tokens go to a file only the user can read; a restarted kernel
    (memory gone) connects without a new link; ``--sign-out`` deletes the file."""
    from servers.oauth_server import OAuthServers, Person

    from mcpnb.client.auth import restore_authorization_ui, set_authorization_ui
    from mcpnb.client.auth import storage as token_storage

    monkeypatch.setenv(token_storage.TOKEN_DIR_ENV, str(tmp_path / "tokens"))
    with pytest.raises(UsageError, match="--keep-sign-in keeps an OAuth sign-in: give it with --oauth"):
        line(ip, "connect web http://127.0.0.1:1/mcp --keep-sign-in")
    with OAuthServers() as servers:
        person = Person(follow=True)
        previous = set_authorization_ui(show_link=person.show_link, mode="listener")
        try:
            line(ip, f"connect kept {servers.mcp_url} --oauth --keep-sign-in")
            assert len(person.links) == 1
            kept = token_storage.token_path("kept")
            assert kept.exists() and (kept.stat().st_mode & 0o777) == 0o600
            line(ip, "disconnect kept")
            token_storage._MEMORY.clear()  # what a kernel restart forgets
            line(ip, f"connect kept {servers.mcp_url} --oauth --keep-sign-in")
            assert len(person.links) == 1  # no new sign-in: the file had the tokens
            assert line(ip, "call kept.whoami").text.startswith("dyn-")
            line(ip, "disconnect kept --sign-out")
            assert not kept.exists()
        finally:
            restore_authorization_ui(previous)


def test_an_sse_connect_to_a_streamable_http_endpoint_says_drop_sse(ip, mcp, http_url):
    with pytest.raises(Exception) as info:
        line(ip, f"connect web {http_url} --sse")
    shown = "\n".join(info.value._render_traceback_())
    assert "HTTP 400 Bad Request" in shown and "Streamable HTTP endpoint, drop --sse" in shown


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


def test_a_secret_written_in_the_line_is_pointed_out_and_never_shown(ip, mcp, http_url, capsys):
    """Every output redacts it, but the cell's source is saved as typed: say so, and how to keep it
    out ({{var}}). A value that came from a variable, or one that is no secret, says nothing."""
    dsn = "postgresql://ann:hunter2@127.0.0.1/shop"
    line(ip, f"connect pg --env GREETING=hello --env API_TOKEN=tok-123 -- {PY} {DEMO} stdio --dsn {dsn}")
    err = capsys.readouterr().err
    said = "UserWarning: the command and --env API_TOKEN hold a secret written in this line, which the"
    assert err.startswith(said) and "write {{name}} of a notebook variable instead" in err
    assert "IPython keeps in its input history (%history, history.sqlite)" in err  # the cell alone is not all
    assert "hunter2" not in err and "tok-123" not in err and "GREETING" not in err
    line(ip, f'connect web {http_url} --header "Authorization: Bearer s3cret"')
    assert capsys.readouterr().err.startswith("UserWarning: --header Authorization holds a secret")
    ip.user_ns.update(pw="hunter2", token="s3cret")
    line(
        ip,
        f"connect pg --env GREETING=hello -- {PY} {DEMO} stdio --dsn postgresql://ann:{{{{pw}}}}@127.0.0.1/x",
    )
    line(ip, f'connect web {http_url} --header "Authorization: Bearer {{{{token}}}}"')
    assert capsys.readouterr().err == ""
    assert mcp.pool.connection("web").config.headers == {"Authorization": "Bearer s3cret"}


def test_a_filter_that_matches_no_tool_is_said_as_its_message(ip, mcp, tmp_path, capsys):
    """Not Python's warning format, whose file and line would be mcpnb's own; every connect says it."""
    path = tmp_path / ".mcp.json"
    entry = {"command": PY, "args": [DEMO, "stdio"], "disabled_tools": ["ad"]}
    path.write_text(json.dumps({"mcpServers": {"demo": entry}}))
    for _ in range(2):
        line(ip, f"connect --config {path}")
        err = capsys.readouterr().err
        said = "UserWarning: server 'demo': disabled_tools: 'ad' matches none of the server's tools"
        assert err.startswith(said) and "did you mean 'add'?" in err
        assert ".py:" not in err and "mcpnb" not in err and len(err.splitlines()) == 1


def test_config_with_one_invalid_server_connects_the_rest_and_shows_the_problem(
    ip, mcp, tmp_path, monkeypatch
):
    path = tmp_path / ".mcp.json"
    entry = {"command": PY, "args": [DEMO, "stdio"], "env": {"TOKEN": "hunter2-secret"}}
    path.write_text(json.dumps({"mcpServers": {"one": entry, "bad": {**entry, "argz": []}}}))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        ConnectError, match=r"could not connect to 'bad': invalid settings: .*key 'argz'"
    ) as info:
        line(ip, "connect --config")  # the others connect all the same; the cell still ends in an error
    assert "Connected: 'one'" in str(info.value) and "hunter2-secret" not in str(info.value)
    table = line(ip, "status")
    assert {r.name: r.state for r in table} == {"one": "connected", "bad": "failed"}
    assert "key 'argz'" in table["bad"].last_error and "did you mean 'args'" in table["bad"].last_error
    view = line(ip, "config")
    shown = repr(view)
    assert f"files: {path}" in shown  # the file was read, even if one server in it is wrong
    assert "⚠" in shown and "key 'argz'" in shown
    assert "hunter2-secret" not in shown
    with pytest.raises(UsageError, match=r"server 'bad' was not started: invalid settings: .*key 'argz'"):
        line(ip, "call bad.echo text=x")
    assert [r.name for r in line(ip, "status")] == ["one", "bad"]
    line(ip, "disconnect bad")  # never started: its failed row goes
    assert [r.name for r in line(ip, "status")] == ["one"]
    with pytest.raises(ConnectError, match="Fix it, then: %mcp connect --config bad; or connect only"):
        line(ip, "connect --config")
    line(ip, "disconnect --all")
    assert list(line(ip, "status")) == []


def test_connect_config_without_any_file_says_so(ip, mcp, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=r"no \.mcp\.json found"):
        line(ip, "connect --config")


def test_connect_config_points_at_gemini_clis_and_codexs_files(ip, mcp, tmp_path, monkeypatch):
    """A project whose servers are in Gemini CLI's or Codex's file: the bare connect says where, and
    the path it says starts them (a settings file without servers is not pointed at)."""
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".codex").mkdir()
    (tmp_path / "notebooks").mkdir()
    (tmp_path / ".gemini" / "settings.json").write_text('{"theme": "GitHub"}')
    (tmp_path / ".codex" / "config.toml").write_text(
        f"[mcp_servers.kit]\ncommand = {json.dumps(PY)}\nargs = ['-m', 'mcpnb.probekit']\n"
    )
    monkeypatch.chdir(tmp_path / "notebooks")
    with pytest.raises(UsageError) as info:
        line(ip, "connect --config")
    assert str(info.value).endswith(
        "Codex's servers are in ../.codex/config.toml: %mcp connect --config ../.codex/config.toml"
    )
    assert "Gemini" not in str(info.value)
    (tmp_path / ".gemini" / "settings.json").write_text(
        json.dumps(
            {"theme": "GitHub", "mcpServers": {"g": {"command": PY, "args": ["-m", "mcpnb.probekit"]}}}
        )
    )
    shown = repr(line(ip, "config"))
    assert (
        "Gemini CLI's servers are in ../.gemini/settings.json: %mcp config ../.gemini/settings.json" in shown
    )
    table = line(ip, "connect --config ../.codex/config.toml")
    assert table["kit"].state == "connected"


def test_connect_config_points_at_a_vs_code_file_and_takes_its_inputs(ip, mcp, tmp_path, monkeypatch):
    (tmp_path / ".vscode").mkdir()
    (tmp_path / "notebooks").mkdir()
    entry = {"command": PY, "args": ["-m", "mcpnb.probekit", "--toolset", "${input:toolset}"]}
    (tmp_path / ".vscode" / "mcp.json").write_text(
        json.dumps({"inputs": [{"id": "toolset", "description": "Which toolset"}], "servers": {"kit": entry}})
    )
    monkeypatch.chdir(tmp_path / "notebooks")
    shown = repr(line(ip, "config"))
    assert "files: (no .mcp.json found; VS Code's servers are in ../.vscode/mcp.json: %mcp config" in shown
    assert "needs input 'toolset'" in repr(line(ip, "config ../.vscode/mcp.json"))
    with pytest.raises(
        UsageError, match=r"VS Code's servers are in \.\./\.vscode/mcp\.json: %mcp connect --config"
    ):
        line(ip, "connect --config")
    ip.user_ns["chosen"] = "ui"
    table = line(ip, "connect --config ../.vscode/mcp.json --input toolset={{chosen}}")
    assert table["kit"].state == "connected" and "ui_search" in {t.name for t in mcp.pool.tools("kit")}
    with pytest.raises(UsageError, match=r"--input goes with --config"):
        line(ip, f"connect other --input toolset=ui -- {PY} {DEMO}")
    with pytest.raises(UsageError, match="--input toolset is given twice"):
        line(ip, "connect --config ../.vscode/mcp.json --input toolset=ui --input toolset=core")


def test_connect_usage_errors(ip, mcp):
    with pytest.raises(UsageError, match="NAME"):
        line(ip, "connect")
    with pytest.raises(UsageError, match="say how to reach"):
        line(ip, "connect demo")
    with pytest.raises(UsageError, match="nothing after"):
        line(ip, "connect demo --")
    # a command where the URL goes: where it goes, not "unknown option" for the server's own flags
    said = r"'uvx' starts the server, so it goes after --: %mcp connect db -- uvx …"
    with pytest.raises(UsageError, match=said):
        line(ip, "connect db uvx mcp-server-motherduck --read-write")
    with pytest.raises(UsageError, match=r"the server's own flags, like --read-write, go after it\)$"):
        line(ip, "connect db --env A=1 mcp-server-motherduck --read-write=yes")
    with pytest.raises(UsageError, match=r"%mcp connect demo -- python server\.py \(mcpnb's options"):
        line(ip, "connect demo --cwd servers server.py")
    with pytest.raises(UsageError, match=rf"%mcp connect demo -- {re.escape(PY)} …"):
        line(ip, f"connect demo {PY} {DEMO}")
    with pytest.raises(UsageError, match="did you mean 'legacy'"):
        line(ip, "connect demo http://127.0.0.1:1/mcp --era legasy")
    with pytest.raises(UsageError, match="did you mean '--header'"):
        line(ip, "connect demo http://127.0.0.1:1/mcp --headr X")
    with pytest.raises(UsageError, match="does not combine with --config"):
        line(ip, "connect --config --era legacy")
    # other clients' flags say where this magic takes what they mean (a value is never echoed)
    with pytest.raises(UsageError, match=r"unknown option '--url': the URL is the word after the name"):
        line(ip, "connect demo --url http://127.0.0.1:1/mcp")
    with pytest.raises(UsageError, match=r"unknown option '--command': the command goes after --"):
        line(ip, f"connect demo --command {PY}")
    for flag in ("--timeout", "--tool-timeout"):  # "did you mean '--out'?" pointed nowhere useful
        with pytest.raises(UsageError, match=rf"unknown option '{flag}': .* %config Mcp\.tool_timeout = 120"):
            line(ip, f"connect demo {flag} 5 -- {PY} {DEMO} stdio")
    with pytest.raises(UsageError, match=r"'--token': --bearer-env VAR") as caught:
        line(ip, "connect demo http://127.0.0.1:1/mcp --token=tok-SECRET-9")
    assert "SECRET" not in str(caught.value)
    with pytest.raises(UsageError, match="for HTTP/SSE"):
        line(ip, f'connect demo --header "A: b" -- {PY} {DEMO}')
    with pytest.raises(UsageError, match="--oauth is for HTTP/SSE"):
        line(ip, f"connect demo --oauth -- {PY} {DEMO}")
    with pytest.raises(UsageError, match="one way to sign in"):
        line(ip, "connect demo http://127.0.0.1:1/mcp --oauth --bearer-env TOKEN")
    with pytest.raises(UsageError, match="--keep-sign-in keeps an OAuth sign-in: give it with --oauth"):
        line(ip, "connect --config --keep-sign-in")  # --oauth combines with --config: see test_config_sign_in
    # given twice, the last would win unseen; the values (often secrets) are not repeated
    with pytest.raises(UsageError, match=r"^--header 'authorization' is given twice: give each header once$"):
        line(
            ip,
            'connect w http://127.0.0.1:1/mcp --header "Authorization: Bearer AAA1" '
            '--header "authorization: BBB2"',
        )
    with pytest.raises(UsageError, match=r"^--env TOKEN is given twice: give each variable once$"):
        line(ip, f"connect demo --env TOKEN=AAA1 --env TOKEN=BBB2 -- {PY} {DEMO}")


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


def test_an_expression_with_quotes_and_spaces_in_braces_is_python_not_shell_words(ip, mcp, http_url):
    """``{{servers['a']}}`` worked in %mcp call, and in %mcp connect reached Python as
    ``servers[a]`` (the line's shell quoting took the quotes: "NameError: name 'a' is not defined")."""
    from conftest import demo_server_object

    ip.user_ns.update(servers={"a": demo_server_object()}, urls={"web": http_url})
    assert line(ip, "connect mine {{servers['a']}}")["mine"].state == "connected"
    assert line(ip, 'connect web {{ urls["web"] }} --era legacy')["web"].state == "connected"
    assert line(ip, "call mine.add a={{ len(urls) }} b=2").data == 3


def test_a_broken_server_of_the_site_or_user_file_is_said_but_ends_no_cell(
    ip, mcp, tmp_path, monkeypatch, capsys
):
    """An administrator's server that cannot start for this person (a program their environment
    lacks), and one of their own user file: a bare ``--config`` shows them failed and warns, but
    the cell, which asked for the project's servers, goes on. Named, either ends it."""
    ok = {"command": PY, "args": [DEMO, "stdio"]}
    missing = {"command": "no-such-program-mcpnb"}
    site, user = tmp_path / "site.json", tmp_path / "user.json"
    # one the person cannot start, one whose settings need a variable they do not have (never started)
    needs = {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${ADMIN_TOKEN_X}"}}
    site.write_text(json.dumps({"mcpServers": {"admins": missing, "admins2": needs}}))
    user.write_text(json.dumps({"mcpServers": {"mine": missing}}))
    monkeypatch.setenv("MCPNB_SITE_CONFIG", str(site))
    monkeypatch.setenv("MCPNB_USER_CONFIG", str(user))
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": ok}}))
    monkeypatch.chdir(tmp_path / "proj")
    table = line(ip, "connect --config")
    assert {r.name: r.state for r in table} == {
        "admins": "failed",
        "admins2": "failed",
        "mine": "failed",
        "proj": "connected",
    }
    said = capsys.readouterr().err
    assert re.search(r"'admins'.*'mine'.*\"enabled\": false", said) and "no-such-program-mcpnb" in said, said
    line(ip, "disconnect --all")
    with pytest.raises(ConnectError, match="could not connect to 'admins'"):
        line(ip, "connect --config admins proj")  # named: the notebook needs it
    line(ip, "disconnect --all")
    (tmp_path / "proj" / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": missing}}))
    with pytest.raises(ConnectError, match="could not connect to 'proj'"):
        line(ip, "connect --config")  # the project's own: the cell ends
