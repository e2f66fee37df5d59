"""A tool result with parts MCP does not allow loses nothing: a content block of a type the SDK does
not know (or one it knows, written wrong) and a 2025-11-25 ``structuredContent`` that is not an
object used to fail the whole call ("ValidationError: 11 validation errors for CallToolResult"),
the good blocks with it. Now the good parts arrive as sent, the bad ones are kept where they were,
and the result says what was wrong (``warnings``, shown with it as an outputSchema mismatch is).

The server is written by hand (tests/servers/odd_results_server.py): no SDK server sends such
results. It speaks either era over stdio, and the lean receive path that keeps them differs by era.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcpnb.client.contents import AS_SENT, readable_content

ODD = str(Path(__file__).resolve().parents[1] / "servers" / "odd_results_server.py")
HOLOGRAM = {"type": "hologram", "data": "zzz", "angle": [1, 2.5]}
VERSION = {"legacy": "2025-11-25", "modern": "2026-07-28"}


@pytest.fixture(params=["legacy", "modern"])
def odd(request, pool):
    """A pool connected to the hand-written server as ``odd``, in the era the test is run for."""
    pool.connect("odd", command=sys.executable, args=[ODD, request.param], tool_timeout=10)
    assert pool.status()["odd"].era == request.param
    return pool, request.param


def test_a_block_of_an_unknown_type_is_kept_and_said(odd):
    pool, era = odd
    result = pool.call("odd", "weird_content")

    assert not result.is_error
    unknown, after = result.content
    assert after.type == "text" and after.text == "after"  # the good block, as sent
    assert unknown.type == "text" and unknown.text.startswith("[content of unknown type 'hologram'")
    assert '"angle": [1, 2.5]' in unknown.text  # its JSON, readable where it was
    assert unknown.meta[AS_SENT] == HOLOGRAM  # the block itself, as sent
    assert result.raw["content"][0]["_meta"][AS_SENT] == HOLOGRAM
    assert result.text.endswith("\n\nafter")

    [said] = result.warnings
    assert said.startswith(
        f"result.content[0] is of type 'hologram', which MCP {VERSION[era]} does not define"
    )
    assert result.schema_valid is None  # the tool declares no outputSchema: nothing to say of it
    assert f"(! {said})" in repr(result)
    from mcpnb.notebook.render import result_bundle

    bundle = result_bundle(result)
    assert f"⚠ {said}" in bundle["text/plain"] and "hologram" in bundle["text/html"]
    assert "outputSchema" not in bundle["text/html"]
    assert pool.call("odd", "echo", {"text": "still here"}).text == "still here"


def test_a_list_as_structured_content_is_kept_and_said_where_mcp_forbids_it(odd):
    pool, era = odd
    result = pool.call("odd", "list_structured")

    assert result.structured == [1, 2, 3] and result.data == [1, 2, 3]
    assert result.text == "three numbers"
    if era == "legacy":  # 2025-11-25 allows only an object
        assert result.warnings == [
            "structuredContent is a list, but MCP 2025-11-25 allows only an object there: "
            "kept as sent (result.structured)"
        ]
        assert result.schema_valid is None
    else:  # 2026-07-28 allows any JSON value: nothing wrong
        assert result.warnings == [] and result.schema_valid is None


def test_a_result_wrong_everywhere_still_arrives(odd):
    pool, era = odd
    result = pool.call("odd", "garbage")  # content a string, structuredContent a list

    [block] = result.content
    assert block.text == '[content that is a string, not a list of blocks, as sent: "not a list"]'
    assert block.meta[AS_SENT] == "not a list"
    assert result.structured == [1, 2, 3]
    said = "result.content is a string, not a list of content blocks: kept as one text block"
    assert result.warnings[0] == said
    assert len(result.warnings) == (2 if era == "legacy" else 1)


def test_blocks_written_wrong_are_kept_beside_the_good_ones(odd):
    pool, era = odd
    result = pool.call("odd", "broken_blocks")  # an image without data, a bare string, then text

    image, loose, kept = result.content
    assert kept.text == "kept"
    assert image.meta[AS_SENT] == {"type": "image", "mimeType": "image/png"}
    assert "data: Field required" in image.text
    assert loose.meta[AS_SENT] == "loose words"
    first, second = result.warnings
    assert first.startswith(f"result.content[0] is an image block that MCP {VERSION[era]} does not allow")
    assert "data: Field required" in first
    assert second.startswith("result.content[1] is a string, not a content block")


def test_the_outputschema_check_still_runs_beside_the_warning(pool):
    pool.connect("odd", command=sys.executable, args=[ODD, "legacy"], tool_timeout=10)
    result = pool.call("odd", "typed_list")
    assert result.structured == [1, 2, 3]
    assert result.warnings[0].startswith("structuredContent is a list")
    assert 'is not of type "object"' in result.schema_error  # the tool's own promise, checked too
    assert result.schema_valid is False


def test_good_content_is_not_copied():
    content = [{"type": "text", "text": "hi"}, {"type": "image", "data": "aGk=", "mimeType": "image/png"}]
    for version in VERSION.values():
        assert readable_content(content, version) == (None, [])


@pytest.mark.parametrize(
    ("tool", "is_error", "said"),
    [
        ("worded_error", True, 'result.isError is a string ("error"), not true/false: read as true'),
        ("null_error", False, "result.isError is null, not true/false: read as false"),
        (
            "list_meta",
            False,
            "result._meta is a list, not an object: kept as sent in result.meta['mcpnb/as-sent']",
        ),
    ],
)
def test_an_is_error_or_meta_of_the_wrong_kind_is_read_and_said(odd, tool, is_error, said):
    # the SDK refused the whole result ("1 validation error for CallToolResult"), its text with it
    pool, _era = odd
    result = pool.call("odd", tool)
    assert result.is_error is is_error and result.warnings == [said]
    assert result.text == {"worded_error": "disk full", "null_error": "fine", "list_meta": "tagged"}[tool]
    if tool == "list_meta":
        assert result.meta == {AS_SENT: ["a", "b"]}


def test_structured_content_without_content_is_the_result_and_said(odd):
    """``content`` is required by MCP; a server that sent its data alone was refused whole (a
    ValidationError whose reason was cut off). The data is the result, and the warning says why."""
    pool, _era = odd
    result = pool.call("odd", "structured_only")
    assert not result.is_error and result.data == {"rows": [{"n": 1}, {"n": 2}]}
    assert list(result.df["n"]) == [1, 2] and result.content == []
    assert result.warnings == [
        "the result has no content, which MCP requires: read as none (result.structured has the data)"
    ]
