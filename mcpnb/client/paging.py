"""Lists that come in pages (``nextCursor``): tools, resources, resource templates, prompts, tasks.

A server decides its page size (FastMCP's ``list_page_size``, say); a client that reads only the
first page shows a person part of what the server offers and no sign that more exists.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

#: More pages than any real list needs (a thousand resources at ten a page is a hundred): past it,
#: the server is taken to hand out cursors forever.
MAX_PAGES = 1000


async def every_page(
    fetch: Callable[[str | None], Awaitable[Any]],
    field: str,
    *,
    max_pages: int = MAX_PAGES,
    on_cut: Callable[[str], None] | None = None,
) -> list[Any]:
    """Every item of a paginated list: ``fetch(cursor)`` for each page, ``field`` holding its items.

    A cursor the server hands out a second time, or a walk past ``max_pages``, ends it: a server
    stuck on one page, or making up cursors, must not hang the notebook. What it listed so far is
    kept, and ``on_cut`` hears why the list may be incomplete (for the server's log).
    """
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        page = await fetch(cursor)
        items += getattr(page, field)
        cursor = page.next_cursor
        if not cursor:
            return items
        if cursor in seen:
            why = f"the server handed out cursor {cursor[:40]!r} twice"
        elif len(seen) + 1 >= max_pages:
            why = f"stopped after {max_pages} pages"
        else:
            seen.add(cursor)
            continue
        if on_cut is not None:
            on_cut(f"{why}; kept the {len(items)} items listed so far, the list may be incomplete")
        return items
