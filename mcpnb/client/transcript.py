"""A call's conversation with its server, for teaching: what went out, what came back, and when.

Every request leaves through the session's dispatcher (one door for JSON-RPC over stdio or HTTP and
for the direct in-process path alike), so the session's door (:mod:`mcpnb.client.doors`) sees them
all. It records only while a call that asked for a transcript is running (see
:class:`~mcpnb.client.interaction.CallContext`); otherwise it costs one context-variable lookup.
Server-to-client traffic that has its own hook (progress, log messages, elicitation) is added by
the connection.

What is recorded is scrubbed of every secret a live connection knows (its env values, header and
token values, :func:`~mcpnb.client.logfilter.known_secrets`) as it is added: a transcript is saved
with the notebook, and a server that echoes its own key in a result or a log line must not put it
there, any more than ``%mcp logs`` shows it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Message:
    at: float  # seconds since the call started
    direction: str  # "→" to the server, "←" from it
    kind: str  # request, response, error, notification
    method: str
    payload: Any = None

    def line(self) -> str:
        body = json.dumps(self.payload, ensure_ascii=False, default=str) if self.payload is not None else ""
        if len(body) > 300:
            body = body[:300] + " …"
        return f"{self.at * 1000:8.1f} ms {self.direction} {self.kind:<12} {self.method} {body}".rstrip()


@dataclass
class Transcript:
    """The messages of one call, in order. Shown collapsed under the call's result."""

    messages: list[Message] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def add(self, direction: str, kind: str, method: str, payload: Any = None) -> None:
        from mcpnb.client.logfilter import known_secrets
        from mcpnb.client.redact import scrub

        secrets = known_secrets()
        if secrets:
            method = scrub(method, secrets)  # an elicitation's method says the server's message
            payload = scrubbed(payload, lambda text: scrub(text, secrets))
        self.messages.append(Message(time.monotonic() - self.started, direction, kind, method, payload))

    def __len__(self) -> int:
        return len(self.messages)

    def __repr__(self) -> str:
        return "\n".join(m.line() for m in self.messages) or "(no messages)"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)


def scrubbed(value: Any, clean: Callable[[str], str]) -> Any:
    """``value`` with ``clean`` applied to every string in it (through dicts, lists and pydantic
    models, which become their JSON form only when something in them changed); ``value`` itself
    when nothing did, so an untouched payload keeps its type."""
    if isinstance(value, str):
        text = clean(value)
        return value if text == value else text
    if isinstance(value, dict):
        items = {key: scrubbed(item, clean) for key, item in value.items()}
        same = all(items[key] is item for key, item in value.items())
        return value if same else items
    if isinstance(value, (list, tuple)):
        items = [scrubbed(item, clean) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        plain = dump(by_alias=True, exclude_none=True, mode="json")
        cleaned = scrubbed(plain, clean)
        return value if cleaned is plain else cleaned
    return value


def tap_notifications(dispatcher: Any) -> None:
    """Record the notifications a call sends in its transcript (its requests and their answers are
    recorded by the session's door, :mod:`mcpnb.client.doors`)."""
    from mcpnb.client.interaction import current_call

    notify = dispatcher.notify

    async def traced_notify(method: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        call = current_call.get()
        if call is not None and call.transcript is not None:
            call.transcript.add("→", "notification", method, params)
        return await notify(method, params, *args, **kwargs)

    dispatcher.notify = traced_notify
