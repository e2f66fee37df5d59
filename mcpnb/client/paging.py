"""Lists that come in pages (``nextCursor``): tools, resources, resource templates, prompts.

A server decides its page size (FastMCP's ``list_page_size``, say); a client that reads only the
first page shows a person part of what the server offers and no sign that more exists.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any


async def every_page(fetch: Callable[[str | None], Awaitable[Any]], field: str) -> list[Any]:
    """Every item of a paginated list: ``fetch(cursor)`` for each page, ``field`` holding its items.

    A cursor the server hands out a second time ends the walk: a server stuck on one page must not
    hang the notebook (what it listed so far is kept).
    """
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        page = await fetch(cursor)
        items += getattr(page, field)
        cursor = page.next_cursor
        if not cursor or cursor in seen:
            return items
        seen.add(cursor)
