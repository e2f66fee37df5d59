"""probe-kit started from a cell: in-process or over HTTP on 127.0.0.1, stopped with the pool."""

from __future__ import annotations

import socket
import threading

import pytest

from mcpnb import UnknownServerError, serve_probekit, stop_probekit


def _accepts(url: str) -> bool:
    port = int(url.split(":")[2].split("/")[0])
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_in_process_and_http(pool):
    assert serve_probekit("probe", pool=pool).transport == "inprocess"
    row = serve_probekit("web", http=True, toolset="core", pool=pool)
    assert row.transport == "http" and row.state == "connected"
    url = pool.connection("web").config.url
    assert url.startswith("http://127.0.0.1:") and _accepts(url)
    assert len(pool.tools("web")) < len(pool.tools("probe"))  # the core toolset is smaller
    stop_probekit("web", pool=pool)
    assert "web" not in pool and not _accepts(url)
    with pytest.raises(UnknownServerError, match="did you mean 'probe'"):
        stop_probekit("prob", pool=pool)


def test_closing_the_pool_stops_its_http_servers(pool):
    serve_probekit("web", http=True, pool=pool)
    url = pool.connection("web").config.url
    pool.close()
    assert not _accepts(url)


def test_stopping_does_not_wait_for_another_clients_open_stream(pool, capfd):
    """Another notebook still connected holds a listening stream that never ends by itself: the stop
    closes it after a short grace instead of waiting for it (uvicorn's default waited a minute), and
    says nothing about it in the cell."""
    from mcpnb import Pool

    serve_probekit("web", http=True, pool=pool)
    url = pool.connection("web").config.url
    other = Pool()
    try:
        other.connect("other", url=url, era="legacy")  # its GET stream stays open on the server
        stopped = threading.Event()

        def stop() -> None:
            stop_probekit("web", pool=pool)
            stopped.set()

        threading.Thread(target=stop, daemon=True).start()
        assert stopped.wait(30), "the stop waited for the other client's stream to end"
        assert not _accepts(url)
    finally:
        other.close()
    err = capfd.readouterr().err
    assert "graceful shutdown" not in err and "Traceback" not in err, err


def test_serving_again_replaces_the_server(pool):
    serve_probekit("web", http=True, pool=pool)
    first = pool.connection("web").config.url
    serve_probekit("web", http=True, pool=pool)
    assert not _accepts(first) and _accepts(pool.connection("web").config.url)


def test_root_task_ttl_and_poll_interval(pool, tmp_path):
    import json

    (tmp_path / "notes.md").write_text("# notes\n")
    serve_probekit("probe", pool=pool, root=tmp_path, task_ttl_ms=1234, poll_interval_ms=77, era="legacy")
    status = json.loads(pool.read("probe", "probe://status").contents[0].text)
    assert status["root"] == str(tmp_path.resolve())
    assert "# notes" in pool.read("probe", "probe://files/notes.md").contents[0].text
    task = pool.connection("probe").client.session._dispatcher.send_raw_request
    started = pool.runtime.run(
        task("tools/call", {"name": "slow_task", "arguments": {"steps": 1, "delay": 0}, "task": {}}, {})
    )
    assert started["task"]["ttl"] == 1234 and started["task"]["pollInterval"] == 77
    with pytest.raises(ValueError, match="is not a folder"):
        serve_probekit("probe", pool=pool, root=tmp_path / "missing")
    assert "probe" in pool  # a bad root fails before the running server is stopped


def test_serve_magic_takes_root_ttl_and_poll(pool, tmp_path):
    from IPython.core.error import UsageError
    from IPython.core.interactiveshell import InteractiveShell

    from mcpnb.notebook.magics import get_magics

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "mcpnb")
    magics = get_magics(ip)
    magics.pool = pool
    try:
        ip.run_line_magic("mcp", f"serve probe-kit --root {tmp_path} --task-ttl 500 --poll-interval 20")
        manager = pool.connection("probe").config.server.probe_state.tasks
        assert (manager.default_ttl_ms, manager.poll_interval_ms) == (500, 20)
        with pytest.raises(UsageError, match="is not a folder"):
            ip.run_line_magic("mcp", f"serve probe-kit --root {tmp_path / 'nope'}")
        with pytest.raises(UsageError, match="must be 0 or more"):
            ip.run_line_magic("mcp", "serve probe-kit --task-ttl -1")
    finally:
        magics.pool = None
