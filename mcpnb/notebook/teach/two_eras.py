"""Exercises of ``07-two-eras.ipynb``: how each era opens, the session header, MRTR round trips,
and the sealed ``requestState``."""

from __future__ import annotations

from typing import Any

from mcpnb.notebook.teach.exercises import Wrong, exercise

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
    got = {era: str(method).strip() for era, method in value.items()}
    if got == {"legacy": OPENING["modern"], "modern": OPENING["legacy"]}:
        raise Wrong(
            "the other way round: the 2025-11-25 era opens a session with `initialize`; "
            "the 2026-07-28 era has no session and only asks `server/discover`"
        )
    for era, method in OPENING.items():
        if got[era] != method:
            if got[era] in ("notifications/initialized", "ping", "tools/list"):
                raise Wrong(
                    f"`{got[era]}` comes later (or not at all); which method did the {era} Wire send *first*?"
                )
            raise Wrong(f"the {era} era does not open with `{got[era]}`; scroll up to its first exchange")
    return "initialize opens a session; server/discover only describes the server, every request stands alone"


@exercise(
    "07.session",
    notebook=NOTEBOOK,
    hints=[
        "Compare the `← HTTP 200` lines of the `initialize` and `server/discover` exchanges.",
        "Its name contains the word *session*; `legacy_hello.headers` holds every response header.",
    ],
)
def _session(value: Any) -> str:
    name = str(value).strip().lower() if isinstance(value, str) else None
    if name is None:
        raise Wrong("give the header's name as a string")
    if name == "mcp-session-id":
        return (
            "the legacy server remembers you by that id; a modern server remembers nothing between requests"
        )
    if name == "mcp-protocol-version":
        raise Wrong(
            "the *client* sends that one (in both eras); which header did the legacy *server* send back?"
        )
    if name == "content-type":
        raise Wrong(
            "both servers send a content type (an event stream vs plain JSON); look for the other one"
        )
    raise Wrong(
        f"`{value}` is not among the headers the legacy server sent back; look at `legacy_hello.headers`"
    )


@exercise(
    "07.mrtr",
    notebook=NOTEBOOK,
    hints=[
        "Count the lines of `asked_new.transcript` that are `→ request tools/call`.",
        "`[m.method for m in asked_new.transcript.messages if m.direction == '→']` lists what went out.",
    ],
)
def _mrtr(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
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
def _forged(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Wrong("give the error's `code`, a number (`refused.error['code']`)")
    if value == -32602:
        return (
            "invalid params: the state came back changed, so the server trusts none of it; "
            "a client must echo requestState exactly as it got it"
        )
    if value == -32600:
        raise Wrong(
            "-32600 is for a request that is not valid JSON-RPC; this one was, but one parameter was not"
        )
    if value == -32603:
        raise Wrong("-32603 would be the server's own failure; it did not fail, it refused what you sent")
    if value == -32021:
        raise Wrong("-32021 says a capability is missing; you declared elicitation, look at `refused.error`")
    raise Wrong(f"{value} is not the code in `refused.error`; look at its `code`")
