"""A secret never shows in pieces: not folded across log lines, not cut in half, not as the base64
an HTTP client makes of a URL's credentials.

Redaction works on one line, one message at a time, by value. A sweep found three ways around it:
rich (the log handler of the SDK's ``MCPServer``) folds a token longer than the line across three
lines, none holding the whole value; an error body cut at :data:`~mcpnb.client.transports.MESSAGE_LIMIT`
before it was redacted kept the head of the token it quoted; and ``http://bob:pw@host`` goes out
as ``Authorization: Basic <base64 of bob:pw>``, which nothing knew to hide.

Real servers: the SDK's ``MCPServer`` over stdio (logging through rich, as it does by default, and
crashing with rich's traceback), and the SDK's demo server over Streamable HTTP on 127.0.0.1
behind a proxy that answers with an error quoting the ``Authorization`` header it got.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import wait_until
from servers.asgi import Served, demo_app, read_body, replay  # tests/ is on sys.path

from mcpnb import CallError, ConnectError
from mcpnb.client.redact import FRAGMENT_CHARS

#: no retries, no probes: one connect, one answer
ONCE = {"max_retries": 0, "health_check_interval": 0}

#: A JWT-like token longer than a log line's free width (rich folds it).
LONG_TOKEN = (
    "eyJhbGciOiJIUzI1NiJ9."
    + "".join(chr(65 + (i * 7) % 26) + str(i % 10) + chr(97 + (i * 3) % 26) for i in range(42))
    + ".Sig_x9Q"
)
#: A token short enough to fit on a line, long enough to be cut in two.
PAD_TOKEN = "PADTOKEN-0123456789abcdefghijklmnop"
SHORT_KEY = "apiSECRETz9y8x7w6"
USER, PASSWORD = "bob", "BobPass-9876"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()  # Ym9iOkJvYlBhc3MtOTg3Ng==


def pieces(secret: str) -> set[str]:
    """The secret, its base64, and every run of FRAGMENT_CHARS characters of each."""
    whole = {secret, base64.b64encode(secret.encode()).decode()}
    return whole | {w[i : i + FRAGMENT_CHARS] for w in whole for i in range(len(w) - FRAGMENT_CHARS + 1)}


def shown(pool: Any, name: str, error: BaseException | None = None) -> str:
    """Everything a person sees of a connection: the error raised and its traceback, the status
    table, the connection's and its config's repr, its last error and its log."""
    conn = pool.connection(name)
    said = [repr(pool.status()), repr(conn), repr(conn.config), conn.config.target, str(conn.last_error)]
    if error is not None:
        said += [str(error), "".join(traceback.format_exception(error))]
    return "\n".join([*said, *pool.logs(name)])


def assert_hidden(text: str, *secrets: str, heads: tuple[str, ...] = ()) -> None:
    for secret in secrets:
        for piece in sorted(pieces(secret)):
            assert piece not in text, f"{piece!r} of a secret shows in:\n{text}"
    for head in heads:
        assert head not in text, f"the head {head!r} of a secret shows in:\n{text}"


# ------------------------------------------------------------------ stdio: rich folds the token
SERVER = '''
import logging, os, sys
import anyio
from mcp.server.mcpserver import MCPServer

TOKEN = os.environ["API_TOKEN"]
if os.environ.get("CRASH"):
    from rich.traceback import install
    install()  # many servers do: a crash said the way rich says it, folded at COLUMNS
    raise RuntimeError("the upstream API rejected the credential " + TOKEN)

server = MCPServer("fragments")  # its default logging: rich on stderr

@server.tool()
def logit() -> str:
    logging.getLogger("upstream").warning("using upstream credential value %s %s", "y" * 40, TOKEN)
    return "ok"

@server.tool()
def boom() -> str:
    raise RuntimeError("the upstream API rejected the credential " + TOKEN + " (check it)")

@server.tool()
async def endless(before: int) -> str:
    """A line that never ends, the short key written across the place it is passed on in pieces."""
    key = os.environ["API_KEY"]
    sys.stderr.write("x" * before + " " + key[:8])
    sys.stderr.flush()
    await anyio.sleep(0.5)
    sys.stderr.write(key[8:] + " and more\\n")
    sys.stderr.flush()
    return "written"

server.run()
'''


@pytest.fixture
def server_file(tmp_path: Path) -> str:
    path = tmp_path / "fragments_server.py"
    path.write_text(SERVER)
    return str(path)


def connect_stdio(pool: Any, server_file: str, **env: str) -> None:
    env = {"API_TOKEN": LONG_TOKEN, "API_KEY": SHORT_KEY, **env}
    pool.connect("folded", command=sys.executable, args=[server_file], env=env, **ONCE)


def test_a_long_token_rich_folds_across_log_lines_shows_in_no_piece(pool, server_file):
    connect_stdio(pool, server_file)
    assert pool.call("folded", "logit", {}).text == "ok"
    failed = pool.call("folded", "boom", {})  # the traceback goes to stderr, folded by rich
    assert failed.is_error

    def logged() -> str:
        return "\n".join(pool.logs("folded"))

    assert wait_until(
        lambda: "the upstream API rejected the credential" in logged() and "(check it)" in logged()
    )
    assert "using upstream credential value" in logged() and "***" in logged()
    assert_hidden(shown(pool, "folded") + failed.text + repr(failed), LONG_TOKEN)


def test_a_crash_traceback_rich_folds_shows_no_piece_of_the_token(pool, server_file):
    with pytest.raises(ConnectError) as failed:
        connect_stdio(pool, server_file, CRASH="1")
    text = shown(pool, "folded", failed.value)
    assert "the upstream API rejected the credential" in "\n".join(pool.logs("folded"))
    assert_hidden(text, LONG_TOKEN)


def test_a_line_that_never_ends_is_not_cut_inside_a_secret(pool, server_file):
    # passed on in pieces of 64 KiB: the key, after a space, was split between two pieces and its
    # second half opened the next one, where no redaction recognised it
    connect_stdio(pool, server_file)
    assert pool.call("folded", "endless", {"before": 66_000}).text == "written"
    conn = pool.connection("folded")
    assert wait_until(lambda: any("and more" in line for line in conn.stderr))
    logs = "\n".join(pool.logs("folded"))
    assert "*** and more" in logs
    assert_hidden(logs, heads=(SHORT_KEY[8:],))


# ------------------------------------------------------------------ HTTP: an error that quotes the header
class Echo:
    """The demo server (the SDK's ``MCPServer``) behind a proxy that, while ``mode`` is set, answers
    every POST with an error quoting the ``Authorization`` header it got, after ``pad`` characters:
    ``"500"`` a plain-text HTTP 500, ``"400"`` a JSON-RPC error in an HTTP 400."""

    def __init__(self, app: Any) -> None:
        self.app, self.mode, self.pad = app, "", 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not self.mode:
            return await self.app(scope, receive, send)
        body = await read_body(receive)
        if self.mode == "call" and json.loads(body).get("method") != "tools/call":
            return await self.app(scope, replay(body, receive), send)
        sent = dict(scope["headers"]).get(b"authorization", b"").decode()
        said = "x" * self.pad + " you sent " + sent
        if self.mode == "500":
            status, kind, answer = 500, b"text/plain", said.encode()
        else:  # a JSON-RPC error, in an HTTP 400 (the whole connect) or a 200 (one tool call)
            error = {"code": -32600, "message": said}
            status, kind = (200, b"application/json") if self.mode == "call" else (400, b"application/json")
            answer = json.dumps({"jsonrpc": "2.0", "id": json.loads(body).get("id"), "error": error}).encode()
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", kind)]})
        await send({"type": "http.response.body", "body": answer})


@pytest.fixture
def echo() -> Iterator[tuple[Echo, str]]:
    app, path = demo_app("http")
    proxy = Echo(app)
    served = Served(proxy, path)
    yield proxy, served.url
    served.stop()


#: What is left of the server's quote of the header (the header's value, or the credential in it, hidden).
QUOTE_HIDDEN = r"you sent (Basic |Bearer )?\*\*\*"


def with_credentials(url: str) -> str:
    return url.replace("http://", f"http://{USER}:{PASSWORD}@")


@pytest.mark.parametrize("mode", ["500", "400"])
def test_url_credentials_never_show_as_the_basic_credential(pool, echo, mode):
    proxy, url = echo
    proxy.mode = mode
    with pytest.raises(ConnectError) as failed:
        pool.connect("creds", url=with_credentials(url), **ONCE)
    text = shown(pool, "creds", failed.value)
    assert re.search(QUOTE_HIDDEN, text)  # the server's words, its quote hidden
    assert_hidden(text, PASSWORD, BASIC)


def test_url_credentials_in_a_tool_calls_error_are_hidden(pool, echo):
    proxy, url = echo
    pool.connect("creds", url=with_credentials(url), **ONCE)
    proxy.mode = "call"
    with pytest.raises(CallError) as failed:
        pool.call("creds", "add", {"a": 1, "b": 2})
    text = shown(pool, "creds", failed.value)
    assert re.search(QUOTE_HIDDEN, str(failed.value))
    assert_hidden(text, PASSWORD, BASIC)


def test_url_credentials_of_a_config_file_are_hidden_in_its_failed_row(pool, echo, tmp_path):
    proxy, url = echo
    proxy.mode = "500"
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"creds": {"url": with_credentials(url), **ONCE}}}))
    table = pool.connect_config(config)
    assert "failed" in repr(table) and re.search(QUOTE_HIDDEN, repr(table))
    assert_hidden(repr(table) + shown(pool, "creds"), PASSWORD, BASIC)


@pytest.mark.parametrize(
    "token, pad",
    [
        (PAD_TOKEN, 270),  # the cut at 300 characters fell 13 characters into the token
        (LONG_TOKEN, 200),  # ... 83 characters into it
    ],
)
@pytest.mark.parametrize("mode", ["500", "400"])
def test_a_bearer_token_cut_by_the_message_limit_shows_no_head(pool, echo, token, pad, mode):
    proxy, url = echo
    proxy.mode, proxy.pad = mode, pad
    with pytest.raises(ConnectError) as failed:
        pool.connect("bearer", url=url, auth={"type": "bearer", "token": token}, **ONCE)
    text = shown(pool, "bearer", failed.value)
    assert re.search(QUOTE_HIDDEN, text)
    assert_hidden(text, token, heads=(token[:8],))
