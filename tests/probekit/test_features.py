"""Logging levels, completions and resource subscriptions, in both protocol eras, with the SDK's client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.server.subscriptions import ResourceUpdated

from mcpnb.probekit import create_server, serve_http

pytestmark = pytest.mark.filterwarnings(  # the 2025-11-25 calls are deprecated in 2026-07-28: on purpose
    "ignore:resources/subscribe is removed:UserWarning", "ignore:The logging capability:UserWarning"
)

LOGGING_TOOL = "test_tool_with_logging"


class Inbox:
    """Log lines and server notifications a client received, with a way to wait for one."""

    def __init__(self) -> None:
        self.logs: list[tuple[str, Any]] = []
        self.updated: list[str] = []
        self._arrived = anyio.Event()

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append((params.level, params.data))

    async def on_message(self, message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.updated.append(str(message.params.uri))
            self._arrived.set()

    async def wait_updates(self, count: int) -> None:
        with anyio.fail_after(10):
            while len(self.updated) < count:
                self._arrived = anyio.Event()
                await self._arrived.wait()


# ---------------------------------------------------------------- logging
@pytest.mark.anyio
@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (None, ["info", "info", "info"]),  # no setLevel: info and above
        ("debug", ["info", "info", "info", "debug"]),
        ("info", ["info", "info", "info"]),
        ("warning", []),
    ],
)
async def test_set_level_filters_log_notifications_legacy(
    project: Path, level: str | None, expected: list
) -> None:
    inbox = Inbox()
    server = create_server("conformance", root=project)
    async with Client(server, mode="legacy", logging_callback=inbox.on_log) as client:
        assert client.server_capabilities.logging is not None
        if level is not None:
            assert await client.set_logging_level(level) == types.EmptyResult()
        result = await client.call_tool(LOGGING_TOOL, {})
    assert [lvl for lvl, _ in inbox.logs] == expected
    assert f"({len(expected)} log notifications sent)" in result.content[0].text
    if expected:
        assert inbox.logs[0] == ("info", "Tool execution started")


@pytest.mark.anyio
async def test_levels_are_per_client(project: Path) -> None:
    server = create_server("conformance", root=project)
    chatty, quiet = Inbox(), Inbox()
    async with (
        Client(server, mode="legacy", logging_callback=chatty.on_log) as one,
        Client(server, mode="legacy", logging_callback=quiet.on_log) as two,
    ):
        await one.set_logging_level("debug")
        await two.set_logging_level("error")
        await one.call_tool(LOGGING_TOOL, {})
        await two.call_tool(LOGGING_TOOL, {})
    assert len(chatty.logs) == 4 and quiet.logs == []


@pytest.mark.anyio
@pytest.mark.parametrize(("opt_in", "count"), [(None, 0), ("info", 3), ("debug", 4), ("error", 0)])
async def test_modern_logs_follow_the_per_request_opt_in(
    project: Path, opt_in: str | None, count: int
) -> None:
    inbox = Inbox()
    server = create_server("conformance", root=project)
    async with Client(server, logging_callback=inbox.on_log, log_level=opt_in) as client:
        assert client.protocol_version == "2026-07-28"
        await client.call_tool(LOGGING_TOOL, {})
    assert len(inbox.logs) == count


# ---------------------------------------------------------------- completions
def prompt(name: str) -> types.PromptReference:
    return types.PromptReference(type="ref/prompt", name=name)


def template(uri: str) -> types.ResourceTemplateReference:
    return types.ResourceTemplateReference(type="ref/resource", uri=uri)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_completions(project: Path, mode: str) -> None:
    server = create_server(root=project)
    async with Client(server, mode=mode) as client:
        assert client.server_capabilities.completions is not None

        async def values(ref: Any, name: str, value: str) -> list[str]:
            return (await client.complete(ref, {"name": name, "value": value})).completion.values

        assert sorted(await values(prompt("explain_tool"), "tool_name", "gen")) == [
            "gen_mock", "genapi", "genchangelog", "gencommit", "genpr", "gentest", "genui",
        ]  # fmt: skip
        assert await values(prompt("tour_toolset"), "toolset", "c") == ["core", "conformance"]
        assert await values(template("probe://toolsets/{name}"), "name", "w") == ["workflow"]
        assert await values(template("probe://catalog/{category}"), "category", "") == [
            "action", "data", "feedback", "form", "layout", "navigation", "overlay",
        ]  # fmt: skip
        assert await values(template("probe://catalog/{category}"), "category", "f") == ["feedback", "form"]
        top = await values(template("probe://files/{+path}"), "path", "")
        assert "app/" in top and "README.md" in top and "node_modules/" not in top
        assert "escape.txt" not in top and "escape_dir/" not in top  # symlinks that leave the root
        assert await values(template("probe://files/{+path}"), "path", "app/b") == ["app/billing.py"]
        assert await values(prompt("review_code"), "path", "te") == ["tests/"]
        assert await values(template("probe://files/{+path}"), "path", "../") == []
        assert await values(prompt("test_prompt_with_arguments"), "arg1", "x") == []  # the spec allows empty
        read = await client.read_resource("probe://files/app/billing.py")
        assert "def invoice_total" in read.contents[0].text
        catalog = json.loads((await client.read_resource("probe://catalog/form")).contents[0].text)
        assert catalog["category"] == "form" and catalog["components"]


# ---------------------------------------------------------------- subscriptions
@pytest.mark.anyio
async def test_subscribe_updated_unsubscribe_as_tasks_start_and_end(project: Path) -> None:
    """probe://status changes when a task starts and ends: a 2025-11-25 subscriber gets
    notifications/resources/updated, a 2026-07-28 listener gets the same event, both eras at once."""
    server = create_server(root=project)
    legacy_inbox = Inbox()
    async with (
        Client(server, mode="legacy", message_handler=legacy_inbox.on_message) as legacy,
        Client(server) as modern,
    ):
        assert legacy.server_capabilities.resources.subscribe is True
        await legacy.subscribe_resource("probe://status")
        async with modern.listen(resource_subscriptions=["probe://status"]) as listening:
            raw = legacy.session._dispatcher.send_raw_request
            started = await raw(
                "tools/call", {"name": "slow_task", "arguments": {"steps": 1, "delay": 0}, "task": {}}, {}
            )
            await raw("tasks/result", {"taskId": started["task"]["taskId"]}, {})
            await legacy_inbox.wait_updates(2)  # working, then completed
            with anyio.fail_after(10):  # the bus may coalesce the two into one event: wait for one
                heard = await listening.__anext__()
        assert set(legacy_inbox.updated) == {"probe://status"}
        assert isinstance(heard, ResourceUpdated) and heard.uri == "probe://status"
        status = json.loads((await legacy.read_resource("probe://status")).contents[0].text)
        assert status["tasks"]["completed"] == 1

        await legacy.unsubscribe_resource("probe://status")
        before = len(legacy_inbox.updated)
        again = await raw(
            "tools/call", {"name": "slow_task", "arguments": {"steps": 1, "delay": 0}, "task": {}}, {}
        )
        await raw("tasks/result", {"taskId": again["task"]["taskId"]}, {})
        await legacy.read_resource("probe://status")  # a round trip after the task ended
        assert len(legacy_inbox.updated) == before  # unsubscribed: nothing more arrives


@pytest.mark.anyio
async def test_subscription_updates_over_http(project: Path) -> None:
    """Over Streamable HTTP the update rides the client's standalone GET stream."""
    handle = await serve_http(create_server(root=project))
    inbox = Inbox()
    try:
        async with Client(handle.url, mode="legacy", message_handler=inbox.on_message) as client:
            await client.subscribe_resource("probe://status")
            await client.subscribe_resource("test://watched-resource")
            await client.unsubscribe_resource("test://watched-resource")
            await client.unsubscribe_resource("test://never-subscribed")  # nothing to undo: no error
            raw = client.session._dispatcher.send_raw_request
            started = await raw(
                "tools/call", {"name": "slow_task", "arguments": {"steps": 1}, "task": {}}, {}
            )
            await raw("tasks/result", {"taskId": started["task"]["taskId"]}, {})
            await inbox.wait_updates(2)
    finally:
        await handle.stop()
    assert set(inbox.updated) == {"probe://status"}
