"""Tab after a resource URI (``%mcp read``, ``subscribe``, ``unsubscribe``): the URIs that fit what
is typed, a resource template's values from the server, and nothing else.

``%mcp subscribe ev demo<Tab>`` offered file names and IPython's magics (``LICENSE``, ``%alias``),
and ``%mcp read ev demo://resource/dynamic/text/<Tab>`` every static URI (IPython matched the part
after the last ``/``, which is empty), none of which starts so.
"""

from __future__ import annotations

from typing import Any

from conftest import EVERYTHING

from mcpnb.notebook.magics.completion import candidates

from .conftest import complete, line

DOC = "demo://resource/static/document/architecture.md"
TEXT = "demo://resource/dynamic/text/"


def editor(ip: Any, text: str) -> list[tuple[str, str, str]]:
    """What an editor (ipykernel's ``do_complete``) gets: text, type, and the part replaced."""
    from IPython.core.completer import provisionalcompleter

    with provisionalcompleter():
        return [(c.text, c.type, text[c.start : c.end]) for c in ip.Completer.completions(text, len(text))]


def test_subscribe_offers_the_server_s_uris_and_unsubscribe_what_it_watches(ip, mcp, everything):
    line(ip, f"connect ev -- node {EVERYTHING} stdio")
    offered = complete(ip, "%mcp subscribe ev ")  # was Python's keywords, then %%!, %alias, …
    assert DOC in offered and all(text.startswith("demo://") for text in offered), offered
    begun = editor(ip, "%mcp subscribe ev demo")
    assert (DOC, "resource", "demo") in begun
    assert all(text.startswith("demo://") and kind == "resource" for text, kind, _ in begun), begun
    assert DOC in complete(ip, "%mcp subscribe ev demo")
    assert editor(ip, "%mcp subscribe ev nothing:like/this") == []  # not LICENSE, not %alias
    assert editor(ip, "%mcp unsubscribe ev demo") == []  # nothing is watched: nothing to stop
    line(ip, f"subscribe ev {DOC}")
    try:
        assert editor(ip, "%mcp unsubscribe ev demo") == [(DOC, "resource", "demo")]
        assert complete(ip, "%mcp unsubscribe ev ") == [DOC]
    finally:
        line(ip, f"unsubscribe ev {DOC}")


def test_read_offers_only_uris_that_begin_as_typed_and_a_template_s_values(ip, mcp, everything):
    """server-everything's text template completes ``{resourceId}`` (a positive integer it echoes):
    ``…/text/`` has none to offer, ``…/text/3`` is offered whole; its fixed text is offered up to
    the variable."""
    line(ip, f"connect ev -- node {EVERYTHING} stdio")
    assert candidates(mcp.pool, f"%mcp read ev {TEXT}") == []  # were the 7 static documents
    assert editor(ip, f"%mcp read ev {TEXT}") == []
    assert complete(ip, f"%mcp read ev {TEXT}") == []
    assert editor(ip, f"%mcp read ev {TEXT}3") == [(f"{TEXT}3", "resource", f"{TEXT}3")]
    assert complete(ip, f"%mcp read ev {TEXT}3") == [f"{TEXT}3"]
    heads = [text for text, _, _ in editor(ip, "%mcp read ev demo://resource/dyn")]
    assert heads == [TEXT, "demo://resource/dynamic/blob/"]
    assert DOC in complete(ip, "%mcp read ev demo://resource/s")  # the listed ones still come
    assert "Resource 3" in line(ip, f"read ev {TEXT}3").text  # what is offered reads


def catalogue() -> Any:
    """FastMCP with a two-variable template whose completion handler answers the second from the
    first (the context), and a value with a space in it."""
    import fastmcp
    from mcp_types import ResourceTemplateReference

    srv = fastmcp.FastMCP("catalogue")
    shelves = {"reports": ["q1 summary", "q2"], "notes": ["todo"]}

    @srv.resource("cat://{shelf}/{item}")
    def item(shelf: str, item: str) -> str:
        return f"{shelf} has {item}"

    @srv.completion
    def complete_it(ref: Any, argument: Any, context: Any) -> list[str] | None:
        if not isinstance(ref, ResourceTemplateReference) or ref.uri != "cat://{shelf}/{item}":
            return None
        if argument.name == "shelf":
            return [s for s in shelves if s.startswith(argument.value)]
        shelf = ((context.arguments or {}) if context else {}).get("shelf", "")
        return [i for i in shelves.get(shelf, []) if i.startswith(argument.value)]

    return srv


def test_a_template_s_variables_complete_in_turn_with_the_ones_before_as_context(ip, mcp):
    mcp.pool.connect("cat", server=catalogue())
    assert complete(ip, "%mcp read cat ") == ["cat://"]  # its fixed text, up to {shelf}
    assert complete(ip, "%mcp read cat cat://r") == ["cat://reports"]
    assert complete(ip, "%mcp subscribe cat cat://") == ["cat://reports", "cat://notes"]
    # the second variable: the server is told shelf=reports; a space is written as a URI writes it
    assert complete(ip, "%mcp read cat cat://reports/") == ["cat://reports/q1%20summary", "cat://reports/q2"]
    assert complete(ip, "%mcp read cat cat://notes/t") == ["cat://notes/todo"]
    assert editor(ip, "%mcp read cat cat://notes/x") == []
    assert line(ip, "read cat cat://reports/q1%20summary").text == "reports has q1 summary"
