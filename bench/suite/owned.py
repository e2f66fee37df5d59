"""A raw ``mcp.Client`` kept open on a loop the bench drives with ``run_until_complete``.

A ``Client`` must be exited in the task that entered it, so an owner task holds it open while
measuring coroutines (other tasks on the same loop) call through it: the SDK's own recommended
pattern, and the best case for the raw client (no thread hop at all).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import Callable
from typing import Any


class OwnedClient:
    def __init__(self, loop: asyncio.AbstractEventLoop, make: Callable[[], Any]) -> None:
        self.loop = loop
        self._make = make
        self.client: Any = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None

    async def _own(self) -> None:
        try:
            async with self._make() as client:
                self.client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # reported by start()
            self._error = exc
        finally:
            self._ready.set()

    def start(self, timeout: float = 60.0) -> Any:
        self._task = self.loop.create_task(self._own())
        self.loop.run_until_complete(asyncio.wait_for(self._ready.wait(), timeout))
        if self._error is not None or self.client is None:
            raise RuntimeError(f"raw client could not connect: {self._error!r}")
        return self.client

    def close(self, timeout: float = 30.0) -> None:
        if self._task is None:
            return
        self._stop.set()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            self.loop.run_until_complete(asyncio.wait_for(self._task, timeout))
        self._task = None


class RuntimeClient:
    """A raw ``mcp.Client`` held open on mcpnb's runtime loop, called through ``runtime.run``.

    The floor of any synchronous MCP API in a kernel: the kernel's own loop is already running, so
    the session must live on another thread and every call crosses to it and back. The pool's
    ratio to this client is what the pool itself adds; its ratio to the raw client includes the hop.
    """

    def __init__(self, runtime: Any, make: Callable[[], Any]) -> None:
        self.runtime = runtime
        self._make = make
        self.client: Any = None
        self._stop: asyncio.Event | None = None
        self._owner: Any = None  # the owner task's hand-over

    def start(self, timeout: float = 60.0) -> Any:
        ready: concurrent.futures.Future[Any] = concurrent.futures.Future()

        async def own() -> None:
            self._stop = asyncio.Event()
            try:
                async with self._make() as client:
                    ready.set_result(client)
                    await self._stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                raise

        self._owner = self.runtime.hand_over(own())
        self.client = ready.result(timeout)
        return self.client

    def close(self, timeout: float = 30.0) -> None:
        if self._owner is None:
            return
        if self._stop is not None:
            self.runtime.loop.call_soon_threadsafe(self._stop.set)
        with contextlib.suppress(BaseException):
            self.runtime.settle(self._owner, timeout)
        self._owner = None
