"""Results of the MCP project's filesystem and memory reference servers (``tests/peers``), as a
person sees them: each shown once, and a result that holds two tables drawn as two tables."""

from __future__ import annotations

import base64
import html

import pytest

from mcpnb.client.frames import NotTabularError
from mcpnb.notebook.render import result_bundle
from tests.conftest import reference_server


@pytest.fixture
def files(pool, tmp_path):
    """server-filesystem over stdio, allowed into ``tmp_path`` (a text file and a PNG in it)."""
    (tmp_path / "notes.txt").write_text("first line\nsecond line\n")
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    (tmp_path / "dot.png").write_bytes(png)
    pool.connect("fs", command="node", args=[reference_server("server-filesystem"), str(tmp_path)])
    return tmp_path


def test_a_text_its_structured_content_only_wraps_is_shown_once(pool, files):
    """The server answers ``{"content": <the text>}`` beside the text: the text was shown, then
    again inside a JSON object with its line breaks escaped."""
    result = pool.call("fs", "read_text_file", {"path": str(files / "notes.txt")})
    assert result.structured == {"content": "first line\nsecond line\n"}  # what the server sends
    bundle = result_bundle(result)
    for shown in (bundle["text/plain"], html.unescape(bundle["text/html"])):
        assert shown.count("second line") == 1
        assert "structured content: {'content': the content above} (result.structured)" in shown
    assert "\\n" not in bundle["text/plain"]
    listing = result_bundle(pool.call("fs", "list_directory", {"path": str(files)}))["text/plain"]
    assert listing.count("notes.txt") == 1 and "the content above" in listing


def test_an_image_its_structured_content_repeats_is_shown_once(pool, files):
    """``{"content": [{"type": "image", "data": ...}]}``: it was a one-row table of base64 text."""
    result = pool.call("fs", "read_media_file", {"path": str(files / "dot.png")})
    data = next(b.data for b in result.content if b.type == "image")
    bundle = result_bundle(result)
    assert bundle["image/png"] == data
    assert bundle["text/html"].count(data) == 1 and data not in bundle["text/plain"]
    assert "{'content': the content above}" in bundle["text/plain"]


def test_structured_content_that_adds_to_the_text_is_still_shown(pool, files):
    """Only a wrapper of the very content is folded: an error, or other data, is shown as before."""
    refused = result_bundle(pool.call("fs", "read_text_file", {"path": "/etc/hostname"}))["text/plain"]
    assert "The server reported an error" in refused and "the content above" not in refused


@pytest.fixture
def graph(pool, tmp_path):
    """server-memory over stdio, its knowledge graph in a file of ``tmp_path``."""
    memory = reference_server("server-memory")
    pool.connect(
        "mem", command="node", args=[memory], env={"MEMORY_FILE_PATH": str(tmp_path / "graph.jsonl")}
    )
    people = [
        {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]},
        {"name": "Charles", "entityType": "person", "observations": ["designed the analytical engine"]},
    ]
    pool.call("mem", "create_entities", {"entities": people})
    return "mem"


def test_a_graph_is_two_tables_and_df_says_to_take_one(pool, graph):
    """``read_graph`` is ``{"entities": [...], "relations": [...]}``: ``.df`` said "the columns have
    different lengths [0, 2]" while there were no relations yet, and the display was JSON."""
    empty = pool.call(graph, "read_graph")
    with pytest.raises(NotTabularError, match=r"several tables \(entities, relations\); use \.dfs"):
        empty.df  # noqa: B018
    assert list(empty.dfs) == ["entities", "relations"] and empty.dfs["relations"].empty
    shown = result_bundle(empty)["text/plain"]
    assert "entities (2 rows × 3 columns):" in shown and "relations (no rows):" in shown
    relation = {"from": "Ada", "to": "Charles", "relationType": "corresponded with"}
    pool.call(graph, "create_relations", {"relations": [relation]})
    full = pool.call(graph, "read_graph")
    bundle = result_bundle(full)
    assert "relations (1 row × 3 columns):" in bundle["text/plain"]
    assert bundle["text/plain"].count("corresponded with") == 1  # its JSON text copy is folded
    assert bundle["text/html"].count("<table") == 2
    assert full.dfs["relations"].to_dict("records") == [relation]


def test_df_of_a_json_text_the_structured_content_only_wraps_is_its_table(pool, files):
    """``directory_tree`` answers JSON text, and ``{"content": <that text>}`` as structured content:
    ``.df`` was one row holding the JSON as a string."""
    tree = pool.call("fs", "directory_tree", {"path": str(files)})
    assert sorted(tree.df["name"]) == ["dot.png", "notes.txt"] and set(tree.df["type"]) == {"file"}
    listing = pool.call("fs", "list_directory", {"path": str(files)})
    assert list(listing.df.columns) == ["content"]  # plain text: the payload as it is
