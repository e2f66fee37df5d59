"""Large structured results arrive whole over every transport (the SDK's 1 MiB SSE event limit refused
them in the 2025-11-25 era and over legacy HTTP+SSE, where a tool result travels as one server-sent
event, and the refusal ended the whole connection)."""

from __future__ import annotations

import anyio
import pytest
from conftest import demo_command

from mcpnb.client.errors import leaves

ROWS = 20_000  # about 1.7 MB of JSON: over the SDK's default 1 MiB event limit


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_result_over_one_mebibyte_over_http(pool, http_url, era):
    pool.connect("demo", url=http_url, era=era)
    result = pool.call("demo", "rows", {"n": ROWS})
    assert not result.is_error, result.text[:300]
    assert len(result.data["rows"]) == ROWS and result.data["rows"][-1]["id"] == ROWS - 1
    assert result.schema_valid is True
    assert len(result.df) == ROWS


def test_a_result_over_one_mebibyte_over_stdio(pool):
    pool.connect("demo", **demo_command())
    result = pool.call("demo", "rows", {"n": ROWS})
    assert len(result.data["rows"]) == ROWS and result.schema_valid is True


def test_a_result_over_one_mebibyte_over_sse(pool, sse_url):
    pool.connect("demo", url=sse_url, transport="sse")
    result = pool.call("demo", "rows", {"n": ROWS})
    assert len(result.data["rows"]) == ROWS and result.schema_valid is True
    assert pool.status()["demo"].state == "connected" and pool.status()["demo"].retries == 0


def test_the_sdks_own_sse_clients_keep_its_limit(pool, sse_url):
    """Only mcpnb's connections get the larger limit: a raw SDK client in the same process, after
    mcpnb's connection was opened, still refuses the same result as the SDK does."""
    from mcp import Client
    from mcp.client.sse import sse_client

    pool.connect("demo", url=sse_url, transport="sse")
    assert len(pool.call("demo", "rows", {"n": ROWS}).data["rows"]) == ROWS

    async def raw() -> None:
        with anyio.fail_after(60):
            async with Client(sse_client(sse_url), mode="legacy") as client:
                await client.call_tool("rows", {"n": ROWS})

    with pytest.raises(BaseException) as info:  # the SDK raises an exception group
        anyio.run(raw)
    assert any("byte limit" in str(leaf) for leaf in leaves(info.value))


def test_max_message_mb_bounds_a_server_sent_event_and_says_which_key(pool, http_url):
    """In the 2025-11-25 era a result is one server-sent event on its own response stream: past
    ``max_message_mb`` that call says which setting refused it (the SDK's words name a byte count
    only) and the session is untouched."""
    from mcpnb import CallError

    pool.connect("tight", url=http_url, era="legacy", max_message_mb=0.5)
    with pytest.raises(CallError) as info:
        pool.call("tight", "rows", {"n": ROWS})
    assert str(info.value) == (
        "rows() on 'tight' failed: the server sent a message over max_message_mb=0.5 (MB) and the "
        "stream was closed; raise max_message_mb if its answers are meant to be that large"
    )
    assert pool.call("tight", "rows", {"n": 10}).data["rows"][-1]["id"] == 9  # the session goes on
    row = pool.status()["tight"]
    assert row.state == "connected" and row.retries == 0
    pool.connect("roomy", url=http_url, era="legacy", max_message_mb=16)  # text and structure: 2× the table
    assert len(pool.call("roomy", "rows", {"n": ROWS}).data["rows"]) == ROWS


def test_max_message_mb_reaches_the_legacy_sse_transport(pool, sse_url):
    from mcpnb import CallError

    pool.connect("tight", url=sse_url, transport="sse", max_message_mb=0.5, max_retries=0)
    with pytest.raises(CallError) as info:
        pool.call("tight", "rows", {"n": ROWS})
    assert "'tight' sent a message over max_message_mb=0.5 (MB)" in str(info.value)
    row = pool.status()["tight"]
    assert row.state == "failed" and "raise max_message_mb for server 'tight'" in row.last_error
    pool.connect("roomy", url=sse_url, transport="sse", max_message_mb=16)  # text and structure: 2× the table
    assert len(pool.call("roomy", "rows", {"n": ROWS}).data["rows"]) == ROWS


def test_the_repr_of_a_large_result_is_a_glance(pool):
    """print(result) in a plain REPL: the data's shape and first rows when its text only repeats the
    data, else the head of the text, and where the rest is; not 2.5 MB of rows."""
    from mcpnb.client.results import ToolResult

    pool.connect("demo", **demo_command())
    result = pool.call("demo", "rows", {"n": ROWS})
    shape = "20000 rows × 5 columns under rows (result.df): id, name, score, active, group"
    for glance in repr(result), repr(ToolResult("demo", "rows", content=[], structured=result.structured)):
        # its text only repeats the data (or there is none): the data's shape and first rows
        assert len(glance) < 600 and glance.splitlines()[1] == shape
        assert '\n{"id": 0, "name": "row 0"' in glance
        assert glance.endswith("… 19995 more rows (result.df has them all)")
    text_only = ToolResult("demo", "rows", content=result.content)
    shown, hidden = repr(text_only), len(result.text) - 2000
    assert len(shown) < 2200 and shown.endswith(f"… {hidden} more characters (result.text has all)")
    assert result.text[:2000] in shown
    small = ToolResult("demo", "rows", content=[], structured={"rows": []})
    assert repr(small).endswith('\n{"rows": []}')  # whole when it fits


def test_a_large_result_that_breaks_its_schema_shows_a_short_warning(pool):
    """The warning quoted the whole offending value: one mismatch in 100,000 rows made a 12 MB
    HTML output (and 6 MB of text), saved with the notebook. The data still shows, the warning
    says where and how much."""
    from mcp import types
    from mcp.server import Server

    rows = [{"id": i, "name": "x" * 50} for i in range(100_000)]
    schema = {"type": "object", "properties": {"rows": {"type": "object"}}}

    async def list_tools(ctx, params) -> types.ListToolsResult:
        tool = types.Tool(name="rows", input_schema={"type": "object"}, output_schema=schema)
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx, params) -> types.CallToolResult:
        return types.CallToolResult(content=[], structured_content={"rows": rows})

    pool.connect("big", server=Server("big", on_list_tools=list_tools, on_call_tool=call_tool))
    result = pool.call("big", "rows")
    assert result.schema_valid is False and len(result.df) == 100_000
    assert result.schema_error.endswith('… (an array of 100000 items) is not of type "object"')
    bundle = result._repr_mimebundle_()
    assert all(
        "(an array of 100000 items) is not of type" in bundle[kind] for kind in ("text/plain", "text/html")
    )
    assert len(bundle["text/html"]) < 100_000 and len(bundle["text/plain"]) < 20_000, (
        len(bundle["text/html"]),
        len(bundle["text/plain"]),
    )
