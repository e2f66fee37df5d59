"""Tab in a prompt argument and in a resource template's variables: the values already typed go to
the server as ``context.arguments`` read as the line reads them, and a value is written into the URI
as RFC 6570 writes it for its expression (``{var}``, ``{+path}``, ``{#frag}``, ``{?q,lang}``)."""

from __future__ import annotations

from typing import Any

from conftest import EVERYTHING

from .conftest import complete, line

PROMPT = "%mcp prompt ev.completable-prompt"


def test_a_quoted_argument_goes_as_context_without_its_quotes(ip, mcp, everything):
    """server-everything's completable-prompt narrows ``name`` by ``department`` (its context): the
    line reads ``department="Sales"`` as ``Sales``, and so must the context (it sent ``"Sales"``,
    quotes and all, and the server offered nobody)."""
    line(ip, f"connect ev -- node {EVERYTHING} stdio")
    sales = ["David", "Eve", "Frank"]
    assert complete(ip, f"{PROMPT} department=Sales name=") == sales
    assert complete(ip, f'{PROMPT} department="Sales" name=') == sales
    assert complete(ip, f"{PROMPT} department='Sales' name=") == sales
    assert complete(ip, f'{PROMPT} department="Sales" name="D') == ['"David"']  # begun quoted
    assert complete(ip, f"{PROMPT} name=E department=Sa") == ["Sales"]


def test_rfc_6570_writes_each_expression_s_value_so():
    """RFC 6570 section 3.2's own examples (hello = "Hello World!", half = "50%")."""
    from mcpnb.notebook.magics.completion import expanded

    assert expanded("Hello World!") == "Hello%20World%21"  # {hello}
    assert expanded("Hello World!", reserved=True) == "Hello%20World!"  # {+hello}, {#hello}
    assert expanded("/foo/bar", reserved=True) == "/foo/bar"  # {+path}
    assert expanded("/foo/bar") == "%2Ffoo%2Fbar"  # {var}
    assert expanded("50%") == expanded("50%", reserved=True) == "50%25"
    assert expanded("a%20b c", reserved=True) == "a%20b%20c"  # a triplet stays one
    assert expanded("é?#") == "%C3%A9%3F%23"


def test_where_a_typed_uri_stops_in_each_kind_of_expression():
    from mcpnb.notebook.magics.completion import InVariable, template_place

    assert template_place("probe://files/{+path}", "probe://files/my%20dir/a") == InVariable(
        "path", "probe://files/", "my dir/a", {}, reserved=True
    )
    assert template_place("find://items{?q,lang}", "find://items") == "find://items?q="
    assert template_place("find://items{?q,lang}", "find://items?q=a%20b&l") == "find://items?q=a%20b&lang="
    assert template_place("find://items{?q,lang}", "find://items?q=ab&lang=f") == InVariable(
        "lang", "find://items?q=ab&lang=", "f", {"q": "ab"}
    )
    assert template_place("x://d/{id}{#part}", "x://d/3#se") == InVariable(
        "part", "x://d/3#", "se", {"id": "3"}, reserved=True
    )
    assert template_place("x://{a}/{b}", "x://p/q") == InVariable("b", "x://p/", "q", {"a": "p"})
    assert template_place("x://{/a}", "x://") is None  # not completed: nothing rather than a guess


def test_a_path_template_completes_into_folders_written_as_a_uri_writes_them(ip, mcp, tmp_path):
    """probe-kit's ``probe://files/{+path}`` completes (it offered nothing: ``{+path}`` was left
    out); a folder's ``/`` stays, a space is ``%20``."""
    (tmp_path / "my dir").mkdir()
    (tmp_path / "my dir" / "a b.txt").write_text("spaced\n")
    line(ip, f"serve probe-kit --root {tmp_path}")
    assert complete(ip, "%mcp read probe probe://files/my") == ["probe://files/my%20dir/"]
    assert complete(ip, "%mcp read probe probe://files/my%20dir/a") == ["probe://files/my%20dir/a%20b.txt"]
    assert "spaced" in line(ip, "read probe probe://files/my%20dir/a%20b.txt").text


def finder() -> Any:
    """FastMCP with a form-style query template whose ``lang`` completes from ``q`` (the context)."""
    import fastmcp
    from mcp_types import ResourceTemplateReference

    srv = fastmcp.FastMCP("finder")

    @srv.resource("find://items{?q,lang}")
    def items(q: str = "", lang: str = "") -> str:
        return f"q={q} lang={lang}"

    @srv.completion
    def complete_it(ref: Any, argument: Any, context: Any) -> list[str] | None:
        if not isinstance(ref, ResourceTemplateReference):
            return None
        if argument.name == "q":
            return [v for v in ("a b/c?", "abc") if v.startswith(argument.value)]
        q = ((context.arguments or {}) if context else {}).get("q", "")
        return ["fr", "de"] if q == "a b/c?" else ["en"]

    return srv


def test_a_query_template_completes_each_pair_with_the_ones_before_as_context(ip, mcp):
    mcp.pool.connect("find", server=finder())
    assert complete(ip, "%mcp read find find://items") == ["find://items?q="]
    assert complete(ip, "%mcp read find find://items?q=a") == [
        "find://items?q=a%20b%2Fc%3F",
        "find://items?q=abc",
    ]
    assert complete(ip, "%mcp read find find://items?q=a%20b%2Fc%3F&") == [
        "find://items?q=a%20b%2Fc%3F&lang="
    ]
    assert complete(ip, "%mcp read find find://items?q=a%20b%2Fc%3F&lang=") == [
        "find://items?q=a%20b%2Fc%3F&lang=fr",
        "find://items?q=a%20b%2Fc%3F&lang=de",
    ]
    assert line(ip, "read find find://items?q=a%20b%2Fc%3F&lang=fr").text == "q=a b/c? lang=fr"
