"""Secrets in the records of loggers made after the filter was put in place: httpcore makes
``httpcore2.http11`` during the first request of a process, and a record logged on a child logger
passes by a filter on its parent. Logging at DEBUG, the first Streamable HTTP session of a fresh
process logs no session id, cookie or credential a server echoes."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from servers.asgi import demo_behind  # tests/ is on sys.path

from mcpnb.client import logfilter

BEARER = "bt-Hq52-bearer"
QUERY_TOKEN = "qt-Wd38-query"
COOKIE = "ck-Pn64-cookie"

#: A fresh Python (httpcore's child loggers not made yet) logging everything at DEBUG, one session.
CLIENT = f"""
import io, logging, sys
log = io.StringIO()
logging.basicConfig(level=logging.DEBUG, stream=log, format="%(name)s %(message)s")
from mcpnb import Pool
from mcpnb.client.runtime import Runtime
made_later = "httpcore2.http11" not in logging.root.manager.loggerDict
runtime = Runtime(name="first-session")
pool = Pool(runtime)
pool.connect("web", url=sys.argv[1] + "?token={QUERY_TOKEN}", era="legacy", health_check_interval=0,
             headers={{"Authorization": "Bearer {BEARER}"}})
said = pool.call("web", "echo", {{"text": "hello"}}).text
pool.close()
runtime.close()
print(made_later, said)
print(log.getvalue())
"""


class Echoing:
    """The demo server, whose every answer sets a cookie and echoes the credentials it was sent in
    ``WWW-Authenticate`` (as some servers' error descriptions do); keeps the session ids it gave."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.session_ids: set[str] = set()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        sent = dict(scope["headers"]).get(b"authorization", b"").decode()
        query = scope["query_string"].decode()
        echoed = f'Bearer realm="mcp", error_description="got {sent} for {query}"'

        async def send_with_headers(event: dict[str, Any]) -> None:
            if event["type"] == "http.response.start":
                headers = list(event.get("headers", []))
                self.session_ids |= {v.decode() for k, v in headers if k.lower() == b"mcp-session-id"}
                headers += [
                    (b"set-cookie", f"sid={COOKIE}; HttpOnly".encode()),
                    (b"www-authenticate", echoed.encode()),
                ]
                event = {**event, "headers": headers}
            await send(event)

        await self.app(scope, receive, send_with_headers)


@pytest.fixture
def echoing() -> Iterator[tuple[Echoing, str]]:
    yield from demo_behind(Echoing, "http")


def test_the_first_session_of_a_process_logs_no_secret(echoing):
    server, url = echoing
    done = subprocess.run([sys.executable, "-c", CLIENT, url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, log = done.stdout.split("\n", 1)
    assert first == "True hello"  # httpcore's loggers were made during the session, which worked
    assert "httpcore2.http11 receive_response_headers" in log  # its response headers were logged
    assert server.session_ids
    for secret in (BEARER, QUERY_TOKEN, COOKIE, *server.session_ids):
        assert secret not in log, f"{secret} leaked into the log"
    assert "(b'set-cookie', b'***; HttpOnly')" in log and "(b'mcp-session-id', b'***" in log
    assert "got *** for token=***" in log  # a known secret, hidden though under no secret name


@pytest.fixture
def record_factory() -> Iterator[None]:
    """The process's log record factory put back after the test."""
    before = logging.getLogRecordFactory()
    yield
    logging.setLogRecordFactory(before)


def test_a_watched_logger_made_after_install_is_filtered(caplog, record_factory):
    logfilter.install()
    caplog.set_level(logging.DEBUG)
    later = logging.getLogger("httpcore2.made_after_install")
    later.debug("response headers [(b'set-cookie', b'sid=%s')]", COOKIE)
    assert COOKIE not in caplog.text and "b'***'" in caplog.text


def test_the_loggers_of_other_code_are_left_alone(caplog, record_factory):
    """The filter rewrites what the libraries mcpnb drives log; a logger of the person's own (or of
    any other library) logs what its code said, as it was said."""
    logfilter.install()
    caplog.set_level(logging.DEBUG)
    logging.getLogger("myapp.made_after_install").debug("token=%s", COOKIE)
    assert caplog.records[-1].getMessage() == f"token={COOKIE}"


def test_the_record_factory_before_is_kept_and_installed_once(caplog, record_factory):
    made: list[str] = []
    before = logging.getLogRecordFactory()

    def counting(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = before(*args, **kwargs)
        made.append(record.name)
        return record

    logging.setLogRecordFactory(counting)  # another library's, which replaced mcpnb's
    logfilter.install()
    logfilter.install()
    caplog.set_level(logging.DEBUG)
    logging.getLogger("httpx2.made_after_install").debug("token=%s", COOKIE)
    assert made == ["httpx2.made_after_install"]  # the factory before still makes it, once
    assert COOKIE not in caplog.text
