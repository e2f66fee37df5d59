"""Fixtures for the tasks tests: probe-kit in-process and over stdio, in both eras; server-everything.

Until ``Connection`` passes extensions and an elicitation callback to its ``Client``, most tests
build ``mcp.Client`` themselves with :func:`tasks_extension` and a scripted elicitation callback.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters, types

from mcpnb.client.tasks import TaskHandle, TaskRegistry, tasks_extension
from mcpnb.probekit import create_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# tasks test project\n")
    return tmp_path


@pytest.fixture
def tasks() -> TaskRegistry:
    """A registry per test, so listings never see another test's handles."""
    return TaskRegistry()


class Answers:
    """A Client elicitation callback with a scripted answer; records every question it got."""

    def __init__(self, action: str = "accept", content: dict[str, Any] | None = None) -> None:
        self.action, self.content = action, content
        self.seen: list[Any] = []

    async def __call__(self, ctx: Any, params: Any) -> types.ElicitResult:
        self.seen.append(params)
        if self.action != "accept":
            return types.ElicitResult(action=self.action)
        content = self.content if self.content is not None else first_choices(params.requested_schema)
        return types.ElicitResult(action="accept", content=content)


def first_choices(schema: dict[str, Any]) -> dict[str, Any]:
    """A valid answer for a flat form: first enum/oneOf value, True, 1 or a string."""
    out: dict[str, Any] = {}
    for key, prop in schema.get("properties", {}).items():
        if "enum" in prop:
            out[key] = prop["enum"][0]
        elif "oneOf" in prop:
            out[key] = prop["oneOf"][0]["const"]
        elif prop.get("type") == "boolean":
            out[key] = True
        elif prop.get("type") in {"integer", "number"}:
            out[key] = 1
        else:
            out[key] = f"answer-{key}"
    return out


def probe_target(transport: str, root: Path, **server_options: Any) -> Any:
    if transport == "memory":
        return create_server(root=root, poll_interval_ms=10, **server_options)
    flags = [f"--{key.replace('_', '-')}={value}" for key, value in server_options.items()]
    return StdioServerParameters(
        command=sys.executable, args=["-m", "mcpnb.probekit", "--root", str(root), *flags]
    )


@asynccontextmanager
async def probe_client(
    transport: str,
    era: str,
    root: Path,
    *,
    elicitation: Any = None,
    answer: Any = None,
    **server_options: Any,
) -> AsyncIterator[Client]:
    """A Client on probe-kit speaking ``era``; modern clients carry the tasks extension."""
    target = probe_target(transport, root, **server_options)
    kwargs: dict[str, Any] = {"elicitation_callback": elicitation} if elicitation is not None else {}
    if era == "legacy":
        client = Client(target, mode="legacy", **kwargs)
    else:
        client = Client(target, extensions=[tasks_extension(answer)], **kwargs)
    client.probe_server = target  # type: ignore[attr-defined]  # tests peek at the in-process server
    async with client:
        assert client.protocol_version == ("2025-11-25" if era == "legacy" else "2026-07-28")
        yield client


async def until(predicate: Callable[[], bool], ticks: int = 1000, step: float = 0.01) -> None:
    """Let time pass until ``predicate()`` holds (bounded by ticks, never asserting a duration)."""
    for _ in range(ticks):
        if predicate():
            return
        await anyio.sleep(step)
    raise AssertionError("condition never held")


async def refresh_until(handle: TaskHandle, statuses: set[str], ticks: int = 1000) -> str:
    for _ in range(ticks):
        if await handle.arefresh() in statuses:
            return handle.status
        await anyio.sleep(0.01)
    raise AssertionError(f"task never reached {statuses}; last {handle.status}")


def seen_statuses(handle: TaskHandle) -> list[str]:
    """Every status the handle reports to its listeners, in order (duplicates collapsed)."""
    seen = [handle.status]

    def record(h: TaskHandle) -> None:
        if seen[-1] != h.status:
            seen.append(h.status)

    handle.add_listener(record)
    return seen


#: The hand-written task server of malformed answers (both eras: its one argument).
ODD_TASKS = str(Path(__file__).resolve().parents[2] / "servers" / "odd_task_server.py")


def odd_client(era: str) -> Client:
    """A bare ``mcp.Client`` (not a pool) of the hand-written task server, in ``era``: tasks as the
    SDK's session carries them, with the tasks extension asked for on 2026-07-28."""
    params = StdioServerParameters(command=sys.executable, args=[ODD_TASKS, era])
    kwargs: dict[str, Any] = {"mode": "legacy"} if era == "legacy" else {"extensions": [tasks_extension()]}
    return Client(params, **kwargs)


@pytest.fixture(params=["legacy", "modern"])
def odd(request: Any, pool: Any) -> tuple[Any, str]:
    """A pool connected to the hand-written task server as ``odd``, in the era the test is run for."""
    pool.connect("odd", command=sys.executable, args=[ODD_TASKS, request.param], tool_timeout=10)
    assert pool.status()["odd"].era == request.param
    return pool, request.param
