"""Exercises of ``07-two-eras.ipynb``: how each era opens, the session header, MRTR round trips,
and the sealed ``requestState``."""

from __future__ import annotations

from typing import Any

from mcpnb.notebook.teach import exercises
from mcpnb.notebook.teach.exercises import Wrong, exercise, whole_number

NOTEBOOK = "07-two-eras.ipynb"
OPENING = {"legacy": "initialize", "modern": "server/discover"}


@exercise(
    "07.opening",
    notebook=NOTEBOOK,
    hints=[
        "Look at the `method` of the first message each `teach.Wire` sent in section 1.",
        "One era shakes hands and then says `notifications/initialized`; "
        "the other only asks what the server offers.",
    ],
)
def _opening(value: Any) -> str:
    if not isinstance(value, dict) or set(value) != {"legacy", "modern"}:
        raise Wrong("give a dict with two keys, `legacy` and `modern`, each the name of a JSON-RPC method")
    got = {era: _method_word(method) for era, method in value.items()}
    if got == {"legacy": OPENING["modern"], "modern": OPENING["legacy"]}:
        raise Wrong(
            "the other way round: the 2025-11-25 era opens a session with `initialize`; "
            "the 2026-07-28 era has no session and only asks `server/discover`"
        )
    if got["legacy"] is None:
        raise Wrong(
            "the 2025-11-25 era does have an opening: a handshake before anything else; "
            "which method did the legacy Wire send first?"
        )
    no_handshake = got["modern"] is None  # the lesson's own words: 2026-07-28 has no handshake
    if no_handshake:
        got["modern"] = OPENING["modern"]
    for era, method in OPENING.items():
        if got[era] != method:
            if got[era] in ("notifications/initialized", "ping", "tools/list"):
                raise Wrong(
                    f"`{got[era]}` comes later (or not at all); which method did the {era} Wire send *first*?"
                )
            raise Wrong(f"the {era} era does not open with `{got[era]}`; scroll up to its first exchange")
    if no_handshake:
        return (
            "right: 2026-07-28 needs no opening at all (no handshake, no session); the modern Wire "
            "sent `server/discover` first, an ordinary request that only describes the server"
        )
    return "initialize opens a session; server/discover only describes the server, every request stands alone"


def _method_word(method: Any) -> str | None:
    """A method name as given, or None for "no method" (``None``, ``"none"``, ``""``, ``"-"``)."""
    if method is None:
        return None
    text = str(method).strip()
    return None if text.lower() in ("", "none", "-", "nothing", "no handshake") else text


#: What the headers a legacy (2025-11-25) probe-kit sends besides the session's and the content
#: type are for: a student who names one of them saw it, so the check says so and asks for the
#: session's. (tests/notebook/test_teach.py holds this against what a real probe-kit sends.)
OTHER_RESPONSE_HEADERS = {
    "cache-control": "that one is about caching (an event stream must not be cached)",
    "x-accel-buffering": "that one is about streaming (it asks a proxy not to hold back the event stream)",
    "transfer-encoding": "that one is about streaming (the body comes in chunks)",
    "connection": "that one is about the TCP connection, not the MCP session",
    "set-cookie": "that one is probe-kit's cookie for a browser, not MCP's session",
    "date": "that one says when the answer was sent",
    "server": "that one names the web server (uvicorn), not the MCP session",
    "content-length": "that one is the size of the body",
}
#: Headers the *client* sends, never the server, and when.
CLIENT_HEADERS = {
    "mcp-protocol-version": "in both eras",
    "mcp-method": "the 2026-07-28 client, mirroring the method",
    "mcp-name": "the 2026-07-28 client, mirroring the tool's name",
    "accept": "with every request",
    "authorization": "to a server that wants a token",
}


def _legacy_headers() -> set[str] | None:
    """The headers of the lesson's own ``legacy_hello`` (its answer to ``initialize``), when the
    notebook has one: the check then speaks of what this student's server really sent."""
    from mcpnb.notebook.teach.wire import Exchange

    hello = exercises.lesson_variables().get("legacy_hello")
    return set(hello.headers) if isinstance(hello, Exchange) else None


@exercise(
    "07.session",
    notebook=NOTEBOOK,
    hints=[
        "Compare the `← HTTP 200` lines of the `initialize` and `server/discover` exchanges.",
        "Its name contains the word *session*; `legacy_hello.headers` holds every response header.",
    ],
)
def _session(value: Any) -> str:
    if not isinstance(value, str):
        raise Wrong("give the header's name as a string")
    if _is_session_value(value):
        raise Wrong("that is the header's value, the session id itself; give the header's *name*")
    name = value.split(":", 1)[0].strip().lower()  # "Mcp-Session-Id: 85be…" is a header line: its name
    if name == "mcp-session-id":
        return (
            "the legacy server remembers you by that id; a modern server remembers nothing between requests"
        )
    if name.replace("_", "-") == "mcp-session-id":
        raise Wrong(f"close: HTTP header names are written with hyphens, not `{value.strip()}`")
    if name in CLIENT_HEADERS:
        raise Wrong(
            f"the *client* sends that one ({CLIENT_HEADERS[name]}); "
            "which header did the legacy *server* send back?"
        )
    if name == "content-type":
        raise Wrong(
            "both servers send a content type (an event stream vs plain JSON); look for the other one"
        )
    seen = _legacy_headers()
    if name in (seen if seen is not None else OTHER_RESPONSE_HEADERS):
        why = OTHER_RESPONSE_HEADERS.get(name, "that one is not about the session")
        raise Wrong(f"yes, the legacy server sent `{name}`, but {why}; which one carries the session?")
    if seen is not None:
        raise Wrong(
            f"`{value.strip()}` is not among the headers the legacy server sent back; "
            "look at `legacy_hello.headers`"
        )
    raise Wrong(
        f"`{value.strip()}` is not the header that carries the session; `legacy_hello.headers` lists "
        "every header the legacy server sent back: which one names the session?"
    )


def _is_session_value(value: str) -> bool:
    """Whether ``value`` is the session id the legacy server handed out (the lesson's, when the
    notebook has one), or looks like one: a hexadecimal string or UUID of 16 characters or more."""
    import re

    from mcpnb.notebook.teach.wire import Exchange

    text = value.strip()
    hello = exercises.lesson_variables().get("legacy_hello")
    if isinstance(hello, Exchange) and text and text == hello.headers.get("mcp-session-id"):
        return True
    return (
        re.fullmatch(r"[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}|[0-9a-fA-F]{16,}", text)
        is not None
    )


@exercise(
    "07.mrtr",
    notebook=NOTEBOOK,
    hints=[
        "Count the lines of `asked_new.transcript` that are `→ request tools/call`.",
        "`[m.method for m in asked_new.transcript.messages if m.direction == '→']` lists what went out.",
    ],
)
def _mrtr(given: Any) -> str:
    value = whole_number(given)
    if value is None:
        raise Wrong("give a number: how many `tools/call` requests went to the server")
    if value == 2:
        return (
            "the first call came back with `inputRequests`; the second carried `inputResponses` and "
            "`requestState` — the server asked without ever sending you a request"
        )
    if value == 1:
        raise Wrong(
            "1 is the legacy count, where the question arrived as a server request *during* the call; "
            "count the modern transcript's `→ request tools/call` lines"
        )
    raise Wrong(f"{value} is not what the modern transcript shows; count its `→ request tools/call` lines")


@exercise(
    "07.forged",
    notebook=NOTEBOOK,
    hints=[
        "`refused.error` is the JSON-RPC error the server answered with; its `code` is a number.",
        "The request was well formed; one of its parameters was not acceptable.",
    ],
)
def _forged(given: Any) -> str:
    value = whole_number(given)
    if value is None:
        raise Wrong("give the error's `code`, a number (`refused.error['code']`)")
    if value == -32602:
        return (
            "invalid params: the state came back changed, so the server trusts none of it; "
            "a client must echo requestState exactly as it got it"
        )
    if value == 32602:
        raise Wrong("close, but the sign is part of the code: JSON-RPC's error codes are negative")
    if value == -32600:
        raise Wrong(
            "-32600 is for a request that is not valid JSON-RPC; this one was, but one parameter was not"
        )
    if value == -32603:
        raise Wrong("-32603 would be the server's own failure; it did not fail, it refused what you sent")
    if value == -32021:
        raise Wrong("-32021 says a capability is missing; you declared elicitation, look at `refused.error`")
    raise Wrong(f"{value} is not the code in `refused.error`; look at its `code`")
