"""Lists that come in pages: every page of tools, resources, resource templates and prompts, read
from FastMCP with ``list_page_size=3`` (a pagination we did not write), over stdio."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import ROOT

from mcpnb.client.paging import MAX_PAGES, every_page
from tests.peers.fastmcp_venv import fastmcp_python

CATALOG = ROOT / "tests" / "servers" / "fastmcp_catalog_server.py"


@pytest.fixture
def catalog(pool: Any) -> str:
    pool.connect("catalog", command=str(fastmcp_python()), args=[str(CATALOG)])
    return "catalog"


def test_every_page_of_every_list_is_read(pool: Any, catalog: str) -> None:
    assert [t.name for t in pool.tools(catalog)] == [f"tool_{i}" for i in range(7)]
    assert [str(r.uri) for r in pool.resources(catalog)] == [f"catalog://item/{i}" for i in range(7)]
    templates = [t.uri_template for t in pool.resource_templates(catalog)]
    assert templates == [f"catalog://shelf{i}/{{key}}" for i in range(4)]
    assert [p.name for p in pool.prompts(catalog)] == [f"prompt_{i}" for i in range(5)]
    read = pool.read(catalog, "catalog://shelf3/abc")  # a template filled in
    assert read.contents[0].text == "shelf 3, key abc"


def test_a_cursor_handed_out_twice_ends_the_walk() -> None:
    """A server stuck on one page must not hang the notebook: what it listed so far is kept."""
    asked: list[str | None] = []

    async def stuck(cursor: str | None) -> Any:
        asked.append(cursor)
        return SimpleNamespace(items=[len(asked)], next_cursor="again")

    cut: list[str] = []
    assert asyncio.run(every_page(stuck, "items", on_cut=cut.append)) == [1, 2]
    assert asked == [None, "again"]
    assert cut == [
        "the server handed out cursor 'again' twice; kept the 2 items listed so far, "
        "the list may be incomplete"
    ]


def test_a_server_that_makes_up_cursors_forever_is_stopped_and_the_log_says_so(pool: Any) -> None:
    """A new cursor on every page: the walk stops at ``MAX_PAGES`` and the server's log says why."""
    from mcp import types
    from mcp.server import Server

    pages: list[str | None] = []

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        pages.append(cursor)
        item = types.Resource(uri=f"endless://{len(pages)}", name=f"r{len(pages)}")
        return types.ListResourcesResult(resources=[item], next_cursor=f"page-{len(pages)}")

    endless = Server("endless", version="1.0", on_list_resources=list_resources)
    pool.connect("endless", server=endless)
    listed = pool.resources("endless")
    assert len(listed) == len(pages) == MAX_PAGES  # every page asked for is kept
    said = [e.message for e in pool.connection("endless").events.history if e.kind == "paging"]
    assert said == [
        f"resources/list: stopped after {MAX_PAGES} pages; kept the {MAX_PAGES} items listed so far, "
        "the list may be incomplete"
    ]
