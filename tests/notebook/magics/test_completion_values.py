"""Tab completion after ``key=`` and for ``%mcp read NAME``: what the server allows there, and
never Python's names.

Tab after ``%mcp call ev.get-sum a=`` offered ``b=`` (accepting it gave ``a=b=``), after
``location=`` Python's builtins, and after ``%mcp read ev `` Python's keywords and magics.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from conftest import EVERYTHING

from .conftest import complete, line


class Color(StrEnum):
    red = "red"
    dark_blue = "dark blue"


def editor(ip, text: str) -> list[tuple[str, str, str]]:
    """What an editor (ipykernel's ``do_complete``) gets: each completion's text, type, and the part
    of the line it replaces."""
    from IPython.core.completer import provisionalcompleter

    with provisionalcompleter():
        return [(c.text, c.type, text[c.start : c.end]) for c in ip.Completer.completions(text, len(text))]


def connect_everything(ip) -> None:
    line(ip, f"connect ev -- node {EVERYTHING} stdio")


def test_a_value_offers_what_the_tool_s_schema_allows(ip, mcp, everything):
    """server-everything's enums and booleans, written as the line reads them (a city with a space
    quoted), typed ``value``, replacing only what was typed after ``=``."""
    connect_everything(ip)
    kinds = editor(ip, "%mcp call ev.get-annotated-message messageType=")
    assert kinds == [("error", "value", ""), ("success", "value", ""), ("debug", "value", "")]
    assert complete(ip, "%mcp call ev.get-annotated-message messageType=su") == ["success"]
    assert complete(ip, "%mcp call ev.get-annotated-message includeImage=") == ["true", "false"]
    cities = complete(ip, "%mcp call ev.get-structured-content location=")
    assert cities == ['"New York"', "Chicago", '"Los Angeles"']
    # a value begun in quotes is finished in them
    assert editor(ip, '%mcp call ev.get-structured-content location="Ch') == [('"Chicago"', "value", '"Ch')]
    assert complete(ip, "%mcp call ev.get-structured-content location='Los") == ["'Los Angeles'"]
    # the next parameter's name is still offered where a name goes
    assert complete(ip, "%mcp call ev.get-sum a=1 ") == ["b="]


def test_a_value_with_nothing_to_offer_offers_nothing(ip, mcp, everything):
    """A number or free text: tools have no completion in MCP, so nothing, not ``b=`` nor
    Python's builtins; inside ``{{`` Python completes the notebook variable written there."""
    connect_everything(ip)
    for text in (
        "%mcp call ev.get-sum a=",
        "%mcp call ev.get-sum a=1 b=",
        "%mcp call ev.echo message=",
        "%mcp call ev.echo message=ab",
        "%mcp call ev.get-sum nope=",
    ):
        assert editor(ip, text) == [], text
        assert complete(ip, text) == [], text
    ip.user_ns["greeting_text"] = "hello"
    assert ("greeting_text", "instance", "greeting_t") in editor(ip, "%mcp call ev.echo message={{greeting_t")


def test_an_enum_behind_a_ref_and_an_optional_literal(ip, mcp):
    """The SDK's ``MCPServer`` writes an ``Enum`` parameter as a ``$ref`` into ``$defs`` and an
    optional ``Literal`` as ``anyOf``: both are followed."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("paints", log_level="WARNING")

    @server.tool()
    def paint(color: Color, finish: Literal["matte", "gloss"] | None = None, coats: int = 1) -> str:
        """Paint."""
        return f"{color.value} {finish} x{coats}"

    mcp.pool.connect("paints", server=server)
    assert complete(ip, "%mcp call paints.paint color=") == ["red", '"dark blue"']
    assert complete(ip, "%mcp call paints.paint color=red finish=") == ["matte", "gloss"]
    assert editor(ip, "%mcp call paints.paint coats=") == []
    # what is offered is what the call takes
    assert line(ip, 'call paints.paint color="dark blue" finish=gloss').data == "dark blue gloss x1"


def test_read_offers_the_server_s_resource_uris(ip, mcp, everything):
    """``%mcp read NAME <Tab>``: the URIs the server lists, the whole URI replaced (IPython's own
    word stops at the ``:``), typed ``resource``."""
    connect_everything(ip)
    uri = "demo://resource/static/document/architecture.md"
    listed = editor(ip, "%mcp read ev ")
    assert (uri, "resource", "") in listed and all(kind == "resource" for _, kind, _ in listed)
    assert uri in complete(ip, "%mcp read ev ")
    begun = editor(ip, "%mcp read ev demo:")
    assert (uri, "resource", "demo:") in begun and all(t.startswith("demo://") for t, _, _ in begun)
    assert [t for t, _, _ in editor(ip, "%mcp read ev demo://resource/static/document/ext")] == [
        "demo://resource/static/document/extension.md"
    ]
    assert editor(ip, "%mcp read ev nothing:like/this") == []  # and no Python names either


def test_read_a_server_without_resources_offers_nothing(ip, mcp):
    """A server that lists no resources (the SDK's, with a tool only): nothing, not Python's names."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bare", log_level="WARNING")

    @server.tool()
    def ping() -> str:
        """Pong."""
        return "pong"

    mcp.pool.connect("bare", server=server)
    assert editor(ip, "%mcp read bare ") == []
    assert complete(ip, "%mcp read bare ") == []


def test_a_server_s_value_with_double_braces_is_never_offered(ip, mcp, tmp_path):
    """A ``{{…}}`` in a line runs as Python in the notebook: a tool's enum or a prompt argument's
    completion holding one was offered, and the person's next Enter ran the server's code."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import Completion

    marker = tmp_path / "ran"
    code = f"{{{{__import__('pathlib').Path({str(marker)!r}).touch()}}}}"
    server = MCPServer("sly", log_level="WARNING")

    def pick(mode: str) -> str:
        """Pick a mode."""
        return mode

    pick.__annotations__["mode"] = Literal["plain", code]  # an enum as a server would list it
    server.tool()(pick)

    @server.prompt()
    def report(topic: str) -> str:
        """A report."""
        return f"Report on {topic}"

    @server.completion()
    async def complete_values(ref, argument, context):
        # the second: the rest of a {{…}} the person began, which Tab would have finished
        return Completion(values=["report-ok", f"report-{code}", code.removeprefix("{{")])

    mcp.pool.connect("sly", server=server)
    assert complete(ip, "%mcp call sly.pick mode=") == ["plain"]
    offered = complete(ip, "%mcp prompt sly.report topic=")
    assert "report-ok" in offered and [c for c in offered if "{{" in c] == []
    assert [c for c in complete(ip, "%mcp prompt sly.report topic={{") if "touch" in c] == []
    assert not marker.exists()
