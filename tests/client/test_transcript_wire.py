"""A call's transcript holds each message as it crossed, not rebuilt from the SDK's parsed objects.

Servers we did not write: the SDK's low-level ``Server`` (this file's :func:`odd_server`, in
process and as a stdio subprocess: ``python tests/client/test_transcript_wire.py``) sends
notifications and a request of shapes the SDK's models would change (no logger, fields of its
own, integer progress, progress with no token or a token nobody sent); the SDK's ``MCPServer``
(the demo server over stdio, Streamable HTTP and in process; the leaky server's elicitation).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.resolve import AcceptedElicitation
from pydantic import BaseModel

HERE = Path(__file__).resolve()
SECRET = "oddSECRETq1w2e3r4"

#: What the odd server's request for a form says, with a field of its own.
ASK = {
    "mode": "form",
    "message": "Pick a number",
    "requestedSchema": {"type": "object", "properties": {"pick": {"type": "integer"}}},
    "x-note": {"kept": 1},
}


def odd_server() -> Any:
    """The SDK's low-level server: ``odd`` sends log lines and progress of odd shapes, ``ask``
    asks for a form by a request of its own (2025-11-25 only)."""
    from mcp import types
    from mcp.server.lowlevel import Server

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        schema = {"type": "object"}
        return types.ListToolsResult(
            tools=[types.Tool(name="odd", input_schema=schema), types.Tool(name="ask", input_schema=schema)]
        )

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        wire = ctx.session._request_outbound  # this request's back-channel: params go out as given
        if params.name == "ask":
            answer = await wire.send_raw_request("elicitation/create", ASK)
            return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(answer))])
        token = (ctx.meta or {}).get("progress_token")
        secret = os.environ.get("ODD_SECRET", "none")
        await wire.notify("notifications/message", {"level": "info", "data": "no logger here"})
        await wire.notify(
            "notifications/message",
            {
                "level": "notice",
                "logger": "odd",
                "data": {"n": 1},
                "extra": {secret: f"a {secret} b", "n": 2},
            },
        )
        await wire.notify(
            "notifications/progress", {"progressToken": token, "progress": 1, "total": 4, "note": "x"}
        )
        await wire.notify("notifications/progress", {"progress": 2})
        await wire.notify("notifications/progress", {"progressToken": "nobody's", "progress": 3.5})
        return types.CallToolResult(content=[types.TextContent(type="text", text="odd done")])

    return Server("odd", on_list_tools=list_tools, on_call_tool=call_tool)


def connect_odd(pool: Any, transport: str, era: str) -> None:
    if transport == "stdio":
        pool.connect("odd", command=sys.executable, args=[str(HERE)], env={"ODD_SECRET": SECRET}, era=era)
    else:
        pool.connect("odd", server=odd_server(), era=era)


def traced(pool: Any, name: str, tool: str, args: dict[str, Any], **context: Any) -> Any:
    from mcpnb import CallContext
    from mcpnb.client.transcript import Transcript

    return pool.call(name, tool, args, context=CallContext(transcript=Transcript(), **context))


def payloads(result: Any, method: str, kind: str = "notification") -> list[Any]:
    return [m.payload for m in result.transcript.messages if (m.method, m.kind) == (method, kind)]


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("transport", ["stdio", "inprocess"])
def test_odd_notifications_are_recorded_as_the_server_sent_them(pool, transport, era):
    connect_odd(pool, transport, era)
    result = traced(pool, "odd", "odd", {})
    assert result.text == "odd done"
    (request,) = payloads(result, "tools/call", "request")
    token = request["_meta"]["progressToken"]  # the token mcpnb sent (the SDK adds it as it writes)
    assert token is not None
    shown = "***" if transport == "stdio" else "none"  # the connection's env value, scrubbed
    assert payloads(result, "notifications/message") == [
        {"level": "info", "data": "no logger here"},  # no "logger": null the server never sent
        {"level": "notice", "logger": "odd", "data": {"n": 1}, "extra": {shown: f"a {shown} b", "n": 2}},
    ]
    progress = payloads(result, "notifications/progress")
    assert progress == [
        {"progressToken": token, "progress": 1, "total": 4, "note": "x"},
        {"progress": 2},  # no token, and one nobody sent: shown all the same
        {"progressToken": "nobody's", "progress": 3.5},
    ]
    assert [type(p["progress"]) for p in progress] == [int, int, float]  # numbers as sent
    kinds = [(m.direction, m.kind) for m in result.transcript.messages]
    assert kinds[0] == ("→", "request") and kinds[-1] == ("←", "response")


def test_no_known_secret_reaches_a_transcript_through_a_field_of_the_servers_own(pool):
    connect_odd(pool, "stdio", "legacy")
    result = traced(pool, "odd", "odd", {})
    assert SECRET not in repr(result.transcript)
    assert SECRET not in json.dumps([m.payload for m in result.transcript.messages], default=str)
    from mcpnb.notebook.render.transcript import transcript_bundle

    assert SECRET not in json.dumps(transcript_bundle(result.transcript))


@pytest.mark.parametrize("transport", ["stdio", "inprocess"])
def test_a_servers_request_for_a_form_is_recorded_as_sent(pool, transport):
    connect_odd(pool, transport, "legacy")
    result = traced(pool, "odd", "ask", {}, answers={"pick": 2})
    assert json.loads(result.text) == {"action": "accept", "content": {"pick": 2}}
    methods = [(m.direction, m.kind, m.method) for m in result.transcript.messages]
    assert methods == [
        ("→", "request", "tools/call"),
        ("←", "request", "elicitation/create"),  # not mcpnb's summary of it
        ("→", "response", "elicitation/create"),
        ("←", "response", "tools/call"),
    ]
    assert payloads(result, "elicitation/create", "request") == [ASK]  # its own field kept


def test_the_sdks_elicitation_request_is_recorded_as_sent(pool):
    """The leaky server (the SDK's ``MCPServer``, 2025-11-25 over stdio) asks with a raw schema."""
    sys.path.insert(0, str(HERE.parents[1] / "servers"))
    from leaky_server import UNLOCK_SCHEMA

    leaky = str(HERE.parents[1] / "servers" / "leaky_server.py")
    pool.connect("leaky", command=sys.executable, args=[leaky], env={"API_KEY": SECRET}, era="legacy")
    answers = {"user": "ann", "passphrase": "pw-1", "pin": "1234", "one_time_code": "C0DE"}
    result = traced(pool, "leaky", "ask_unlock", {}, answers=answers)
    (asked,) = payloads(result, "elicitation/create", "request")
    assert asked["message"] == "Unlock the vault"
    assert asked["requestedSchema"] == UNLOCK_SCHEMA


@pytest.mark.parametrize("transport", ["stdio", "http", "inprocess"])
def test_the_sdks_servers_progress_and_log_lines_are_recorded_as_sent(pool, transport, request):
    from conftest import demo_command, demo_server_object

    if transport == "stdio":
        pool.connect("demo", **demo_command(), era="legacy")
    elif transport == "http":
        pool.connect("demo", url=request.getfixturevalue("http_url"), era="legacy")
    else:  # 2026-07-28 in process: the SDK calls the server directly, no JSON-RPC between
        pool.connect("demo", server=demo_server_object(), era="modern")
    result = traced(pool, "demo", "progress", {"steps": 2})
    (sent,) = payloads(result, "tools/call", "request")
    token = sent.get("_meta", {}).get("progressToken")
    progress = payloads(result, "notifications/progress")
    if transport == "inprocess":  # no token is sent: progress is recorded as the server reported it
        assert token is None
        assert progress == [
            {"progress": 1, "total": 2, "message": "step 1"},
            {"progress": 2, "total": 2, "message": "step 2"},
        ]
    else:
        assert token is not None
        assert progress == [
            {"progressToken": token, "progress": 1, "total": 2, "message": "step 1"},
            {"progressToken": token, "progress": 2, "total": 2, "message": "step 2"},
        ]
    assert [type(p["progress"]) for p in progress] == [int, int]
    logged = traced(pool, "demo", "chatty", {})
    assert payloads(logged, "notifications/message") == [
        {"level": "info", "data": "starting up"},
        {"level": "warning", "data": "almost done"},
    ]


class Login(BaseModel):
    user: str
    password: str


def ask_login(ctx: Context) -> Elicit[Any]:
    return Elicit("Log in", Login)


def login_server() -> MCPServer:
    """The SDK's ``MCPServer`` asking for a password the 2026-07-28 way: the question comes inside
    the call's answer, the client's answer inside the call's next request."""
    server = MCPServer("login", log_level="WARNING")

    @server.tool()
    def login(result: Annotated[ElicitationResult[Login], Resolve(ask_login)]) -> str:
        return f"ok {result.data.user}" if isinstance(result, AcceptedElicitation) else "no"

    return server


def test_a_2026_answer_goes_back_in_the_next_request_masked_as_the_form_does(pool):
    pool.connect("login", server=login_server(), era="modern")
    result = traced(pool, "login", "login", {}, answers={"user": "ann", "password": "pw-typed-9"})
    assert result.text == "ok ann"
    (retry,) = [p for p in payloads(result, "tools/call", "request") if "inputResponses" in p]
    (answer,) = retry["inputResponses"].values()
    assert answer["content"]["user"] == "ann" and answer["content"]["password"] != "pw-typed-9"
    assert "pw-typed-9" not in repr(result.transcript)
    assert "pw-typed-9" not in json.dumps([m.payload for m in result.transcript.messages], default=str)


def test_another_calls_progress_and_log_lines_stay_out_of_a_transcript(pool):
    """Three calls at once on one 2025-11-25 stdio session (the SDK's ``MCPServer``): the traced
    call's transcript holds its own progress, matched by token, and none of the others' traffic."""
    import asyncio

    from conftest import demo_command

    from mcpnb import CallContext
    from mcpnb.client.transcript import Transcript

    pool.connect("demo", **demo_command(), era="legacy")

    async def three() -> list[Any]:
        ctx = CallContext(transcript=Transcript())
        return await asyncio.gather(
            pool.acall("demo", "progress", {"steps": 3}, context=ctx),
            pool.acall("demo", "progress", {"steps": 3}),
            pool.acall("demo", "chatty", {}),
        )

    traced_result, *_ = asyncio.run(three())
    (sent,) = payloads(traced_result, "tools/call", "request")
    progress = payloads(traced_result, "notifications/progress")
    assert [p["progressToken"] for p in progress] == [sent["_meta"]["progressToken"]] * 3
    assert payloads(traced_result, "notifications/message") == []


@pytest.mark.parametrize("transport", ["stdio", "inprocess"])
def test_the_dispatcher_is_the_sdks_own_again_after_a_traced_call(pool, transport):
    """Recording stands in for the dispatcher's steps only while a traced call is in flight: a
    call without a transcript pays nothing per message."""
    from conftest import demo_command, demo_server_object

    target = demo_command() if transport == "stdio" else {"server": demo_server_object()}
    pool.connect("demo", **target)
    dispatcher = pool.connection("demo").client.session._dispatcher
    steps = ("_write", "_dispatch", "_dispatch_notify", "_dispatch_request")
    assert traced(pool, "demo", "progress", {"steps": 1}).transcript
    assert not [name for name in steps if name in vars(dispatcher)]
    assert pool.call("demo", "progress", {"steps": 1}).transcript is None


if __name__ == "__main__":  # the odd server over stdio, for the tests above
    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        server = odd_server()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


@pytest.mark.parametrize("transport", ["http", "inprocess"])
def test_a_modern_answer_is_in_the_next_request_and_nowhere_else(pool, transport):
    """On 2026-07-28 no answer crosses on its own: the question comes back in the call's result
    (inputRequests), the answer goes in the call made again (inputResponses). A line of mcpnb's own
    ("→ response elicitation/create") read as a message on the wire; a course taught from it."""
    from mcpnb import serve_probekit

    serve_probekit("probe", pool=pool, era="modern", **({"http": True} if transport == "http" else {}))
    result = traced(pool, "probe", "ask_user", {"question": "Name?"}, answers={"answer": "Ada"})
    lines = [(m.direction, m.kind, m.method) for m in result.transcript.messages]
    assert ("→", "response", "elicitation/create") not in lines
    assert set(lines) <= {("→", "request", "tools/call"), ("←", "response", "tools/call")}, lines
    again = [
        m.payload for m in result.transcript.messages if m.direction == "→" and "inputResponses" in m.payload
    ]
    assert len(again) == 1 and json.dumps(again[0]).count('"Ada"') == 1


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_transcript_that_fails_to_record_never_ends_the_session(pool, era):
    """Recording runs inside the SDK's read loop: a failure there ended the session."""
    from mcpnb import CallContext
    from mcpnb.client.transcript import Transcript

    class Broken(Transcript):
        def add(self, direction: str, kind: str, method: str, payload: Any = None) -> None:
            if direction == "←" and kind == "notification":
                raise RuntimeError("a broken recorder")
            super().add(direction, kind, method, payload)

    connect_odd(pool, "stdio", era)
    result = pool.call("odd", "odd", {}, context=CallContext(transcript=Broken()))
    assert result.text == "odd done"
    assert pool.status()["odd"].state == "connected" and pool.call("odd", "odd", {}).text == "odd done"
