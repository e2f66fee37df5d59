"""A call's conversation with its server, for teaching: what went out, what came back, and when.

Each line is a JSON-RPC message as it crossed: a request's or notification's ``params`` and a
response's ``result`` exactly as sent (numbers as they were, fields mcpnb does not know kept, a
field the server left out left out), never rebuilt from the SDK's parsed objects. Three places see
them:

- the session's door (:mod:`mcpnb.client.doors`) sees every request a call makes and its answer;
- :class:`Wire`, on the session's dispatcher, sees a request as it is written (the ``_meta``
  the SDK adds, a ``progressToken`` say) and every notification and request the server sends;
- the connection's answer to a server's request is recorded as the form masked it
  (:mod:`mcpnb.client.asking`).

It records only while a call that asked for a transcript is running (see
:class:`~mcpnb.client.interaction.CallContext`): otherwise the door costs one context-variable
lookup and the dispatcher is the SDK's own, nothing added per message.

What is recorded is scrubbed of every secret a live connection knows (its env values, header and
token values, :func:`~mcpnb.client.logfilter.known_secrets`) as it is added: a transcript is saved
with the notebook, and a server that echoes its own key in a result or a log line must not put it
there, any more than ``%mcp logs`` shows it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

logger = logging.getLogger("mcpnb")


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

        if (
            direction == "→"
            and kind == "request"
            and isinstance(payload, dict)
            and "inputResponses" in payload
        ):
            payload = self._masked_answers(payload)
        secrets = known_secrets()
        if secrets:
            method = scrub(method, secrets)  # a server's notification names its own method
            payload = scrubbed(payload, lambda text: scrub(text, secrets))
        self.messages.append(Message(time.monotonic() - self.started, direction, kind, method, payload))

    def _masked_answers(self, params: dict[str, Any]) -> dict[str, Any]:
        """A 2026-07-28 request that carries the answers to the server's questions
        (``inputResponses``), each form's content masked as the form masked it: the answer goes
        back inside the call's next request, where a passphrase typed in a ``format: password``
        field was shown as typed. The questions are those of the last answer recorded."""
        from mcpnb.client.asking import masked_answer

        responses = params["inputResponses"]
        if not isinstance(responses, dict):
            return params
        asked = next(
            (
                m.payload["inputRequests"]
                for m in reversed(self.messages)
                if m.direction == "←" and isinstance(m.payload, dict) and "inputRequests" in m.payload
            ),
            None,
        )
        masked = {}
        for key, answer in responses.items():
            question = asked.get(key) if isinstance(asked, dict) else None
            method = question.get("method") if isinstance(question, dict) else None
            if (
                isinstance(answer, dict)
                and isinstance(answer.get("content"), dict)
                and method in (None, "elicitation/create")
            ):
                form = question.get("params") if isinstance(question, dict) else None
                schema = form.get("requestedSchema") if isinstance(form, dict) else None
                answer = {**answer, "content": masked_answer(schema, answer["content"])}
            masked[key] = answer
        return {**params, "inputResponses": masked}

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
    if isinstance(value, dict):  # keys too: a server's own fields are kept as it sent them
        items = {scrubbed(key, clean): scrubbed(item, clean) for key, item in value.items()}
        same = items.keys() == value.keys() and all(items[key] is item for key, item in value.items())
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


#: The notifications a server sends about a call it is running, which the connection's rule may
#: give to a call they did not arrive with (any other, a list change or a ``subscriptions/listen``
#: acknowledgement, is a call's only when it arrived in the call's own context).
_A_CALLS_OWN = frozenset({"notifications/message", "notifications/progress"})


class Wire:
    """What crosses one session's dispatcher, recorded in the transcripts of the calls it belongs to.

    The door records a call's requests as it hands them on, but the SDK adds to them after that
    (``_meta.progressToken``, a trace context), and the server's notifications and requests reach
    mcpnb only through the SDK's callbacks, rebuilt from parsed objects (a ``"logger": null`` the
    server never sent, ``1`` read as ``1.0``, a progress notification the SDK could not match never
    shown). So, while a call that asked for a transcript is in flight on the session
    (:meth:`enter` / :meth:`leave`), the dispatcher's own steps are stood in for, as attributes of
    that one dispatcher:

    - the SDK's JSON-RPC dispatcher (stdio, HTTP, SSE, a low-level server in this process): its
      ``_write`` (a request, as written) and its ``_dispatch`` (each message read, before the SDK
      looks at it);
    - its direct dispatcher (an ``MCPServer`` in this process on 2026-07-28, no JSON-RPC between):
      its ``_dispatch_notify`` and ``_dispatch_request`` (what the server sends, as it built it),
      and a call's progress callback (the server reports progress straight to it: no message at
      all; it is recorded as reported, with no token, as none was sent).

    When the last such call ends they are taken away, and the dispatcher is the SDK's own again:
    sessions whose calls want no transcript pay nothing per message.

    Which call a message belongs to: a progress notification whose ``progressToken`` is one of a
    recording call's requests is that call's (another request's token: none of them); otherwise
    the call in whose context it arrived (an HTTP response stream, an in-process server), else the
    connection's rule (:attr:`route`, :meth:`mcpnb.client.asking.Asking.current`: the task its
    ``_meta`` names, the one call in flight), for a server's request, a log line or progress. A
    server's request that may be any of several calls' is recorded in each; a notification that
    may be, in none.
    """

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher
        #: The calls in flight that record, by id (a CallContext is no dict key): [call, depth].
        self.calls: dict[int, list[Any]] = {}
        #: The request ids (progress tokens) the recording calls sent, to their call.
        self.sent: dict[Any, Any] = {}
        #: The connection's rule for a message nothing else ties to a call (set by the call).
        self.route: Callable[[Any], Any] | None = None
        self.frames = all(callable(getattr(dispatcher, name, None)) for name in ("_write", "_dispatch"))
        self.direct = not self.frames and all(
            callable(getattr(dispatcher, name, None)) for name in ("_dispatch_notify", "_dispatch_request")
        )
        self._mine: dict[str, Callable[..., Any]] = {}

    @property
    def writes_requests(self) -> bool:
        """Whether this tap records a call's requests as written (else the door records them)."""
        return self.frames

    def enter(self, call: Any) -> None:
        held = self.calls.setdefault(id(call), [call, 0])
        held[1] += 1
        if not self._mine:
            self._arm()

    def leave(self, call: Any) -> None:
        held = self.calls.get(id(call))
        if held is None:
            return
        held[1] -= 1
        if held[1] > 0:
            return
        del self.calls[id(call)]
        self.sent = {key: owner for key, owner in self.sent.items() if owner is not call}
        if not self.calls:
            self._disarm()

    def with_progress(
        self, call: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """``send_raw_request``'s arguments with the call's progress callback recorded on a direct
        dispatcher (the only place progress is seen there); as they are on any other."""
        opts = args[0] if args else kwargs.get("opts")
        on_progress = opts.get("on_progress") if self.direct and isinstance(opts, dict) else None
        if on_progress is None:
            return args, kwargs

        async def reported(progress: Any, total: Any = None, message: Any = None) -> None:
            said = {"progress": progress, "total": total, "message": message}
            said = {key: value for key, value in said.items() if value is not None}
            call.transcript.add("←", "notification", "notifications/progress", said)
            await on_progress(progress, total, message)

        opts = {**opts, "on_progress": reported}
        return ((opts, *args[1:]), kwargs) if args else (args, {**kwargs, "opts": opts})

    # ------------------------------------------------------------ standing in for the dispatcher
    def _arm(self) -> None:
        dispatcher = self.dispatcher
        if self.frames:
            from mcp_types import JSONRPCNotification, JSONRPCRequest

            write, dispatch = dispatcher._write, dispatcher._dispatch

            async def _write(message: Any, metadata: Any = None) -> None:
                if isinstance(message, JSONRPCRequest):
                    self._sending(message.id, message.method, message.params)
                await write(message, metadata)

            async def _dispatch(item: Any, on_request: Any, on_notify: Any, sender_ctx: Any) -> None:
                message = getattr(item, "message", None)  # (an Exception from the transport has none)
                if isinstance(message, JSONRPCNotification):
                    self._heard("notification", message.method, message.params, sender_ctx)
                elif isinstance(message, JSONRPCRequest):
                    self._heard("request", message.method, message.params, sender_ctx)
                await dispatch(item, on_request, on_notify, sender_ctx)

            self._mine = {"_write": _write, "_dispatch": _dispatch}
        elif self.direct:
            notify, request = dispatcher._dispatch_notify, dispatcher._dispatch_request

            async def _dispatch_notify(method: str, params: Any) -> None:
                self._heard("notification", method, params, None)
                await notify(method, params)

            async def _dispatch_request(method: str, params: Any, opts: Any = None) -> Any:
                self._heard("request", method, params, None)
                return await request(method, params, opts)

            self._mine = {"_dispatch_notify": _dispatch_notify, "_dispatch_request": _dispatch_request}
        for name, step in self._mine.items():
            setattr(dispatcher, name, step)

    def _disarm(self) -> None:
        own = vars(self.dispatcher)
        for name, step in self._mine.items():
            if own.get(name) is step:  # (one put there since, by someone else, stays)
                del own[name]
        self._mine = {}

    # ------------------------------------------------------------ recording
    def _sending(self, request_id: Any, method: str, params: Any) -> None:
        """A request as it is written, in the task of the call that sends it."""
        from mcp.shared.dispatcher import coerce_request_id

        from mcpnb.client.interaction import current_call

        call = current_call.get()
        if call is None or call.transcript is None:
            return
        self.sent[coerce_request_id(request_id)] = call
        call.transcript.add("→", "request", method, params)

    def _heard(self, kind: str, method: str, params: Any, sender_ctx: Any) -> None:
        """Record a message read, in the SDK's read loop: nothing here may end the session, so a
        failure to record is logged and the message goes on as if nobody had looked."""
        try:
            for call in self._owners(kind, method, params, sender_ctx):
                call.transcript.add("←", kind, method, params)
        except Exception:
            logger.debug("a message could not be added to a transcript", exc_info=True)

    def _owners(self, kind: str, method: str, params: Any, sender_ctx: Any) -> list[Any]:
        """The recording calls a message from the server belongs to (see the class)."""
        from mcpnb.client.interaction import current_call

        if method == "notifications/progress" and isinstance(params, dict):
            token = params.get("progressToken")
            if isinstance(token, (str, int)) and not isinstance(token, bool):
                from mcp.shared.dispatcher import coerce_request_id

                key = coerce_request_id(token)
                if key in self.sent:
                    return [self.sent[key]]
                if key in (getattr(self.dispatcher, "_pending", None) or ()):
                    return []  # another request's progress
        call = sender_ctx.get(current_call) if sender_ctx is not None else current_call.get()
        if call is None and (kind == "request" or method in _A_CALLS_OWN):
            call = self.route(params) if self.route is not None else self._only()
        several = getattr(call, "calls", None)  # asking.Unsure: several calls, nothing says which
        if several is not None:
            calls = list(several) if kind == "request" else []
        else:
            calls = [call] if call is not None else []
        # only calls still in flight: a late message in a finished call's context (an HTTP stream,
        # a task its handler started) must not grow a transcript already handed back
        return [each for each in calls if id(each) in self.calls and getattr(each, "transcript", None)]

    def _only(self) -> Any:
        """The one recording call in flight, when there is one (a session with no connection)."""
        return next(iter(self.calls.values()))[0] if len(self.calls) == 1 else None


def wire(dispatcher: Any) -> Wire:
    """The dispatcher's :class:`Wire` (one each, made on first use)."""
    tap = getattr(dispatcher, "_mcpnb_wire", None)
    if tap is None:
        tap = dispatcher._mcpnb_wire = Wire(dispatcher)
    return tap
