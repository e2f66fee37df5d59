"""Errors that say what happened: which stderr line tells why a server stopped (``errors.last_words``),
on the output real runtimes print when they crash."""

from __future__ import annotations

import pytest
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from mcpnb import CallError
from mcpnb.client.errors import describe, last_words


class Name(BaseModel):
    name: str


NODE_CRASH = """node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/srv/index.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at Module._load (node:internal/modules/cjs/loader:1038:27)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2""".splitlines()

NPX_MISSING = """npm error code E404
npm error 404 Not Found - GET http://127.0.0.1:9/no-such-server - Not found
npm error 404
npm error A complete log of this run can be found in: /root/.npm/_logs/2026-12-02-debug-0.log""".splitlines()


def test_node_crash_names_the_error_not_the_version_banner():
    assert last_words(NODE_CRASH) == "Error: Cannot find module '/srv/index.js'"


def test_python_traceback_names_the_exception():
    lines = [
        "Traceback (most recent call last):",
        '  File "<string>", line 1, in <module>',
        "KeyError: 'TOKEN'",
    ]
    assert last_words(lines) == "KeyError: 'TOKEN'"


def test_npm_error_skips_the_log_pointer():
    assert last_words(NPX_MISSING) == "npm error 404"


def test_a_plain_last_line_is_kept_when_nothing_names_a_failure():
    assert last_words(["starting", "MY_API_KEY is not set", ""]) == "MY_API_KEY is not set"


def test_an_old_error_far_above_does_not_beat_the_last_line():
    lines = ["ERROR: retrying the cache", *[f"served request {i}" for i in range(20)], "shutting down"]
    assert last_words(lines) == "shutting down"


def test_nothing_said():
    assert last_words([]) is None
    assert last_words(["", "}", "   "]) is None


def test_a_server_that_keeps_asking_is_said_in_our_words_not_the_sdks():
    """The SDK's advice ("raise input_required_max_rounds on the Client, or use
    client.session.<method>(..., allow_input_required=True)") is about a Client mcpnb users never hold."""
    from mcp.client import InputRequiredRoundsExceededError

    said = describe(InputRequiredRoundsExceededError(10))
    assert said == (
        "the server asked for input again after each answer (10 rounds) and gave no result; its "
        "questions and the answers given are in the call's transcript (--transcript)"
    )


def test_a_server_that_asks_by_a_request_of_its_own_on_a_modern_session_says_connect_it_legacy(pool):
    """An MCPServer written in a cell whose tool calls ``ctx.elicit`` (a request of its own, which a
    2026-07-28 session cannot carry): the error named the SDK's NoBackChannelError and no way out."""
    server = MCPServer("forms")

    @server.tool()
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", Name)
        return answer.data.name if answer.action == "accept" else answer.action

    pool.connect("modern", server=server)
    with pytest.raises(  # a server object has no command, so no "--" to put the flag before
        CallError, match=r"connect it with --era legacy, %mcp connect modern \{\{srv\}\} --era legacy"
    ):
        pool.call("modern", "ask", answers={"name": "Ada"})
    pool.connect("legacy", server=server, era="legacy")
    assert pool.call("legacy", "ask", answers={"name": "Ada"}).text == "Ada"


def test_a_servers_json_rpc_error_shows_all_it_sent(pool):
    """A server's error beyond its message's first line (the rest of it, and its ``data``: here a
    traceback) was dropped; a server author saw one line and no way to the rest. Now it shows under
    the first line, and the error keeps ``code`` and ``data`` as sent."""
    from mcp import MCPError
    from mcp.server.mcpserver import MCPServer

    from mcpnb import CallError

    traceback = "Traceback (most recent call last):\n  File \"app.py\", line 3\nKeyError: 'user_id'"
    server = MCPServer("err", log_level="WARNING")

    @server.tool()
    def boom() -> str:
        raise MCPError(
            code=-32603,
            message="Internal error: KeyError\nwhile loading the user",
            data={"traceback": traceback},
        )

    pool.connect("e", server=server)
    with pytest.raises(CallError) as failed:
        pool.call("e", "boom")
    said = str(failed.value)
    assert said.startswith("boom() on 'e' failed: Internal error: KeyError (MCP error -32603)\n"), said
    assert "while loading the user" in said and f"traceback: {traceback}" in said
    assert failed.value.code == -32603 and failed.value.data == {"traceback": traceback}


def test_a_servers_error_of_thousands_of_characters_on_one_line_is_cut_after_its_secrets(pool, tmp_path):
    """A 5,000-character message on one line filled the cell; cut, it must not leave the head of a
    secret it quotes at the cut (scrubbed first, then cut), and the error keeps it whole."""
    key = "Ks7-very-secret-key-0f-the-db-9Qz"
    script = tmp_path / "long_error.py"
    script.write_text(
        "import os\n"
        "from mcp import MCPError\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "server = MCPServer('long', log_level='WARNING')\n"
        "@server.tool()\n"
        "def boom() -> str:\n"
        "    said = 'x' * 990 + ' key=' + os.environ['DB_KEY'] + ' ' + 'y' * 4000\n"
        "    raise MCPError(code=-32001, message=said)\n"
        "server.run()\n"
    )
    import sys

    pool.connect("long", command=sys.executable, args=[str(script)], env={"DB_KEY": key})
    with pytest.raises(CallError) as failed:
        pool.call("long", "boom")
    said = str(failed.value)
    assert len(said) < 1200 and "more characters: the error's .message)" in said, said[-200:]
    assert key[:6] not in said and key not in said
    whole = failed.value.message
    assert whole is not None and len(whole) > 4900 and key not in whole and "key=***" in whole
