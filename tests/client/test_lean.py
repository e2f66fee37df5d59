"""The lean receive path for large results (mcpnb/client/lean.py) changes what a result costs, never
what arrives: every result equals what the SDK's own path gives for the same call, over stdio,
Streamable HTTP (both eras) and in-process, and parsing gives the SDK's message or the SDK's error."""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from typing import Any

import anyio
import pytest
from conftest import DEMO, demo_command, demo_server_object
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import jsonrpc_message_adapter

from mcpnb.client.lean import LEAN_FROM, parse_message

ROWS = 3_000  # ~700 kB of JSON-RPC message: well over LEAN_FROM, so the lean path parses it
GROUPS = ("north", "south", "east", "west")
TABLE = ("rows", {"n": ROWS})  # structured content with its JSON text mirror
MIXED = ("mixed_rows", {"n": ROWS})  # a text summary beside structured data
LISTED = ("mixed_rows", {"n": ROWS, "as_list": True})  # a bare list (2026-07-28 only)
BAD = ("bad_rows", {"n": ROWS})  # does not match the declared outputSchema
SMALL = ("rows", {"n": 3})  # under LEAN_FROM: the SDK's own parser
MODERN_CALLS = [TABLE, MIXED, LISTED, BAD, SMALL]
LEGACY_CALLS = [TABLE, MIXED, BAD, SMALL]  # a 2025-11-25 server refuses a list as structured content


def sdk_results(target: Any, mode: str, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The same calls through a raw ``mcp.Client`` (the SDK's parser and checks), as wire JSON."""

    async def keep(name: str, result: Any) -> None:  # the SDK would refuse bad_rows' payload
        pass

    async def run() -> list[dict[str, Any]]:
        out = []
        async with Client(target, mode=mode) as client:
            client.session.validate_tool_result = keep
            for tool, args in calls:
                result = await client.call_tool(tool, args)
                out.append(result.model_dump(mode="json", by_alias=True, exclude_none=True))
        return out

    return anyio.run(run)


def key(call: tuple[str, dict[str, Any]]) -> str:
    return f"{call[0]}({json.dumps(call[1])})"


def check_same(pool: Any, name: str, calls: list[tuple[str, dict[str, Any]]], expected: list[Any]) -> None:
    got = {key(call): pool.call(name, *call) for call in calls}
    for (call, result), sdk in zip(got.items(), expected, strict=True):
        assert result.raw == sdk, f"{call} differs from the SDK's result"
        assert result.structured == sdk.get("structuredContent")
        assert [b.text for b in result.content] == [b["text"] for b in sdk["content"]]

    table = got[key(TABLE)]
    last = ROWS - 1
    expected_last = {"id": last, "name": f"row {last}", "score": last * 0.5, "active": last % 2 == 0}
    assert table.data["rows"][-1] == {**expected_last, "group": GROUPS[last % 4]}
    assert json.loads(table.text) == table.structured  # the text mirror is still there, whole
    assert table.schema_valid is True and len(table.df) == ROWS
    mixed = got[key(MIXED)]
    assert mixed.text == f"{ROWS} rows, ids 0 to {last}"
    assert mixed.data["rows"][7] == {"id": 7, "name": "row 7", "tags": ["a", "é"], "score": 7 / 3}
    if key(LISTED) in got:
        assert isinstance(got[key(LISTED)].structured, list) and got[key(LISTED)].data[-1]["id"] == last
    bad = got[key(BAD)]
    assert bad.schema_valid is False and f"$.rows[{last}].id" in str(bad.schema_error)
    assert len(bad.data["rows"]) == ROWS and bad.data["rows"][-1]["id"] == "last"  # the payload survives
    assert got[key(SMALL)].data["rows"][2]["id"] == 2


def test_stdio_results_equal_the_sdks(pool):
    pool.connect("demo", **demo_command())
    params = StdioServerParameters(command=sys.executable, args=[DEMO, "stdio"])
    check_same(pool, "demo", MODERN_CALLS, sdk_results(stdio_client(params), "auto", MODERN_CALLS))


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_http_results_equal_the_sdks(pool, http_url, era):
    calls = LEGACY_CALLS if era == "legacy" else MODERN_CALLS
    pool.connect("demo", url=http_url, era=era)
    check_same(pool, "demo", calls, sdk_results(http_url, "legacy" if era == "legacy" else "auto", calls))


def test_sse_results_equal_the_sdks(pool, sse_url):
    from mcp.client.sse import sse_client

    pool.connect("demo", url=sse_url, transport="sse")
    modern = pool.status()["demo"].era == "modern"  # the era the SDK's client negotiates there too
    calls = MODERN_CALLS if modern else LEGACY_CALLS
    check_same(pool, "demo", calls, sdk_results(sse_client(sse_url), "auto" if modern else "legacy", calls))


def test_inprocess_results_equal_the_sdks(pool):
    pool.connect("demo", server=demo_server_object())
    check_same(pool, "demo", MODERN_CALLS, sdk_results(demo_server_object(), "auto", MODERN_CALLS))


def test_a_transcript_keeps_the_structured_content_it_saw(pool):
    from mcpnb.client.interaction import CallContext
    from mcpnb.client.transcript import Transcript

    pool.connect("demo", **demo_command())
    result = pool.call("demo", *TABLE, context=CallContext(transcript=Transcript()))
    response = [m for m in result.transcript.messages if m.kind == "response"][-1]
    assert response.payload["structuredContent"] == result.structured  # not the empty stand-in


MESSAGES = [
    '{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"a":[1,2.5,"é",null,true]}}}',
    '{"jsonrpc":"2.0","id":"7","result":{}}',
    '{"jsonrpc":"2.0","id":1.0,"result":{}}',
    '{"jsonrpc":"2.0","id":true,"result":{}}',
    '{"jsonrpc":"2.0","id":1,"result":{"x":123456789012345678901234567890,"y":1e400,"z":-0.0}}',
    '{"jsonrpc":"2.0","id":1,"result":{"x":1,"x":2}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m","data":{"k":[1]}}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\\ud800"}}',
    '{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"x":1},"extra":1}',
    '{"jsonrpc":"1.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":1,"result":[]}',
    '{"jsonrpc":"2.0"}',
    "[]",
    "not json",
    '{"jsonrpc":"2.0","id":1,"result":{"cut": [1, 2',
]


def sdk_parse(data: str | bytes) -> tuple[str, Any]:
    try:
        return "message", jsonrpc_message_adapter.validate_json(data, by_name=False)
    except Exception as exc:
        return "error", exc


@pytest.mark.parametrize("text", MESSAGES)
@pytest.mark.parametrize("as_bytes", [False, True])
def test_parse_message_gives_the_sdks_message_or_error(text, as_bytes):
    data = text.encode("utf-8", "surrogatepass") if as_bytes else text
    kind, expected = sdk_parse(data)
    try:
        got: Any = parse_message(data, lean_from=0)  # the lean path, whatever the size
    except Exception as exc:
        got = exc
    if kind == "message":
        assert type(got) is type(expected) and repr(got) == repr(expected)
    else:
        assert type(got) is type(expected) and str(got) == str(expected)  # the SDK's own error


def test_small_messages_keep_the_sdks_parser(monkeypatch):
    called = []
    monkeypatch.setattr("pydantic_core.from_json", lambda *a, **k: called.append(1))
    parse_message(MESSAGES[0])
    assert not called and len(MESSAGES[0]) < LEAN_FROM


def message_of(rows: int) -> str:
    data = {"rows": [{"id": i, "name": f"row {i}", "score": i * 0.5} for i in range(rows)]}
    result = {"content": [{"type": "text", "text": json.dumps(data, indent=2)}], "structuredContent": data}
    return json.dumps({"jsonrpc": "2.0", "id": 5, "result": result})


def test_parsing_a_large_message_peaks_at_a_small_multiple_of_its_size():
    """Python allocations only: the SDK parser's own JSON tree (most of its 15× peak) is Rust's and
    not seen here. Measured: 2.1× the message's size; 3.5× through the SDK's parser."""
    text = message_of(20_000)
    gc.collect()
    tracemalloc.start()
    try:
        message = parse_message(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert message.result["structuredContent"]["rows"][-1]["id"] == 19_999
    assert peak < 3 * len(text), f"parsing peaked at {peak / len(text):.1f}× the message's size"


@pytest.mark.parametrize(("transport", "bound"), [("stdio", 3.3), ("http", 3.3), ("sse", 6.4)])
def test_a_large_call_peaks_at_a_small_multiple_of_the_message(pool, request, transport, bound):
    """Receiving, the session's surface check included (Python allocations only; the server is
    another process). Measured: 2.7-2.85× the message's size; 3.7-3.9× when the surface check
    copies the structured content again; 5.2-6.2× with the SDK's parser too. Legacy HTTP+SSE:
    httpx2's event parser holds the event's text a few times over while it splits it into lines
    (5.7× lean, 7.1× with the SDK's parser)."""
    if transport == "stdio":
        pool.connect("demo", **demo_command())
    elif transport == "sse":
        pool.connect("demo", url=request.getfixturevalue("sse_url"), transport="sse")
    else:
        pool.connect("demo", url=request.getfixturevalue("http_url"), era="modern")
    pool.call("demo", "rows", {"n": 10})
    gc.collect()
    tracemalloc.start()
    try:
        result = pool.call("demo", "rows", {"n": 20_000})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = len(json.dumps(result.raw))
    assert len(result.data["rows"]) == 20_000
    assert peak < bound * size, f"the call peaked at {peak / size:.1f}× the message's size"


PLAIN_OR_NEARLY = [
    {"content": [{"type": "text", "text": "hi"}]},
    {"content": [{"type": "text", "text": "hi"}], "isError": False, "_meta": {"k": 1}},
    {"content": [], "structuredContent": {"rows": [1, 2]}},
    {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "isError": True},
    # just outside the plain shape: the full reading decides
    {"content": [{"type": "text", "text": 3}]},
    {"content": [{"type": "text", "text": "x", "annotations": None}]},
    {"content": [{"type": "txt", "text": "x"}]},
    {"content": [{"type": "text", "text": "x"}], "isError": None},
    {"content": [{"type": "text", "text": "x"}], "isError": "true"},
    {"content": [{"type": "text", "text": "x"}], "_meta": [1]},
    {"content": [{"type": "text", "text": "x"}], "structuredContent": [1, 2]},
    {"content": "hi"},
    {"structuredContent": {"a": 1}},
    {"content": [{"type": "text", "text": "x"}], "resultType": "task", "task": {"taskId": "t"}},
]


@pytest.mark.parametrize("raw", PLAIN_OR_NEARLY)
@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_the_quick_reading_of_a_plain_result_is_the_full_readings(raw, version, monkeypatch):
    """A result of text blocks is read without the blocks' pydantic check (issue 13: ~10 µs of
    every call); what comes out is what the full reading gives, for it and for results one step
    off that shape."""
    from mcpnb.client import lean

    quick = lean.readable_result(raw, version)
    monkeypatch.setattr(lean, "_plainly_readable", lambda _raw: False)
    assert quick == lean.readable_result(raw, version)
