"""probe-kit started from a cell: in-process or over HTTP on 127.0.0.1, stopped with the pool."""

from __future__ import annotations

import socket
import threading

import pytest

from mcpnb import Pool, UnknownServerError, serve_probekit, stop_probekit


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


def test_serving_again_with_the_same_settings_keeps_its_task_running(pool, capsys):
    """A serve cell run again (or Run All) restarted probe-kit: the task in flight was lost with it."""
    serve_probekit("probe", pool=pool, toolset="tasks")
    first = pool.status()["probe"]
    job = pool.start_task("probe", "slow_task", {"steps": 20, "delay": 0.05})
    row = serve_probekit("probe", pool=pool, toolset="tasks")
    result = job.result(timeout=60)  # it was "server 'probe' is disconnected"
    assert not result.is_error and result.data["totalPrimes"] > 0  # the task ran to its end
    said = capsys.readouterr().out
    assert said == "probe is already serving (in-process, toolset tasks); restart=True starts it afresh\n"
    assert (row.state, row.since, row.tools) == ("connected", first.since, first.tools)  # the same row


def test_serving_again_over_http_keeps_the_url_another_client_uses(pool, capsys):
    """Another kernel, an Inspector or a ``%mcp connect x --url`` cell holds the URL: a serve run again
    moved the server to a new port and left them talking to nothing."""
    from mcpnb import Pool

    serve_probekit("web", http=True, pool=pool)
    url = pool.connection("web").config.url
    other = Pool()
    try:
        other.connect("other", url=url)
        serve_probekit("web", http=True, pool=pool)
        assert pool.connection("web").config.url == url and _accepts(url)
        assert "web is already serving (http://127.0.0.1:" in capsys.readouterr().out
        assert other.call("other", "estimate", {"task": "x"}).data["task"] == "x"
        port = int(url.split(":")[2].split("/")[0])
        serve_probekit("web", http=True, port=port, pool=pool)  # the port it has: the same settings
        assert pool.connection("web").config.url == url
        assert other.call("other", "estimate", {"task": "y"}).data["task"] == "y"
    finally:
        other.close()


def test_other_settings_restart_it_and_say_what_changed(pool, capsys, tmp_path):
    serve_probekit("probe", pool=pool, toolset="core")
    core = len(pool.tools("probe"))
    serve_probekit("probe", pool=pool)  # no toolset: the full one
    assert capsys.readouterr().out == "restarted probe: toolset core → full\n"
    assert len(pool.tools("probe")) > core
    serve_probekit("probe", pool=pool, toolset="full", root=tmp_path, task_ttl_ms=500, era="legacy")
    said = capsys.readouterr().out
    assert said.startswith("restarted probe: root ") and f"→ {tmp_path.resolve()}" in said
    assert "task ttl 300000 ms → 500 ms" in said and "era auto → legacy" in said
    assert pool.status()["probe"].era == "legacy"

    serve_probekit("web", http=True, pool=pool)
    first = pool.connection("web").config.url
    serve_probekit("web", http=True, toolset="ui", pool=pool)
    now = pool.connection("web").config.url
    said = capsys.readouterr().out
    assert said == "restarted web: toolset full → ui\n"  # on its port: its URL still answers
    assert now == first and _accepts(now)
    serve_probekit("web", toolset="ui", pool=pool)
    assert capsys.readouterr().out == "restarted web: transport HTTP → in-process\n"
    assert pool.status()["web"].transport == "inprocess" and not _accepts(now)


def test_a_changed_header_or_auth_is_named_never_shown(pool, capsys):
    """The change line went to the cell's output, saved with the notebook: a header's token was in
    it ("headers {'Authorization': 'Bearer sk-FIRST'} → {…'Bearer sk-SECOND'}")."""
    serve_probekit("web", http=True, pool=pool, headers={"Authorization": "Bearer sk-FIRST-0001"})
    serve_probekit(
        "web", http=True, pool=pool, headers={"Authorization": "Bearer sk-SECOND-0002"}, tool_timeout=90
    )
    said = capsys.readouterr().out
    assert said.startswith("restarted web: ") and "headers changed" in said, said
    assert "tool_timeout unset → 90" in said  # a number is said as it is
    assert "sk-FIRST" not in said and "sk-SECOND" not in said and "Bearer" not in said


def test_restart_always_starts_afresh(pool, capsys):
    serve_probekit("web", http=True, pool=pool)
    first = pool.connection("web").config.url
    other = Pool()  # another client of its URL: a second notebook, an inspector
    try:
        other.connect("web", url=first)
        serve_probekit("web", http=True, pool=pool, restart=True)  # what every serve did
        assert pool.connection("web").config.url == first  # on its port, as long as it is free
        assert capsys.readouterr().out == "restarted web afresh, as asked\n"
        assert other.call("web", "estimate", {"task": "x"}).data["task"] == "x"  # it still reaches it
    finally:
        other.close()
    serve_probekit("probe", pool=pool, toolset="tasks")
    job = pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0})
    job.result(timeout=30)
    serve_probekit("probe", pool=pool, toolset="tasks", restart=True)
    assert capsys.readouterr().out == "restarted probe afresh, as asked\n"
    assert pool.tasks("probe") == []  # the new server knows none of the old one's tasks


def test_a_server_that_is_not_well_is_started_afresh(pool, capsys):
    from mcpnb.notebook.launch import _service

    serve_probekit("web", http=True, pool=pool)
    pool.stop_service(_service("web"))  # its HTTP server stops (as a crash of it would)
    row = serve_probekit("web", http=True, pool=pool)
    said = capsys.readouterr().out
    assert said.startswith("web had stopped (its HTTP server was no longer running): started afresh")
    assert row.state == "connected" and _accepts(pool.connection("web").config.url)

    serve_probekit("probe", pool=pool)
    pool.runtime.run(pool.connection("probe").stop())  # its session closed, the name still in the pool
    assert serve_probekit("probe", pool=pool).state == "connected"
    assert capsys.readouterr().out == "probe was disconnected: started afresh\n"


def test_a_name_connected_to_another_server_since_is_replaced_and_said(pool, capsys):
    """``%mcp connect probe URL`` after a serve: the name is no probe-kit of ours any more, and a
    serve replaces it as it always did (no "already serving"), saying which server it dropped: it
    was replaced without a word, a ``%%mcp require`` server of that name too."""
    serve_probekit("probe", pool=pool)
    serve_probekit("web", http=True, pool=pool)
    url = pool.connection("web").config.url
    pool.connect("probe", url=url)  # probe names web's server now
    capsys.readouterr()
    serve_probekit("probe", pool=pool)
    said = capsys.readouterr().out
    assert said == (
        f"probe was connected to {url}: disconnected, and probe-kit serves as probe now "
        "(another name keeps both)\n"
    )
    assert pool.status()["probe"].transport == "inprocess"
    assert pool.tools("web", refresh=True)  # only the name moved: web's server still serves
    serve_probekit("probe", pool=pool)  # its own again: the usual line, no replacement
    assert "is already serving" in capsys.readouterr().out


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


def test_a_restart_whose_old_port_was_taken_meanwhile_moves_and_says_so(pool, capsys):
    """Its HTTP server had stopped, and another program took the port: a free one, said."""
    serve_probekit("web", http=True, pool=pool)
    first = pool.connection("web").config.url
    port = int(first.split(":")[2].split("/")[0])
    assert pool.stop_service("probe-kit:web")
    with socket.socket() as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past its closed connections
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
        serve_probekit("web", http=True, pool=pool)
        now = pool.connection("web").config.url
        said = capsys.readouterr().out
        assert now != first and _accepts(now)
        assert said.startswith("web had stopped (its HTTP server was no longer running): started afresh")
        assert said.endswith(f"(now at {now}; the old address is gone)\n"), said
