"""Content blocks the everything-server does not send: Markdown, audio, assistant-only text, image blobs."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from mcp import Client, types
from mcp.server.mcpserver import Audio, Context, MCPServer

from mcpnb.client.results import ToolResult
from mcpnb.notebook.render import result_bundle
from mcpnb.notebook.render.markdown import markdown_to_html
from tests.media import wav

from .test_inprocess import PNG

pytestmark = pytest.mark.anyio


WAV = wav(80)
MARKDOWN = """# Report <script>x()</script>

Some **bold**, *italic* and `code <b>`, a [link](https://example.com/?a=1&b=2)
and a [bad one](javascript:alert(1)).

- one
- two

```
raw <html>
```
"""

server = MCPServer("blocks", log_level="WARNING")


@server.tool()
def notes() -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=MARKDOWN, _meta={"mimeType": "text/markdown"})]


@server.tool()
def sound() -> Audio:
    return Audio(data=WAV, format="wav")


@server.tool()
def whisper() -> list[types.ContentBlock]:
    ann = types.Annotations(audience=["assistant"], priority=0.2, last_modified="2026-01-02T03:04:05Z")
    return [
        types.TextContent(type="text", text="for the user"),
        types.TextContent(type="text", text="hidden hint for the model", annotations=ann),
    ]


@server.tool()
def attachment() -> list[types.ContentBlock]:
    blob = types.BlobResourceContents(
        uri="file:///tmp/red.png", mime_type="image/png", blob=base64.b64encode(PNG).decode()
    )
    doc = types.TextResourceContents(
        uri="https://example.com/doc.md", mime_type="text/markdown", text="## Doc"
    )
    return [
        types.EmbeddedResource(type="resource", resource=blob),
        types.EmbeddedResource(type="resource", resource=doc),
    ]


@server.tool()
def blobs() -> list[types.ContentBlock]:
    def blob(name: str, mime: str, data: bytes) -> types.EmbeddedResource:
        contents = types.BlobResourceContents(
            uri=f"file:///tmp/{name}", mime_type=mime, blob=base64.b64encode(data).decode()
        )
        return types.EmbeddedResource(type="resource", resource=contents)

    return [
        blob("rows.json", "application/json", b'{"html": "<b>x</b>", "caf\xc3\xa9": 1}'),
        blob("latin1.txt", "text/plain", "café".encode("latin-1")),  # not UTF-8: never mangled
        blob("beep.wav", "audio/wav", WAV),
        blob("data.bin", "application/octet-stream", b"plain ascii but not declared text"),
        blob("long.txt", "text/plain; charset=utf-8", b"x" * 30_000),
    ]


@server.tool()
def web_link() -> list[types.ContentBlock]:
    return [
        types.ResourceLink(
            type="resource_link", name="page", uri="https://example.com/x?a=1&b=2", size=12345
        ),
        types.ResourceLink(type="resource_link", name="evil", uri="javascript:alert(1)"),
    ]


async def call(tool: str, args: dict[str, Any] | None = None) -> ToolResult:
    async with Client(server) as client:
        result = await client.call_tool(tool, args or {})
    return ToolResult.from_sdk("blocks", tool, result, elapsed=0.01, output_schema=None)


async def test_markdown_block_is_rendered_and_escaped() -> None:
    b = result_bundle(await call("notes"))
    html = b["text/html"]
    assert "<h1>Report &lt;script&gt;x()&lt;/script&gt;</h1>" in html
    assert "<strong>bold</strong>" in html and "<em>italic</em>" in html
    assert "<code>code &lt;b&gt;</code>" in html
    assert '<a href="https://example.com/?a=1&amp;b=2"' in html
    assert 'href="javascript' not in html
    assert "<ul><li>one</li><li>two</li></ul>" in html
    assert "<pre>raw &lt;html&gt;</pre>" in html
    assert "<script>" not in html
    assert "# Report <script>x()</script>" in b["text/plain"]  # the terminal gets the source


def test_plain_text_is_not_markdown() -> None:
    r = ToolResult(server="s", tool="t", content=[types.TextContent(type="text", text="# not a heading")])
    html = result_bundle(r)["text/html"]
    assert "<pre># not a heading</pre>" in html and "<h1>" not in html


@pytest.mark.parametrize(
    ("text", "url", "after"),
    [
        ("Image URL: http://127.0.0.1:7861/gradio_api/file=/tmp/g/image.webp", None, ""),  # Gradio's
        ("see https://example.org/a?x=1&y=2.", "https://example.org/a?x=1&amp;y=2", "</a>."),
        ("(https://en.wikipedia.org/wiki/Foo_(bar))", "https://en.wikipedia.org/wiki/Foo_(bar)", "</a>)"),
        ('"href": "https://a.example/b"', "https://a.example/b", "</a>&quot;"),
    ],
)
def test_web_addresses_in_a_servers_text_are_links(text: str, url: str | None, after: str) -> None:
    """JupyterLab links them in plain text output; the HTML view had them as dead text."""
    url = url or text.split(": ", 1)[1]
    r = ToolResult(server="s", tool="t", content=[types.TextContent(type="text", text=text)])
    html = result_bundle(r)["text/html"]
    assert f'<a href="{url}" target="_blank" rel="noopener noreferrer">{url}{after}' in html
    assert result_bundle(r)["text/plain"].endswith("\n" + text)  # the terminal's text as written


def test_only_web_addresses_become_links() -> None:
    text = 'javascript:alert(1) file:///etc/passwd <a href="https://x.example">x</a>'
    r = ToolResult(server="s", tool="t", content=[types.TextContent(type="text", text=text)])
    body = result_bundle(r)["text/html"].split("</style>", 1)[1]
    assert body.count("<a ") == 1 and '&lt;a href=&quot;<a href="https://x.example"' in body


def test_markdown_subset_edge_cases() -> None:
    assert markdown_to_html("") == ""
    assert markdown_to_html("1. a\n2. b") == "<ol><li>a</li><li>b</li></ol>"
    assert markdown_to_html("a\nb\n\nc") == "<p>a<br>b</p><p>c</p>"
    quoted = markdown_to_html('[x](https://e.com/"onmouseover="alert(1))')
    assert 'onmouseover="' not in quoted and "&quot;onmouseover=&quot;" in quoted
    unterminated = markdown_to_html("```\n<b>")
    assert unterminated == "<pre>&lt;b&gt;</pre>"
    table = markdown_to_html("| name | size |\n| --- | ---: |\n| <a> | **1** |\nb | 2\n\nafter")
    assert table == (
        "<table><thead><tr><th>name</th><th>size</th></tr></thead><tbody><tr><td>&lt;a&gt;</td>"
        "<td><strong>1</strong></td></tr><tr><td>b</td><td>2</td></tr></tbody></table><p>after</p>"
    )
    assert markdown_to_html("a | b\nc | d") == "<p>a | b<br>c | d</p>"  # no rule line: no table


def test_the_text_of_a_tool_that_says_it_answers_in_markdown_is_drawn_as_markdown() -> None:
    """The fetch reference server "extracts its contents as markdown": its pages showed as their
    source. The tool's word is the mark (a block has none); an error is still the server's words."""
    page = "Contents of http://127.0.0.1/:\n## Install\n\n```\npip install x\n```"
    said = ToolResult(
        server="s", tool="fetch", content=[types.TextContent(type="text", text=page)], markdown=True
    )
    html = result_bundle(said)["text/html"]
    assert "<h2>Install</h2>" in html and "<pre>pip install x</pre>" in html
    assert page in result_bundle(said)["text/plain"]  # the terminal gets the source
    said.is_error = True
    assert "<h2>" not in result_bundle(said)["text/html"]


async def test_audio_inline() -> None:
    r = await call("sound")
    b = result_bundle(r)
    data = base64.b64encode(WAV).decode()
    assert f'<audio controls src="data:audio/wav;base64,{data}"' in b["text/html"]
    assert f"[audio audio/wav, {len(WAV)} B]" in b["text/plain"]


async def test_assistant_only_block_is_folded_with_its_annotations() -> None:
    b = result_bundle(await call("whisper"))
    html = b["text/html"]
    assert "<details><summary class='mcpnb-dim'>for the assistant</summary>" in html
    assert "for assistant · priority 0.2 · modified 2026-01-02T03:04:05Z" in html
    assert html.index("for the user") < html.index("hidden hint")
    assert "(for assistant · priority 0.2 · modified 2026-01-02T03:04:05Z)" in b["text/plain"]


async def test_embedded_image_blob_and_markdown_text_resource() -> None:
    b = result_bundle(await call("attachment"))
    html = b["text/html"]
    assert f"blob, {len(PNG)} B, image/png" in html
    assert '<img src="data:image/png;base64,' in html and "image/png" in b
    assert "<h2>Doc</h2>" in html  # text/markdown resource rendered as Markdown
    assert '<a href="https://example.com/doc.md"' in html


async def test_blobs_show_what_a_person_can_read_and_summarise_the_rest() -> None:
    b = result_bundle(await call("blobs"))
    html, text = b["text/html"], b["text/plain"]
    assert '{"html": "<b>x</b>", "café": 1}' in text  # textual bytes shown as text
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html  # and escaped
    latin1 = (
        "[resource file:///tmp/latin1.txt: blob, 4 B, text/plain]\n"
        "  save it: result.save('.', which=1) (as latin1.txt)"
    )
    assert latin1 in text  # not UTF-8: summarised only, never mangled
    assert "caf\ufffd" not in text and "caf\ufffd" not in html
    assert f'<audio controls src="data:audio/wav;base64,{base64.b64encode(WAV).decode()}"' in html
    assert "plain ascii but not declared text" not in text  # octet-stream stays a summary
    assert "more characters (all of it: result.content[4].resource.text)" in text


async def test_resource_links_only_link_web_uris() -> None:
    b = result_bundle(await call("web_link"))
    html = b["text/html"]
    assert '<a href="https://example.com/x?a=1&amp;b=2"' in html and "12.3 kB" in html
    assert 'href="javascript' not in html and "<code>javascript:alert(1)</code>" in html
    assert "%mcp read blocks &#x27;javascript:alert(1)&#x27;" in html  # shell-quoted hint


def test_unsafe_image_types_and_bad_base64_are_not_inlined() -> None:
    content: list[Any] = [
        types.ImageContent(type="image", data="not base64!!", mime_type="image/png"),
        types.ImageContent(
            type="image", data=base64.b64encode(b"x").decode(), mime_type='text/html"><script>'
        ),
        {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"},
        {"type": "mystery", "payload": "<script>"},
    ]
    b = result_bundle(ToolResult(server="s", tool="t", content=content))
    html = b["text/html"]
    assert "[image image/png, invalid base64]" in b["text/plain"]
    assert "<script>" not in html and 'src="data:text/html' not in html
    assert html.count("<img ") == 1 and "image/png" in b  # the wire-shaped dict block still renders
    assert "mystery block" in html and "&lt;script&gt;" in html


async def test_image_data_that_is_no_image_says_so_instead_of_a_broken_icon() -> None:
    """A server author's bug: bytes that are no image, labelled ``image/png``. The browser drew a
    broken-image icon and nothing said why; now the line says what the data is not."""
    server = MCPServer("pics")

    @server.tool()
    def pictures() -> list[types.ImageContent]:
        blob = base64.b64encode(b"<html>not a picture</html>").decode()
        real = base64.b64encode(PNG).decode()
        return [
            types.ImageContent(type="image", data=blob, mime_type="image/png"),
            types.ImageContent(type="image", data=real, mime_type="image/jpeg"),  # a PNG: still drawn
        ]

    async with Client(server) as client:
        raw = await client.call_tool("pictures", {})
    b = result_bundle(ToolResult.from_sdk("pics", "pictures", raw, elapsed=0.0, output_schema=None))
    assert "not a PNG image: its data starts with 3c 68 74 6d 6c 3e 6e 6f" in b["text/plain"]
    assert b["text/html"].count("<img ") == 1  # only the real picture


async def test_a_results_images_that_are_no_images_are_in_its_warnings_for_scripts_too() -> None:
    """A script (or a model's reply) sees no display: the result itself says what is wrong."""
    server = MCPServer("pics")

    @server.tool()
    def pictures() -> list[types.ImageContent | types.AudioContent]:
        return [
            types.ImageContent(
                type="image", data=base64.b64encode(b"<html>").decode(), mime_type="image/png"
            ),
            types.ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png"),
            types.AudioContent(type="audio", data="not base64!", mime_type="audio/wav"),
        ]

    async with Client(server) as client:
        raw = await client.call_tool("pictures", {})
    r = ToolResult.from_sdk("pics", "pictures", raw, elapsed=0.0, output_schema=None)
    assert r.warnings == [
        "content[0] (image image/png): not a PNG image: its data starts with 3c 68 74 6d 6c 3e",
        "content[2] (audio audio/wav): its data is not valid base64",
    ]


def test_an_image_in_text_says_how_to_save_it() -> None:
    """A terminal (jupyter console, a script's repr) shows no picture: the line says how to get it."""
    image = types.ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")
    b = result_bundle(ToolResult(server="s", tool="chart", content=[image]))
    assert "[image image/png, " in b["text/plain"]
    assert "\n  save it: result.save('.') (as s.chart-0.png)" in b["text/plain"]


def test_terminal_colours_in_a_servers_text_do_not_reach_the_html() -> None:
    """Playwright MCP's errors carry its call log in colour (``\x1b[2m``): HTML showed stray ``[2m``."""
    text = "Call log:\n\x1b[2m  - <launching> chromium\x1b[22m\n\x1b]8;;http://x\x07a link\x1b]8;;\x07"
    r = ToolResult(server="s", tool="t", is_error=True, content=[types.TextContent(type="text", text=text)])
    b = result_bundle(r)
    assert "\x1b" not in b["text/html"] and "[2m" not in b["text/html"] and "[22m" not in b["text/html"]
    assert "  - &lt;launching&gt; chromium\na link" in b["text/html"]
    assert "\x1b" not in b["text/plain"] and "  - <launching> chromium\na link" in b["text/plain"]
    assert r.text == text  # a terminal is not handed them (test_control_chars); the data keeps them
    marked = types.TextContent(type="text", text="# \x1b[1mBold\x1b[0m", _meta={"mimeType": "text/markdown"})
    assert "<h1>Bold</h1>" in result_bundle(ToolResult(server="s", tool="t", content=[marked]))["text/html"]


def test_long_text_is_truncated_with_a_count() -> None:
    from mcpnb.notebook.render import DEFAULTS

    text = "x" * (DEFAULTS.text_limit + 123)
    b = result_bundle(ToolResult(server="s", tool="t", content=[types.TextContent(type="text", text=text)]))
    assert "123 more characters" in b["text/html"] and "123 more characters" in b["text/plain"]
    assert "(all of it: result.content[0].text)" in b["text/plain"]  # says where the rest is


def test_a_cut_text_says_where_all_of_it_is_in_reads_and_prompts() -> None:
    from mcpnb.client.contents import PromptMessages, ResourceContents
    from mcpnb.notebook.render import DEFAULTS

    long = "y" * (DEFAULTS.text_limit + 7)
    read = ResourceContents("s", "file:///a b.txt", [types.TextResourceContents(uri="file:///a", text=long)])
    shown = read._repr_mimebundle_()["text/plain"]
    assert "7 more characters (all of it: r = %mcp read s 'file:///a b.txt', then r.text)" in shown
    assert read.text == long
    said = [
        types.PromptMessage(role="user", content=types.TextContent(type="text", text="hi")),
        types.PromptMessage(role="user", content=types.TextContent(type="text", text=long)),
    ]
    prompt = PromptMessages("s", "p", types.GetPromptResult(messages=said))
    assert "7 more characters (all of it: p[1].content.text)" in prompt._repr_mimebundle_()["text/plain"]
    assert prompt[1].content.text == long


def test_a_prompt_that_says_it_gives_markdown_is_drawn_as_markdown() -> None:
    """The fetch server's prompt: "Fetch a URL and extract its contents as markdown"."""
    from mcpnb.client.contents import PromptMessages

    page = [
        types.PromptMessage(role="user", content=types.TextContent(type="text", text="## Install\n- one"))
    ]
    said = "Fetch a URL and extract its contents as markdown"
    html = PromptMessages(
        "f", "fetch", types.GetPromptResult(description=said, messages=page)
    )._repr_mimebundle_()
    assert "<h2>Install</h2>" in html["text/html"] and "<li>one</li>" in html["text/html"]
    plain = PromptMessages("f", "fetch", types.GetPromptResult(messages=page))._repr_mimebundle_()
    assert "<h2>" not in plain["text/html"]


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")  # servers still log
def test_a_long_log_message_shows_its_start_and_result_logs_keeps_it(pool) -> None:
    """Desktop Commander logs its whole configuration (150 lines of JSON) at each get_config: under
    the result it was printed whole, in the text and in the saved notebook."""
    server = MCPServer("chatty", log_level="WARNING")
    config = {"blockedCommands": [f"cmd{i}" for i in range(150)], "telemetryEnabled": True}

    @server.tool()
    async def get_config(ctx: Context) -> str:
        await ctx.error("getConfig result: " + json.dumps(config, indent=2))
        await ctx.info("a short one")
        return "ok"

    pool.connect("dc", server=server)
    result = pool.call("dc", "get_config")
    shown = result_bundle(result)
    text, html = shown["text/plain"], shown["text/html"]
    assert "server log: 2 messages:\n  [error] getConfig result: {\n    " in text
    assert '    "cmd2",… (150 more lines in result.logs)\n  [info] a short one' in text
    assert "cmd3" not in text and "cmd3" not in html  # nor in the saved notebook's HTML
    assert json.loads(result.logs[0].data.split(": ", 1)[1]) == config  # whole


def test_a_markdown_image_is_a_link_to_it_not_a_bang_before_a_link() -> None:
    """``![chart](url)`` came out as "!" and a link named "chart"; the image is not fetched (the
    notebook calls no server address by itself), so it is a link that says it is an image."""
    html = markdown_to_html("Here: ![sales chart](https://charts.example/q3.png?x=1&y=2) done")
    link = '<a href="https://charts.example/q3.png?x=1&amp;y=2" target="_blank" rel="noopener noreferrer">'
    assert html == f"<p>Here: {link}🖼 sales chart</a> done</p>"
    assert "<img" not in markdown_to_html("![](https://charts.example/q3.png)")
    assert "🖼 image</a>" in markdown_to_html("![](https://charts.example/q3.png)")
    assert markdown_to_html("[a](https://e.example/a)") == (
        '<p><a href="https://e.example/a" target="_blank" rel="noopener noreferrer">a</a></p>'
    )


def test_nuls_in_a_servers_markdown_are_text_not_what_the_renderer_set_aside(pool) -> None:
    """The renderer marks code spans and links with NULs: a server's own ``\\x005\\x00`` raised
    IndexError, and ``%mcp read`` of such a resource lost its whole display (a tool's result fell
    back to "could not render"); a ``\\x000\\x00`` put the first link's markup in its place."""
    from mcpnb.notebook.render.resource import contents_bundle

    text = "# Notes\nsee `code` and [docs](https://example.org) \x005\x00 then \x000\x00 end"
    server = MCPServer("notes", log_level="WARNING")

    @server.resource("notes://today", mime_type="text/markdown")
    def today() -> str:
        return text

    pool.connect("notes", server=server)
    contents = pool.read("notes", "notes://today")
    assert contents.text == text  # the data as sent
    shown = contents_bundle(contents)["text/html"]
    assert "<code>code</code>" in shown and shown.count("https://example.org") == 1
    assert "\x00" not in shown and "\ufffd5\ufffd" in shown and "\ufffd0\ufffd end" in shown
    assert markdown_to_html(text).count("<code>") == 1


def test_a_renderer_that_fails_costs_the_drawing_not_the_data(pool, monkeypatch) -> None:
    """Whatever a renderer trips on, the object still shows, plainly, saying what went wrong: the
    display of ``%mcp read`` raised instead (a formatter traceback in the cell, nothing shown)."""
    from mcpnb.notebook import render

    server = MCPServer("notes", log_level="WARNING")

    @server.resource("notes://today", mime_type="text/markdown")
    def today() -> str:
        return "kept <as> sent " + "x" * 50_000  # none of which a fallback puts in the file whole

    pool.connect("notes", server=server)
    contents = pool.read("notes", "notes://today")

    def broken(obj: Any) -> dict[str, Any]:
        raise ValueError("a renderer's bug")

    monkeypatch.setattr(render, "RENDERERS", {**render.RENDERERS, "ResourceContents": f"{__name__}:_broken"})
    monkeypatch.setitem(globals(), "_broken", broken)
    shown = contents._repr_mimebundle_()
    assert "kept <as> sent" in shown["text/plain"] and "kept &lt;as&gt; sent" in shown["text/html"]
    assert "could not draw this ResourceContents (ValueError: a renderer's bug)" in shown["text/plain"]
    assert len(shown["text/plain"]) < 5_000 and len(shown["text/html"]) < 10_000
