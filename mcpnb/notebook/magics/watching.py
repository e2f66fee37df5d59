"""``%mcp subscribe`` / ``%mcp unsubscribe``: watch a resource; its updates print under the cell
that subscribed, however many cells later they arrive.

The pool calls a watcher on its runtime thread, and the watcher updates the one display the
subscribing cell made (an ``update_display_data`` by display id: the frontend changes that output,
wherever it is). The update is sent from an empty context, so ipykernel stamps it with the cell
running *now*: nbclient only reads messages of the cell it is executing, and without this the
update would carry the parent of the cell that connected the server and be dropped. A terminal
changes nothing in place: there each update prints as one line of its own.
"""

from __future__ import annotations

import argparse
import contextvars
import threading
from datetime import datetime
from typing import Any

from IPython.core.error import UsageError

from mcpnb.notebook.frontend import current_kernel
from mcpnb.notebook.magics.parser import Parser
from mcpnb.notebook.magics.registry import Context, arguments, command, known_server

#: Lines kept in one subscription's display (the oldest scroll away).
KEEP = 50


class UpdateLog:
    """The display a subscription writes its updates into."""

    def __init__(self, server: str, uri: str) -> None:
        self.server, self.uri = server, uri
        self.lines: list[str] = []
        self.stopped = False
        self._lock = threading.Lock()

    def add(self, line: str) -> None:
        with self._lock:
            self.lines = [*self.lines, line][-KEEP:]

    def __repr__(self) -> str:
        head = f"{self.server}: {'was watching' if self.stopped else 'watching'} {self.uri}"
        body = self.lines or ["(no update yet; they appear here as they come)"]
        return "\n".join([head, *("  " + line for line in body)])

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from html import escape

        return {"text/plain": repr(self), "text/html": f"<pre>{escape(repr(self))}</pre>"}


class Subscription:
    """One ``%mcp subscribe``: the watcher, its display handle, and how to stop it."""

    def __init__(self, view: UpdateLog, handle: Any) -> None:
        self.view, self.handle = view, handle
        self.stop: Any = None

    def __call__(self, uri: str) -> None:  # runs on the pool's runtime thread
        line = f"{datetime.now():%H:%M:%S} updated: {uri}"
        self.view.add(line)
        self.refresh(line)

    def refresh(self, line: str | None = None) -> None:
        if self.handle is not None:  # a kernel: the subscribing cell's output changes in place
            contextvars.Context().run(self.handle.update, self.view)
        elif line is not None:  # a terminal keeps what it printed: print only what is new
            print(f"{self.view.server}: {line}", flush=True)

    def ended(self) -> None:
        """Its display says it no longer watches (the pool has stopped calling it)."""
        self.view.stopped = True
        self.refresh()


#: The live subscription of each (server, uri), so ``%mcp unsubscribe`` can mark its display stopped.
LIVE: dict[tuple[str, str], Subscription] = {}


def _target(ctx: Context, words: list[str]) -> tuple[str, str]:
    if len(words) == 2:
        return known_server(ctx, words[0]), words[1]
    if len(words) == 1:
        names = ctx.pool.names
        if len(names) != 1:
            raise UsageError(f"which server? give NAME URI ({len(names)} servers are connected)")
        return names[0], words[0]
    raise UsageError("expected [NAME] URI")


def _args(p: Parser) -> None:
    p.add_argument("words", nargs="+", metavar="[NAME] URI", help="the server (optional with one) and URI")


@command(
    "subscribe",
    "Watch a resource: each update the server announces prints under this cell.",
    store=False,
    epilog="example:\n  %mcp subscribe probe probe://status",
)
@arguments(_args)
def subscribe(ctx: Context, ns: argparse.Namespace) -> Any:
    from IPython.display import DisplayHandle, display

    server, uri = _target(ctx, ns.words)
    unlisted = _unlisted(ctx, server, uri)
    view = UpdateLog(server, uri)
    handle = DisplayHandle() if current_kernel() is not None else None
    watcher = Subscription(view, handle)
    watcher.stop = ctx.pool.watch(server, uri, watcher)  # shown once it watches: a refusal shows nothing
    if handle is not None:
        handle.display(view)
    else:
        display(view)
    earlier = LIVE.get((server, uri))
    if earlier is not None:  # a cell run again: one display follows, not two
        earlier.stop()
        earlier.ended()
    LIVE[(server, uri)] = watcher
    if unlisted:
        print(unlisted)
    return None


def _unlisted(ctx: Context, server: str, uri: str) -> str | None:
    """A warning for a URI the server lists neither as a resource nor as a template's match: a
    typo (``probe://statu``) would be watched, and never change. Not a refusal: a server may
    announce updates of resources it does not list."""
    close = ctx.pool.unlisted_resource(server, uri)
    if close is None:
        return None
    hint = f"; did you mean {close!r}?" if close else ""
    return f"⚠ {server} lists no resource {uri}, so it may never change (watching it anyway){hint}"


@command("unsubscribe", "Stop watching a resource (every %mcp subscribe of it).", store=False)
@arguments(_args)
def unsubscribe(ctx: Context, ns: argparse.Namespace) -> Any:
    server, uri = _target(ctx, ns.words)
    if not ctx.pool.unwatch(server, uri):
        watched = ", ".join(ctx.pool.watched(server)) or "nothing"
        raise UsageError(f"{server} is not watching {uri!r} (watching: {watched})")
    watcher = LIVE.pop((server, uri), None)
    if watcher is not None:
        watcher.ended()
    print(f"{server}: stopped watching {uri}")
    return None
