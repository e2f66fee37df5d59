"""Rendering real results from the third-party ``@modelcontextprotocol/server-everything`` over stdio."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from mcpnb.client.results import ToolResult
from mcpnb.notebook.render import result_bundle

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tiny": ("get-tiny-image", {}),
    "annotated": ("get-annotated-message", {"messageType": "error", "includeImage": True}),
    "links": ("get-resource-links", {"count": 3}),
    "blob": ("get-resource-reference", {"resourceType": "Blob", "resourceId": 2}),
    "text": ("get-resource-reference", {"resourceType": "Text", "resourceId": 1}),
    "weather": ("get-structured-content", {"location": "Chicago"}),
}


@pytest.fixture(scope="module")
async def results(everything: str) -> dict[str, ToolResult]:
    """One stdio session, every call made once; the tests only look at the results."""
    params = StdioServerParameters(command="node", args=[everything, "stdio"])
    out: dict[str, ToolResult] = {}
    async with Client(params) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for key, (tool, args) in CALLS.items():
            r = await client.call_tool(tool, args)
            out[key] = ToolResult.from_sdk(
                "everything", tool, r, elapsed=0.02, output_schema=tools[tool].output_schema
            )
    return out


@pytest.mark.anyio
async def test_tiny_image(results: dict[str, ToolResult]) -> None:
    r = results["tiny"]
    b = result_bundle(r)
    image = next(c for c in r.content if c.type == "image")
    assert b["image/png"] == image.data
    assert f'<img src="data:image/png;base64,{image.data}"' in b["text/html"]
    size = len(base64.b64decode(image.data))
    assert f"[image image/png, {size / 1000:.1f} kB]" in b["text/plain"]
    assert b["text/plain"].count("\n") >= 3  # text, image, text


@pytest.mark.anyio
async def test_annotated_message(results: dict[str, ToolResult]) -> None:
    b = result_bundle(results["annotated"])
    assert "Error: Operation failed" in b["text/html"]
    assert "for user &amp; assistant · priority 1.0" in b["text/html"]
    assert "(for user & assistant · priority 1.0)" in b["text/plain"]
    assert "for user · priority 0.5" in b["text/html"]  # the image's own annotations
    assert "image/png" in b and "<img " in b["text/html"]


@pytest.mark.anyio
async def test_resource_links(results: dict[str, ToolResult]) -> None:
    b = result_bundle(results["links"])
    html, text = b["text/html"], b["text/plain"]
    for i in (1, 2, 3):
        assert f"Resource {i}" in html
    assert html.count('class="mcpnb-card"') == 3
    uri = next(c.uri for c in results["links"].content if c.type == "resource_link")
    assert f"%mcp read everything {uri}" in html and f"%mcp read everything {uri}" in text
    assert "href=" not in html  # demo:// is not a web link: no href, only the read hint
    assert "→ " in text and "text/plain" in text


@pytest.mark.anyio
async def test_embedded_text_blob_is_summarized_and_read(results: dict[str, ToolResult]) -> None:
    r = results["blob"]
    blob = next(c.resource for c in r.content if c.type == "resource")
    raw = base64.b64decode(blob.blob)
    b = result_bundle(r)
    assert f"blob, {len(raw)} B, text/plain" in b["text/html"]
    assert f"[resource demo://resource/dynamic/blob/2: blob, {len(raw)} B, text/plain]" in b["text/plain"]
    assert blob.blob not in b["text/html"]  # summarized, not dumped as base64
    assert (
        "save it: result.save(&#x27;.&#x27;) (as 2.txt)" in b["text/html"]
    )  # the bytes are here: no read again
    assert "  save it: result.save('.') (as 2.txt)\n" in b["text/plain"]
    # its bytes are text/plain: the person reads them, as they would in a browser
    assert raw.decode() in b["text/plain"] and raw.decode() in b["text/html"]


@pytest.mark.anyio
async def test_embedded_text_is_shown(results: dict[str, ToolResult]) -> None:
    r = results["text"]
    res = next(c.resource for c in r.content if c.type == "resource")
    b = result_bundle(r)
    assert res.text.splitlines()[0] in b["text/plain"]
    assert "embedded resource" in b["text/html"] and "<pre>" in b["text/html"]


@pytest.mark.anyio
async def test_structured_content_with_valid_schema(results: dict[str, ToolResult]) -> None:
    r = results["weather"]
    assert r.schema_valid is True
    b = result_bundle(r)
    html = b["text/html"]
    assert "✓ outputSchema" in html
    assert "structured content · object, 3 keys" in html and "&quot;temperature&quot;" in html
    assert "1 text block repeats the structured content" in html  # the JSON text mirror is folded away
    assert "schema ✓" in b["text/plain"]
