"""MCP Apps, the host's side without a browser: what :class:`AppHost` answers a page.

The page's messages are written here as the extension's text has them (the browser test,
``tests/browser/test_apps_in_jupyterlab.py``, runs the MCP Apps project's own page); the servers
are real: the MCP Apps project's example over stdio, and the SDK's ``MCPServer`` in-process
(``shop.py``) for the cases that example has no tool for.
"""

from __future__ import annotations

import base64
import shutil
from typing import Any

from conftest import EVERYTHING

from mcpnb.client.app_host import AppHost, host_context
from mcpnb.client.apps import PAGE_TYPE, view_uri, visibility
from tests.client.shop import SHOP_PAGE, shop

BASIC = EVERYTHING.parents[2] / "server-basic-vanillajs" / "dist" / "index.js"
DEFAULT_POLICY = (
    "default-src 'none'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data:; "
    "style-src 'self' 'unsafe-inline' blob: data:; img-src 'self' data: blob:; font-src 'self' data: blob:; "
    "media-src 'self' data: blob:; worker-src 'self' blob:; connect-src 'none'; frame-src 'none'; "
    "object-src 'none'; base-uri 'self'; form-action 'none'"
)


def ask(host: AppHost, *messages: Any) -> list[dict]:
    """The page sends ``messages`` in order; what the host posted back."""
    before = len(host.sent)  # type: ignore[attr-defined]

    async def send_all() -> None:
        for message in messages:
            await host.receive(message)

    host.pool.runtime.run(send_all())
    return host.sent[before:]  # type: ignore[attr-defined]


def request(id: int, method: str, params: Any = None) -> dict:
    return {"jsonrpc": "2.0", "id": id, "method": method, **({} if params is None else {"params": params})}


INITIALIZE = request(
    1,
    "ui/initialize",
    {"appInfo": {"name": "t", "version": "1"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"},
)
INITIALIZED = {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}


def test_the_mcp_apps_example_server_has_a_page_and_its_handshake_hands_it_the_call(host_of):
    assert BASIC.exists() and shutil.which("node"), "run `npm ci --prefix tests/peers`"
    host_of.pool.connect("basic", command=shutil.which("node"), args=[str(BASIC), "--stdio"])
    [tool] = host_of.pool.tools("basic")
    assert view_uri(tool) == "ui://get-time/mcp-app.html" and visibility(tool) == ("model", "app")
    result = host_of.pool.call("basic", "get-time")
    host = host_of("basic", "get-time", result, {})
    assert host.page.policy == DEFAULT_POLICY  # the example declares no domain: the default
    assert host.page.document.count("Content-Security-Policy") == 1
    assert host.page.document.index("Content-Security-Policy") < host.page.document.index("<script")

    [answer] = ask(host, INITIALIZE)  # answered, and nothing else before `initialized`
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2026-01-26"
    context = answer["result"]["hostContext"]
    assert context["toolInfo"]["tool"]["name"] == "get-time" and context["displayMode"] == "inline"
    assert answer["result"]["hostCapabilities"]["serverTools"] == {}

    tool_input, tool_result = ask(host, INITIALIZED)
    assert tool_input == {
        "jsonrpc": "2.0",
        "method": "ui/notifications/tool-input",
        "params": {"arguments": {}},
    }
    assert tool_result["method"] == "ui/notifications/tool-result"
    assert tool_result["params"]["structuredContent"] == result.data
    assert ask(host, INITIALIZED) == []  # said once

    [called] = ask(host, request(2, "tools/call", {"name": "get-time", "arguments": {}}))
    assert called["id"] == 2 and "time" in called["result"]["structuredContent"]
    assert [c.data for c in host.calls] == [called["result"]["structuredContent"]]
    assert "the page called get-time({}) ✓" in host.noted[-1].text  # type: ignore[attr-defined]


def test_a_page_calls_its_servers_app_tools_only(host_of):
    host_of.pool.connect("shop", server=shop())
    host = host_of("shop", "cart")
    ask(host, INITIALIZE, INITIALIZED)
    app_only, model_only, unknown, malformed = ask(
        host,
        request(2, "tools/call", {"name": "refresh", "arguments": {}}),
        request(3, "tools/call", {"name": "checkout", "arguments": {}}),
        request(4, "tools/call", {"name": "chekout"}),
        request(5, "tools/call", {"name": "cart", "arguments": ["tea"]}),
    )
    assert app_only["result"]["structuredContent"] == {"items": ["tea", "cake"]}
    assert (
        model_only["error"]["code"] == -32000 and "not callable from an app" in model_only["error"]["message"]
    )
    assert unknown["error"] == {"code": -32602, "message": "'shop' has no tool 'chekout'"}
    assert malformed["error"]["code"] == -32602
    assert [n.kind for n in host.noted] == ["call", "refused"]  # type: ignore[attr-defined]
    assert len(host.calls) == 1
    [signed] = ask(
        host,
        request(6, "tools/call", {"name": "sign_in", "arguments": {"user": "ada", "password": "hunter22"}}),
    )
    assert signed["result"]["content"][0]["text"] == "welcome ada"  # the server got it whole
    said = host.noted[-1].text  # type: ignore[attr-defined]
    assert 'sign_in({"user": "ada", "password": "***"}) ✓' in said and "hunter22" not in said


def test_what_a_page_asks_of_the_person_is_noted_and_nothing_is_done_for_it(host_of):
    host_of.pool.connect("shop", server=shop())
    host = host_of("shop", "cart", arguments={"item": "tea"})
    ask(host, INITIALIZE)
    said = ask(
        host,
        request(2, "ui/open-link", {"url": "https://example.com/docs"}),
        request(3, "ui/open-link", {"url": "javascript:alert(1)"}),
        request(
            4,
            "ui/message",
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "buy tea"},
                    {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                ],
            },
        ),
        request(5, "ui/update-model-context", {"structuredContent": {"cart": ["tea"]}}),
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "warning", "data": "low stock"},
        },
        request(6, "ui/request-display-mode", {"mode": "fullscreen"}),
        request(7, "resources/read", {"uri": SHOP_PAGE}),
        request(8, "ping"),
        request(9, "sampling/createMessage", {}),
        "not json-rpc",
        {"jsonrpc": "2.0", "id": "teardown-1", "result": {}},  # an answer to the host: nothing to do
    )
    assert [m.get("result", m.get("error")) for m in said[:4]] == [
        {"isError": True},  # not opened: shown to the person, who may click it (the extension: isError)
        {"code": -32000, "message": "only http(s) links open from a page"},
        {},
        {},
    ]
    assert said[4]["result"] == {"mode": "inline"}
    assert said[5]["result"]["contents"][0]["mimeType"] == PAGE_TYPE
    assert said[6]["result"] == {} and said[7]["error"]["code"] == -32601
    assert len(said) == 8
    notes = host.noted  # type: ignore[attr-defined]
    assert [(n.kind, n.url) for n in notes] == [
        ("link", "https://example.com/docs"),
        ("message", None),
        ("context", None),
        ("log", None),
    ]
    assert notes[1].text == "the page says, for a model: buy tea [an image/png image]"
    assert notes[2].text == 'the page set what a model should know: {"cart": ["tea"]}'
    assert notes[3].text == "warning: low stock"
    assert host.messages[0]["content"][0]["text"] == "buy tea"
    assert host.context == {"structuredContent": {"cart": ["tea"]}}
    # before `initialized`, the page got answers only: no tool-input yet
    assert not any(m.get("method") == "ui/notifications/tool-input" for m in said)
    tool_input, *rest = ask(host, INITIALIZED)
    assert tool_input["params"] == {"arguments": {"item": "tea"}} and rest == []  # no result: none sent


def test_a_page_lists_its_own_servers_resources_templates_and_prompts(host_of):
    """What the extension's SDK sends for ``listServerResources`` (and its host forwards): answered
    from the page's own server, in the core MCP result shapes."""
    from mcp import types

    host_of.pool.connect("shop", server=shop())
    host = host_of("shop", "cart")
    ask(host, INITIALIZE)
    resources, templates, prompts = ask(
        host, request(2, "resources/list"), request(3, "resources/templates/list"), request(4, "prompts/list")
    )
    listed = types.ListResourcesResult.model_validate(resources["result"])
    assert {str(r.uri) for r in listed.resources} >= {SHOP_PAGE, "ui://shop/plain.html"}
    assert types.ListResourceTemplatesResult.model_validate(templates["result"]).resource_templates == []
    assert types.ListPromptsResult.model_validate(prompts["result"]).prompts == []


def test_a_file_the_page_offers_is_a_link_to_click_and_kept_for_python(host_of):
    """``ui/download-file``: a sandboxed page cannot save a file, so it hands it to the host. Each
    file becomes a link under the page (a ``data:`` URL, saved only by a click) and stays in
    ``host.downloads``; a web link is shown to open; a link to the page's server is read there."""
    from tests.apps_schema import problems

    host_of.pool.connect("shop", server=shop())
    host = host_of("shop", "cart")
    ask(host, INITIALIZE)
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    files = [
        {
            "type": "resource",
            "resource": {"uri": "file:///cart%20export.csv", "mimeType": "text/csv", "text": "item\ntea\n"},
        },
        {
            "type": "resource",
            "resource": {"uri": "file:///../../etc/icon.png", "mimeType": "image/png", "blob": png},
        },
        {"type": "resource_link", "uri": "https://example.com/q4.pdf", "name": "Q4"},
        {"type": "resource_link", "uri": "ui://shop/plain.html", "name": "the plain page"},
        {
            "type": "resource",
            "resource": {"uri": "file:///x", "mimeType": "text/html,<b>hi</b>", "text": "x"},
        },
    ]
    asked = request(2, "ui/download-file", {"contents": files})
    assert problems("McpUiDownloadFileRequest", asked) == []
    [answer] = ask(host, asked)
    assert answer["result"] == {} and problems("McpUiDownloadFileResult", answer["result"]) == []
    csv, icon, page, _odd = host.downloads
    assert (csv.name, csv.mime, csv.data()) == ("cart_export.csv", "text/csv", b"item\ntea\n")
    assert (icon.name, icon.data()) == ("icon.png", b"\x89PNG\r\n\x1a\n")  # a name, never a path
    assert (page.name, page.mime, page.data()) == ("plain.html", "text/html", b"<p>not an app</p>")
    notes = host.noted  # type: ignore[attr-defined]
    assert [(n.kind, n.download) for n in notes] == [
        ("link", None),
        ("download", "cart_export.csv"),
        ("download", "icon.png"),
        ("download", "plain.html"),
        ("download", "x.bin"),
    ]
    assert notes[0].url == "https://example.com/q4.pdf"
    assert notes[1].text == "the page offers a file (text/csv, 9 B):"
    assert notes[1].url == "data:text/csv;base64," + base64.b64encode(b"item\ntea\n").decode()
    # a type that is not a plain type/subtype never reaches the data: URL
    assert notes[4].url == "data:application/octet-stream;base64," + base64.b64encode(b"x").decode()

    refused = ask(
        host,
        request(3, "ui/download-file", {"contents": []}),
        request(
            4,
            "ui/download-file",
            {"contents": [{"type": "resource", "resource": {"uri": "x", "blob": "%%"}}]},
        ),
        request(5, "ui/download-file", {"contents": [{"type": "text", "text": "hi"}]}),
    )
    assert [m["error"]["message"] for m in refused] == [
        "ui/download-file takes a non-empty list of contents",
        "block 0 (x.bin) is not valid base64: Only base64 data is allowed",
        "a file is a resource or a resource_link, not 'text'",
    ]
    assert all(m["error"]["code"] == -32602 for m in refused) and len(host.downloads) == 4


def test_a_file_too_large_for_a_link_is_kept_and_said(host_of, monkeypatch):
    from mcpnb.client import app_host

    monkeypatch.setattr(app_host, "LINK_LIMIT", 10)
    host_of.pool.connect("shop", server=shop())
    host = host_of("shop", "cart")
    ask(host, INITIALIZE)
    big = {"type": "resource", "resource": {"uri": "file:///big.txt", "text": "x" * 11}}
    ask(host, request(2, "ui/download-file", {"contents": [big]}))
    [note] = host.noted  # type: ignore[attr-defined]
    assert (note.kind, note.url, note.download) == ("download", None, None)
    assert note.text == "the page offers big.txt (no type, 11 B), too large for a link: see .downloads"
    assert host.downloads[0].data() == b"x" * 11


def test_what_the_host_sends_a_page_keeps_to_the_mcp_apps_projects_schema(host_of):
    """The oracle is the extension's own schema (tests/apps_schema.py), not our reading of it."""
    from tests.apps_schema import problems

    assert BASIC.exists() and shutil.which("node"), "run `npm ci --prefix tests/peers`"
    host_of.pool.connect("basic", command=shutil.which("node"), args=[str(BASIC), "--stdio"])
    result = host_of.pool.call("basic", "get-time")
    host = host_of("basic", "get-time", result, {})
    host.context_of_host = host_context(
        {
            "theme": "dark",
            "locale": "fr-FR",
            "timeZone": "Europe/Paris",
            "styles": {"variables": {"--font-sans": "Inter"}},
        }
    )
    [answer] = ask(host, INITIALIZE)
    assert problems("McpUiInitializeResult", answer["result"]) == []
    tool_input, tool_result = ask(host, INITIALIZED)
    assert problems("McpUiToolInputNotification", tool_input) == []
    assert problems("McpUiToolResultNotification", tool_result) == []
    [called] = ask(host, request(2, "tools/call", {"name": "get-time", "arguments": {}}))
    assert (
        problems(
            "McpUiToolResultNotification",
            {"method": "ui/notifications/tool-result", "params": called["result"]},
        )
        == []
    )
    [display] = ask(host, request(3, "ui/request-display-mode", {"mode": "pip"}))
    assert problems("McpUiRequestDisplayModeResult", display["result"]) == []
    opened, messaged = ask(
        host, request(4, "ui/open-link", {"url": "https://example.com"}), request(5, "ui/message", {})
    )
    assert opened["result"] == {"isError": True} and messaged["result"] == {}
    assert problems("McpUiOpenLinkResult", opened["result"]) == []
    [tool] = host_of.pool.tools("basic")
    assert problems("McpUiToolMeta", tool.meta["ui"]) == []
    # the checker itself: a shape the schema forbids is caught
    assert problems("McpUiInitializeResult", {**answer["result"], "hostContext": {"theme": "sepia"}}) != []


def test_a_page_drawn_before_the_result_hears_it_when_it_lands_or_why_not(host_of):
    from tests.apps_schema import problems

    host_of.pool.connect("shop", server=shop())
    waiting = host_of("shop", "cart", None, {"item": "tea"})
    [tool_input] = ask(waiting, INITIALIZE, INITIALIZED)[1:]  # the answer, then the arguments only
    assert tool_input["method"] == "ui/notifications/tool-input"
    result = host_of.pool.call("shop.cart", {"item": "tea"})
    waiting.deliver(result)
    assert waiting.sent[-1]["method"] == "ui/notifications/tool-result"  # type: ignore[attr-defined]
    assert waiting.sent[-1]["params"]["structuredContent"] == {"items": ["tea"]}  # type: ignore[attr-defined]

    gave_up = host_of("shop", "cart", None, {"item": "cake"})
    gave_up.cancel("the call was interrupted")  # before the page was ready: told after initialized
    assert gave_up.sent == []  # type: ignore[attr-defined]
    told = ask(gave_up, INITIALIZE, INITIALIZED)[1:]
    assert [m["method"] for m in told] == ["ui/notifications/tool-input", "ui/notifications/tool-cancelled"]
    assert told[1]["params"] == {"reason": "the call was interrupted"}
    assert problems("McpUiToolCancelledNotification", told[1]) == []


def test_a_page_is_answered_nothing_but_its_handshake_and_pings_before_ui_initialize(host_of):
    """MCP's lifecycle, which the page's handshake copies: no request but a ping before the
    ``initialize`` answer, and the SDK's server answers any other with -32602 and drops
    notifications. A page whose frame was sent elsewhere, or a document that skips the handshake,
    gets no tool call, no read, no note under the page."""
    host_of.pool.connect("shop", server=shop())
    host = host_of("shop", "cart")
    log = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}}
    called, read, pinged = ask(
        host,
        request(1, "tools/call", {"name": "refresh", "arguments": {}}),
        request(2, "resources/read", {"uri": SHOP_PAGE}),
        log,  # dropped
        INITIALIZED,  # dropped: no handshake yet, nothing is sent to the page
        request(3, "ping"),
    )
    assert called["error"] == {
        "code": -32602,
        "message": "tools/call before ui/initialize: a page starts with the handshake",
    }
    assert read["error"]["code"] == -32602 and pinged["result"] == {}
    assert host.calls == [] and host.logs == [] and host.noted == []  # type: ignore[attr-defined]
    [answer] = ask(host, INITIALIZE)
    assert answer["result"]["protocolVersion"] == "2026-01-26"
    [tool_input] = ask(host, INITIALIZED)
    assert tool_input["method"] == "ui/notifications/tool-input"
    [called] = ask(host, request(4, "tools/call", {"name": "refresh", "arguments": {}}))
    assert called["result"]["structuredContent"] == {"items": ["tea", "cake"]}


def test_a_link_in_capitals_is_a_web_link_too(host_of):
    """A URL's scheme is case-insensitive (RFC 3986): ``HTTPS://`` is the web, shown to the person
    as any link; anything else stays refused, in any case."""
    host_of.pool.connect("shop", server=shop())
    host = host_of("shop", "cart")
    ask(host, INITIALIZE)
    shouted, odd = ask(
        host,
        request(2, "ui/open-link", {"url": "HTTPS://Example.com/Docs"}),
        request(3, "ui/open-link", {"url": "JavaScript:alert(1)"}),
    )
    assert shouted["result"] == {"isError": True} and odd["error"]["code"] == -32000
    [note] = host.noted  # type: ignore[attr-defined]
    assert (note.kind, note.url) == ("link", "HTTPS://Example.com/Docs")


def test_a_page_talks_to_the_server_it_came_from_only(host_of):
    """MCP Apps: "the same server connection only". Another server connected under the page's
    server's name since took the page's calls; a reconnect of the same server does not count."""
    host_of.pool.connect("shop", server=shop())
    host = host_of("shop", "cart", arguments={"item": "tea"})
    ask(host, INITIALIZE)
    call = request(2, "tools/call", {"name": "refresh", "arguments": {}})
    [fine] = ask(host, call)
    assert "result" in fine
    host_of.pool.reconnect("shop")  # the same server, started again: still the page's
    [again] = ask(host, {**call, "id": 3})
    assert "result" in again
    host_of.pool.connect("shop", server=shop())  # another server object under the same name
    [refused] = ask(host, {**call, "id": 4})
    assert refused["error"]["message"].startswith("'shop' now names another server than the one this page")
    assert "no longer answered" in host.noted[-1].text  # type: ignore[attr-defined]


def test_a_page_open_for_hours_holds_no_more_than_its_newest(host_of):
    """A live page (a dashboard polling its tool, logging at every event) stays open all day: the
    host held every result, message and log line it was handed, 5 MB lines whole."""
    from mcpnb.client.app_host import KEPT
    from mcpnb.client.call_logs import MESSAGE_CHARS
    from mcpnb.client.interaction import LOG_LIMIT

    host_of.pool.connect("shop", server=shop())
    host = host_of("shop", "cart")
    ask(host, INITIALIZE, INITIALIZED)
    polls = [request(10 + n, "tools/call", {"name": "refresh", "arguments": {}}) for n in range(KEPT + 5)]
    said = [
        request(1000 + n, "ui/message", {"role": "user", "content": [{"type": "text", "text": f"m{n}"}]})
        for n in range(KEPT + 5)
    ]
    logged = [
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": f"line {n}"},
        }
        for n in range(LOG_LIMIT + 50)
    ]
    huge = {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": "x" * (2 * MESSAGE_CHARS)},
    }
    answers = ask(host, *polls, *said, *logged, huge)
    assert len(answers) == 2 * (KEPT + 5) and all("result" in a for a in answers)
    assert len(host.calls) == KEPT and len(host.messages) == KEPT
    assert host.messages[-1]["content"][0]["text"] == f"m{KEPT + 4}"  # the newest kept
    assert len(host.logs) == LOG_LIMIT and host.logs[-2]["data"] == f"line {LOG_LIMIT + 49}"
    assert (
        len(host.logs[-1]["data"]) < MESSAGE_CHARS + 100
        and "more characters not kept" in host.logs[-1]["data"]
    )
