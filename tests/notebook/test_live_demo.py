"""A presenter's live demo: a serve on a fixed port tried where another server listens, a disconnect
and reconnect of an HTTP probe-kit, ``%reload_ext`` mid-demo. What they do must not cost the server
that works, send a reconnect to an address mcpnb itself closed, or pile up the extension's objects."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import pytest
from conftest import free_port

from mcpnb import ConnectError, serve_probekit, stop_probekit
from tests.frontend import Frontend


@contextlib.contextmanager
def _port_taken() -> Iterator[int]:
    """A port another program (here: a bare socket) listens on: a second kernel's probe-kit, say."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def _search(pool, name: str = "probe") -> str:
    return pool.call(name, "ui_search", {"query": "login", "limit": 1}).data["results"][0]["id"]


@pytest.mark.parametrize("http", [False, True], ids=["in-process", "http"])
def test_a_serve_on_a_taken_port_leaves_the_probe_kit_that_serves(pool, capsys, http):
    """``%mcp serve --http --port P`` where P is taken: the probe-kit already serving as probe (the
    one the demo runs on) goes on serving; it was disconnected, and its HTTP server stopped, first."""
    serve_probekit("probe", http=http, pool=pool)
    url = pool.connection("probe").config.url
    with _port_taken() as port, pytest.raises(ConnectError, match="another server is listening there"):
        serve_probekit("probe", http=True, port=port, pool=pool)
    assert pool.status()["probe"].state == "connected"
    assert pool.connection("probe").config.url == url
    assert _search(pool) == "login-form"
    serve_probekit("probe", http=http, pool=pool)  # still ours: the same settings keep it
    assert "already serving" in capsys.readouterr().out


def test_a_port_held_by_a_probe_kit_of_this_pool_names_it(pool):
    serve_probekit("kit", http=True, pool=pool)
    port = int(pool.connection("kit").config.url.split(":")[2].split("/")[0])
    with pytest.raises(ConnectError, match="the probe-kit served here as 'kit' is listening there"):
        serve_probekit("probe", http=True, port=port, pool=pool)
    assert _search(pool, "kit") == "login-form"


def test_restarting_on_its_own_fixed_port_still_works(pool, capsys):
    port = free_port()
    serve_probekit("probe", http=True, port=port, pool=pool)
    serve_probekit("probe", http=True, port=port, pool=pool, toolset="ui")
    assert capsys.readouterr().out.startswith("restarted probe: toolset full → ui")
    assert pool.connection("probe").config.url == f"http://127.0.0.1:{port}/mcp"
    assert _search(pool) == "login-form"


def test_a_reconnect_serves_the_http_probe_kit_its_disconnect_stopped(pool, capsys):
    """``%mcp disconnect probe`` stops the HTTP probe-kit mcpnb started; the advice it leaves
    (``%mcp reconnect probe`` "connects it again as it was") must work, on the same URL, with the
    same probe-kit (its state kept), and a serve after it keeps it (it is ours again)."""
    from mcpnb.notebook import launch
    from mcpnb.notebook.launch import serve_again

    serve_probekit("probe", http=True, pool=pool)
    url = pool.connection("probe").config.url
    server = launch._SERVED[pool]["probe"].server
    pool.disconnect("probe")
    stop_probekit("probe", pool=pool, missing_ok=True)  # what %mcp disconnect does after it
    said = serve_again("probe", pool=pool)
    assert said == f"probe: probe-kit listens again at {url} (its HTTP server stopped with the disconnect)"
    assert pool.reconnect("probe").state == "connected"
    assert pool.connection("probe").config.url == url
    assert launch._SERVED[pool]["probe"].server is server  # the same probe-kit: its state kept
    assert _search(pool) == "login-form"
    capsys.readouterr()
    serve_probekit("probe", http=True, pool=pool)
    assert "already serving" in capsys.readouterr().out
    assert serve_again("probe", pool=pool) is None  # connected: nothing to bring back


def test_no_probe_kit_is_brought_back_for_a_name_connected_elsewhere_since(pool):
    from mcpnb.notebook.launch import serve_again

    serve_probekit("probe", http=True, pool=pool)
    serve_probekit("web", http=True, pool=pool)
    stop_probekit("probe", pool=pool)
    pool.connect("probe", url=pool.connection("web").config.url)
    pool.disconnect("probe")
    stop_probekit("probe", pool=pool, missing_ok=True)
    assert serve_again("probe", pool=pool) is None


def test_an_http_probe_kit_disconnected_or_stopped_comes_back_in_a_kernel(kernel):
    """The presenter's cells in a real kernel: an HTTP probe-kit on a fixed port, disconnected and
    reconnected, stopped and reconnected, each said in one line and answering after."""
    fe = Frontend(kernel)
    port = free_port()
    fe.run_ok("%load_ext mcpnb")
    fe.run_ok(f"%mcp serve --http --port {port}")
    fe.run_ok("%mcp disconnect probe")
    again = fe.run_ok("%mcp reconnect probe")
    assert fe.stdout[again] == (
        f"probe: probe-kit listens again at http://127.0.0.1:{port}/mcp "
        "(its HTTP server stopped with the disconnect)\n"
    )
    assert "connected" in fe.results[again]["text/plain"]
    fe.run_ok("%mcp serve --stop")
    fe.run_ok("%mcp reconnect probe")
    call = fe.run_ok("%mcp call probe.ui_search query=login limit=1")
    assert "login-form" in fe.results[call]["text/plain"]
    fe.run_ok("%mcp disconnect --all")


def test_reload_ext_mid_demo_keeps_one_set_of_magics(kernel):
    """``%reload_ext mcpnb`` twice: the connection and the magics go on, once; the shell keeps one
    ``McpMagics`` (each reload left the old one among its configurables, holding its pool)."""
    fe = Frontend(kernel)
    fe.run_ok("%load_ext mcpnb")
    fe.run_ok("%mcp serve")
    fe.run_ok("%reload_ext mcpnb")
    fe.run_ok("%reload_ext mcpnb")
    call = fe.run_ok("%mcp call probe.ui_search query=login limit=1")
    assert fe.results[call]["text/plain"].count("login-form") == 1
    count = fe.run_ok(
        "import mcpnb.notebook.magics as m\n"
        "print(sum(isinstance(c, m.McpMagics) for c in get_ipython().configurables))"
    )
    assert fe.stdout[count] == "1\n"
    handlers = fe.run_ok("import logging\nprint(len(logging.getLogger('mcpnb').handlers))")
    assert fe.stdout[handlers] == "1\n"  # its NullHandler, once (each reload added one more)
    fe.run_ok("%unload_ext mcpnb")
    after = fe.run_ok("print(sum(isinstance(c, m.McpMagics) for c in get_ipython().configurables))")
    assert fe.stdout[after] == "0\n"  # unloaded: none left
