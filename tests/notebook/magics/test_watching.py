"""%mcp logs --log-level and %mcp subscribe/unsubscribe in a real IPython shell, against probe-kit."""

from __future__ import annotations

import threading
import time

import pytest
from IPython.core.error import UsageError

from mcpnb.notebook.magics.watching import LIVE

from .conftest import line


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_log_level_changes_what_the_server_sends(ip, mcp, era):
    line(ip, f"serve probe-kit --toolset conformance --era {era}")
    line(ip, "call probe.test_tool_with_logging")
    assert not [x for x in mcp.pool.logs("probe") if "log: debug" in x]  # info and above by default
    line(ip, "logs probe --log-level debug")
    line(ip, "call probe.test_tool_with_logging")
    shown = repr(line(ip, "logs probe -n 2"))
    assert "log: info: Tool execution completed" in shown and "log: debug: Debug detail" in shown
    line(ip, "logs probe --log-level error")
    before = len(mcp.pool.logs("probe"))
    line(ip, "call probe.test_tool_with_logging")
    assert not [x for x in mcp.pool.logs("probe")[before:] if " log: " in x]
    with pytest.raises(UsageError, match=r"unknown log level 'verbos'.*\(levels: debug, info"):
        line(ip, "logs probe --log-level verbos")


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_subscribe_prints_updates_then_unsubscribe_stops(ip, mcp, era, capsys):
    line(ip, f"serve probe-kit --era {era}")
    line(ip, "subscribe probe probe://status")
    watcher = LIVE[("probe", "probe://status")]
    arrived = threading.Event()
    shown = watcher.refresh

    def refresh(line: str | None = None) -> None:
        shown(line)
        if len(watcher.view.lines) >= 2:
            arrived.set()

    watcher.refresh = refresh  # type: ignore[method-assign]  # a marker to wait on, display unchanged
    handle = mcp.pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0})
    handle.result()
    assert arrived.wait(10), watcher.view.lines
    assert all(x.endswith("updated: probe://status") for x in watcher.view.lines)
    assert "watching probe://status" in repr(watcher.view)
    line(ip, "unsubscribe probe://status")  # one server connected: the name may be left out
    assert watcher.view.stopped and ("probe", "probe://status") not in LIVE
    assert mcp.pool.watched("probe") == []
    with pytest.raises(UsageError, match="not watching 'probe://status'"):
        line(ip, "unsubscribe probe probe://status")
    with pytest.raises(UsageError, match="no server named 'nope'"):
        line(ip, "subscribe nope probe://status")


def test_subscribing_again_replaces_the_earlier_watcher(ip, mcp, capsys):
    """A cell run twice must not print every update twice: the newest subscription follows it."""
    line(ip, "serve probe-kit")
    line(ip, "subscribe probe probe://status")
    first = LIVE[("probe", "probe://status")]
    line(ip, "subscribe probe probe://status")
    second = LIVE[("probe", "probe://status")]
    assert first is not second and first.view.stopped and not second.view.stopped
    assert mcp.pool.watched("probe") == ["probe://status"]  # still subscribed on the server
    mcp.pool.start_task("probe", "slow_task", {"steps": 1, "delay": 0}).result()
    for _ in range(200):
        if second.view.lines:
            break
        time.sleep(0.05)
    assert second.view.lines and first.view.lines == []
    line(ip, "unsubscribe probe probe://status")
    assert mcp.pool.watched("probe") == []


def test_a_uri_the_server_does_not_list_is_watched_with_a_warning(ip, mcp, capsys):
    """``probe://statu`` (a typo) was watched in silence, and never changed."""
    line(ip, "serve probe-kit")
    capsys.readouterr()
    line(ip, "subscribe probe probe://statu")
    said = capsys.readouterr().out
    assert "⚠ probe lists no resource probe://statu, so it may never change (watching it anyway)" in said
    assert "did you mean 'probe://status'?" in said and mcp.pool.watched("probe") == ["probe://statu"]
    for listed in ("probe://status", "probe://files/README.md"):  # a resource, a template's match
        line(ip, f"subscribe probe {listed}")
        assert "⚠" not in capsys.readouterr().out
    for uri in ("probe://statu", "probe://status", "probe://files/README.md"):
        line(ip, f"unsubscribe probe {uri}")


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_server_without_subscriptions_says_so_and_shows_no_watcher(ip, mcp, era, capsys):
    """mcp-server-time declares ``resources.subscribe: false``: the modern era's listen answered
    "Method not found" as a raw traceback, under a display that already said "watching"."""
    import sys

    from mcpnb.client.errors import CallError

    line(ip, f"connect time --era {era} -- {sys.executable} -m mcp_server_time")
    capsys.readouterr()
    with pytest.raises(CallError, match=r"^'time' does not offer resource subscriptions \(its capabilities"):
        line(ip, "subscribe time file:///x")
    assert "watching" not in capsys.readouterr().out and ("time", "file:///x") not in LIVE
    assert mcp.pool.watched("time") == []
    assert line(ip, "call time.get_current_time timezone=UTC").data["timezone"] == "UTC"  # unharmed


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_log_level_for_a_server_without_logging_says_it_sends_none(ip, mcp, era, capsys):
    """mcp-server-time declares no logging: legacy answered "Method not found (MCP error -32601)",
    modern said "log messages at debug and above from now on" for a server that sends none."""
    import sys

    from mcpnb.client.errors import CallError

    line(ip, f"connect time --era {era} -- {sys.executable} -m mcp_server_time")
    capsys.readouterr()
    with pytest.raises(
        CallError, match=r"^'time' does not offer logging \(its capabilities have no logging\)"
    ):
        line(ip, "logs time --log-level debug")
    assert "from now on" not in capsys.readouterr().out
    assert "state: connected" in repr(line(ip, "logs time"))  # the log itself is still there
