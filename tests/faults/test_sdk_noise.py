"""What the SDK logs when a server misbehaves (an SSE stream that dies, a session that cannot be
ended) belongs to that server's log (``%mcp logs NAME``), not to whichever cell is running: with no
logging configured, Python would print it on stderr, which a kernel shows in the cell. Here pytest's
own log capture stands for that stderr: no SDK warning may reach a handler at all."""

from __future__ import annotations

import logging

import pytest
from conftest import HttpServer, children

from mcpnb import McpnbError
from mcpnb.client.logfilter import SERVER_LOGGERS


def _sdk_lines(conn) -> list[str]:
    return [e.message for e in conn.events.history if e.kind == "sdk"]


def sdk_warnings_shown(caplog) -> list[str]:
    """SDK records at WARNING or above that reached a logging handler (in a kernel: the cell)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.split(".")[0] in SERVER_LOGGERS and r.levelno >= logging.WARNING
    ]


def test_an_sse_stream_that_dies_is_logged_for_its_server(pool, marks, capfd, caplog):
    server = HttpServer("sse")
    pool.connect(
        "feed", url=server.url, era="legacy", retry_delay=0.05, max_retries=1, health_check_interval=0
    )
    conn = pool.connection("feed")
    server.proc.kill()
    server.proc.wait()
    with pytest.raises(McpnbError):  # lost, or failed to reconnect: said in one line either way
        pool.call("feed", "add", {"a": 1, "b": 2})
    pool.close()
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "sse_reader" not in out + err
    assert sdk_warnings_shown(caplog) == []
    assert any("Error in sse_reader" in line for line in _sdk_lines(conn)), conn.events.history
    assert not children() - marks.children_before


def test_a_session_that_cannot_be_ended_is_logged_for_its_server(pool, marks, capfd, caplog):
    # the server lives and refuses the DELETE: a killed one races the pool noticing the loss,
    # after which there is no session left to end
    server = HttpServer("http", "--refuse-delete")
    try:
        pool.connect("web", url=server.url, era="legacy", health_check_interval=0)
        conn = pool.connection("web")
        pool.disconnect("web")  # the SDK's DELETE of the session gets a 500
    finally:
        server.stop()
    out, err = capfd.readouterr()
    assert "Session termination failed" not in out + err
    assert sdk_warnings_shown(caplog) == []
    lines = _sdk_lines(conn)
    assert any("Session termination failed: 500" in line for line in lines), conn.events.history
    assert not children() - marks.children_before
