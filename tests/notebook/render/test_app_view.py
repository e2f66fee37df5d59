"""An MCP App's page in a real kernel: ``%mcp call`` draws it above the result, and the widget
answers the page's JSON-RPC through the kernel, while no cell runs.

The test plays the widget's frontend code (``app_view.js``): it opens no iframe, and sends what
the page would send, as the JS does (``{"view", "message"}``, and the frontend's ``context`` with
``ui/initialize``). The page itself runs in
``tests/browser/test_apps_in_jupyterlab.py``. The server is the MCP Apps project's example.
"""

from __future__ import annotations

import json
import shutil

from conftest import EVERYTHING

from tests.frontend import Frontend

BASIC = EVERYTHING.parents[2] / "server-basic-vanillajs" / "dist" / "index.js"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "ui/initialize",
    "params": {
        "appInfo": {"name": "t", "version": "1"},
        "appCapabilities": {},
        "protocolVersion": "2026-01-26",
    },
}


def _ok(fe: Frontend, code: str) -> str:
    cell = fe.execute(code)
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    return cell


def _page(fe: Frontend, cell: str) -> str | None:
    return fe.find(cell, model="AnyModel")


def test_mcp_call_draws_the_page_and_the_kernel_answers_it(kernel):
    assert BASIC.exists(), "run `npm ci --prefix tests/peers`"
    fe = Frontend(kernel)
    _ok(fe, f"%load_ext mcpnb\n%mcp connect basic -- {shutil.which('node')} {BASIC} --stdio")
    cell = _ok(fe, "first = %mcp call basic.get-time")  # the tool list not cached yet: the thread path
    page = _page(fe, cell)
    assert page is not None and fe.displayed[cell] == [page]
    [shown] = fe.displays[cell]  # what a saved notebook or a terminal shows: where to see the page
    assert shown["text/plain"] == (
        "basic.get-time · ui://get-time/mcp-app.html (an MCP App, sandboxed): "
        "its page shows where widgets do (JupyterLab, Notebook 7, VS Code)"
    )
    state = fe.models[page]
    assert state["label"] == "basic.get-time · ui://get-time/mcp-app.html (an MCP App, sandboxed)"
    assert (
        "Content-Security-Policy" in state["document"] and "<title>Get Time App</title>" in state["document"]
    )

    frontend = {
        "theme": "dark",
        "locale": "de-DE",
        "styles": {"variables": {"--color-text-primary": "#eee", "color": "red"}},
        "displayMode": "fullscreen",  # not the frontend's to say: left out
        "availableDisplayModes": ["inline", "fullscreen", "sideways"],
    }
    asked = fe.send_custom(page, {"view": "v1", "context": frontend, "message": INITIALIZE})
    fe.wait_for(lambda: fe.custom.get(asked), what="the answer to ui/initialize")
    [answer] = fe.custom[asked]
    assert answer["view"] == "v1" and answer["message"]["id"] == 1
    context = answer["message"]["result"]["hostContext"]
    assert (context["theme"], context["locale"], context["displayMode"]) == ("dark", "de-DE", "inline")
    assert context["styles"] == {"variables": {"--color-text-primary": "#eee"}}
    assert context["availableDisplayModes"] == ["inline", "fullscreen"]

    ready = fe.send_custom(
        page, {"view": "v1", "message": {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}}
    )
    fe.wait_for(lambda: len(fe.custom.get(ready, [])) == 2, what="tool-input and tool-result")
    sent = [m["message"]["method"] for m in fe.custom[ready]]
    assert sent == ["ui/notifications/tool-input", "ui/notifications/tool-result"]
    handed = fe.custom[ready][1]["message"]["params"]["structuredContent"]

    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "get-time", "arguments": {}},
    }
    called = fe.send_custom(page, {"view": "v1", "message": call})
    fe.wait_for(lambda: fe.custom.get(called), what="the answer to tools/call")
    fetched = fe.custom[called][0]["message"]["result"]["structuredContent"]
    assert fetched["time"] >= handed["time"]
    fe.wait_for(lambda: fe.models[page]["notes"], what="a note of the page's call")
    assert fe.models[page]["notes"][0]["text"].startswith("the page called get-time({}) ✓")
    again = fe.send_custom(page, {"view": "v1", "message": {**call, "id": 3}})
    fe.wait_for(lambda: fe.custom.get(again), what="the second call's answer")
    fe.wait_for(lambda: "· 2 calls" in fe.models[page]["notes"][-1]["text"], what="one line, counted")
    assert len(fe.models[page]["notes"]) == 1
    # the page %mcp call drew is not in a variable: AppView.drawn keeps it, with what it did
    kept = _ok(
        fe,
        "import mcpnb\nlast = mcpnb.AppView.drawn[-1]\nprint('KEPT', len(last.calls), last.calls[-1].tool)",
    )
    assert "KEPT 2 get-time" in fe.stdout[kept]

    # a second drawing of the same widget is a page of its own: its answers carry its view
    other = fe.send_custom(page, {"view": "v2", "message": INITIALIZE})
    fe.wait_for(lambda: fe.custom.get(other), what="the second view's answer")
    assert fe.custom[other][0]["view"] == "v2"

    cached = _ok(fe, "%mcp call basic.get-time")  # cached now: the awaited path draws it too
    assert _page(fe, cached) is not None and "text/plain" in fe.results[cached]
    for flag in ("--no-view", "--raw"):
        plain = _ok(fe, f"%mcp call basic.get-time {flag}")
        assert _page(fe, plain) is None and plain not in fe.displayed and plain in fe.results
    _ok(fe, "%config Mcp.draw_pages = False")
    plain = _ok(fe, "%mcp call basic.get-time")
    assert plain not in fe.displayed and plain in fe.results

    # a kernel shutting down closes mcpnb's runtime: a page that asks then is told so, nothing breaks
    _ok(fe, "import mcpnb\nmcpnb.get_runtime().close()")
    fe.send_custom(page, {"view": "v1", "message": {**call, "id": 4}})
    fe.wait_for(lambda: "runtime is closed" in fe.models[page]["notes"][-1]["text"], what="the note")
    assert _ok(fe, "print('STILL HERE')")


def test_a_tool_without_a_page_draws_nothing_and_a_page_that_fails_says_so(kernel):
    fe = Frontend(kernel)
    _ok(fe, "%load_ext mcpnb\n%mcp serve probe-kit")
    plain = _ok(fe, "%mcp call probe.estimate task='ship it' files=2")
    assert plain not in fe.displayed and plain in fe.results
    broken = _ok(
        fe,
        "from mcp.server.mcpserver import MCPServer\n"
        "srv = MCPServer('gone')\n"
        "@srv.tool(meta={'ui': {'resourceUri': 'ui://gone/page.html'}})\n"
        "def hello() -> str:\n    return 'hi'\n"
        "%mcp connect gone {{srv}}",
    )
    assert broken
    cell = _ok(fe, "%mcp call gone.hello")
    assert cell not in fe.displayed and "hi" in fe.results[cell]["text/plain"]
    assert "gone.hello's page (an MCP App) could not be drawn:" in fe.stdout[cell]


def test_a_page_that_may_reach_the_network_says_so_under_it():
    """The extension: a host should warn when a page needs external domains. Its server declared
    them; the page says so before anything runs, with what was left out of its policy."""
    from mcp.server.mcpserver import MCPServer

    from mcpnb import Pool
    from mcpnb.notebook.render.app_view import AppView

    server = MCPServer("maps", log_level="WARNING")
    page_meta = {
        "ui": {"csp": {"connectDomains": ["https://tiles.example"], "frameDomains": ["javascript:x"]}}
    }

    @server.tool(meta={"ui": {"resourceUri": "ui://maps/map.html"}})
    def show() -> str:
        return "a map"

    @server.resource("ui://maps/map.html", mime_type="text/html;profile=mcp-app", meta=page_meta)
    def page() -> str:
        return "<html><body>map</body></html>"

    pool = Pool()
    try:
        pool.connect("maps", server=server)
        view = AppView(pool, pool.call("maps.show"))
        assert [(n.kind, n.text) for n in view.notes] == [
            ("reach", "its server lets this page reach beyond mcpnb: https://tiles.example"),
            ("refused", "left out of the page's policy: frameDomains: 'javascript:x'"),
        ]
        assert (
            view.widget.notes[0]["kind"] == "reach"
            and "connect-src https://tiles.example" in view.widget.policy
        )
        with_nothing = AppView(pool, "maps.show")  # the page alone, no result: none handed to it
        assert with_nothing.result is None and with_nothing.tool.name == "show"
        # a page that logs at every event for hours: the newest notes kept, the first ones with them
        from mcpnb.client.app_host import Note
        from mcpnb.notebook.render.app_view import NOTES_KEPT

        for n in range(NOTES_KEPT + 5):
            view._note(Note("log", f"info: {n}"))  # what its hosts call for each
        assert len(view.notes) == NOTES_KEPT and view.notes[-1].text == f"info: {NOTES_KEPT + 4}"
    finally:
        pool.close()


CLOCK = """
import time
from mcp.server.mcpserver import MCPServer

clock = MCPServer("clock", log_level="WARNING")
PAGE = {"ui": {"resourceUri": "ui://clock/page.html"}}

@clock.tool(meta=PAGE)
def slow(seconds: float) -> str:
    time.sleep(seconds)
    return f"slept {seconds}"

@clock.resource("ui://clock/page.html", mime_type="text/html;profile=mcp-app")
def page() -> str:
    return "<html><body>clock</body></html>"
"""


def test_the_page_is_drawn_while_its_tool_runs_and_hears_the_result_or_why_there_is_none(kernel):
    """The extension draws a page while its tool runs: %mcp call shows it before the call is sent;
    the page hears the arguments at once, the result when it lands, and tool-cancelled when the
    call ends without one (here, a timeout)."""
    fe = Frontend(kernel)
    _ok(fe, CLOCK + "%load_ext mcpnb\n%mcp connect clock {{clock}}")
    running = fe.execute("%mcp call clock.slow seconds=2")  # the cell awaits: widget messages go on
    page = fe.wait_for(lambda: _page(fe, running), what="the page, drawn before the result")
    fe.send_custom(page, {"view": "v", "message": INITIALIZE})
    ready = fe.send_custom(
        page, {"view": "v", "message": {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}}
    )
    fe.wait_for(lambda: fe.custom.get(ready), what="the arguments, at once")
    assert [m["message"]["params"] for m in fe.custom[ready]] == [{"arguments": {"seconds": 2}}]
    assert running not in fe.results  # the tool is still running: no result yet, and none sent
    assert fe.reply(running)["status"] == "ok"
    heard = fe.wait_for(
        lambda: [
            m
            for m in fe.custom_of.get(page, [])
            if m["message"].get("method") == "ui/notifications/tool-result"
        ],
        what="the result, once it landed",
    )
    assert heard[0]["view"] == "v" and heard[0]["message"]["params"]["content"][0]["text"] == "slept 2.0"

    late = fe.execute("%mcp call clock.slow seconds=3 --timeout 0.5")
    page = fe.wait_for(lambda: _page(fe, late), what="the second call's page")
    assert fe.reply(late)["status"] == "error"  # the timeout, as always
    fe.send_custom(page, {"view": "w", "message": INITIALIZE})
    ready = fe.send_custom(
        page, {"view": "w", "message": {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}}
    )
    fe.wait_for(lambda: len(fe.custom.get(ready, [])) == 2, what="the arguments, then why there is no result")
    told = fe.custom[ready][1]["message"]
    assert told["method"] == "ui/notifications/tool-cancelled" and told["params"]["reason"].startswith(
        "the call failed: "
    )


def test_a_result_that_lands_later_reaches_the_page_through_its_future(monkeypatch):
    """A call whose result comes later (a LiveCall: a person was asked in the cell) hands the page
    its result through the future's callback; one that is cancelled, why. What would go to the
    frontend is recorded where the widget sends it."""
    import concurrent.futures
    import time

    from mcp.server.mcpserver import MCPServer

    from mcpnb import Pool
    from mcpnb.notebook.render.app_view import AppView

    server = MCPServer("later", log_level="WARNING")

    @server.tool(meta={"ui": {"resourceUri": "ui://later/page.html"}})
    def answer() -> str:
        return "42"

    @server.resource("ui://later/page.html", mime_type="text/html;profile=mcp-app")
    def page() -> str:
        return "<html><body>later</body></html>"

    pool = Pool()
    try:
        pool.connect("later", server=server)
        for outcome in ("result", "cancelled"):
            view = AppView(pool, "later.answer")
            sent: list = []
            monkeypatch.setattr(view.widget, "send", sent.append)
            initialized = {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}
            for message in (INITIALIZE, initialized):
                view._from_page(view.widget, {"view": "v", "message": message}, [])
            future: concurrent.futures.Future = concurrent.futures.Future()
            view.deliver(future)  # nothing yet: the call is under way
            assert wait_for_sent(sent, 2) and [m["message"].get("method") for m in sent] == [
                None,
                "ui/notifications/tool-input",
            ]
            if outcome == "result":
                future.set_result(pool.call("later.answer"))
            else:
                future.cancel()
            assert wait_for_sent(sent, 3)
            last = sent[-1]["message"]
            if outcome == "result":
                assert (
                    last["method"] == "ui/notifications/tool-result"
                    and last["params"]["content"][0]["text"] == "42"
                )
            else:
                assert last == {
                    "jsonrpc": "2.0",
                    "method": "ui/notifications/tool-cancelled",
                    "params": {"reason": "the call was cancelled"},
                }
            time.sleep(0.1)
            assert len(sent) == 3  # once
    finally:
        pool.close()


def wait_for_sent(sent: list, count: int, timeout: float = 10.0) -> bool:
    """The page's messages are answered on mcpnb's runtime thread: wait for ``count`` of them."""
    import time

    end = time.monotonic() + timeout
    while len(sent) < count and time.monotonic() < end:
        time.sleep(0.01)
    return len(sent) >= count


def test_a_models_call_draws_its_page_in_the_cell_and_what_the_page_says_reaches_the_next_turn(kernel):
    """A chat host draws a tool's page when the model calls it; here the host is the notebook's
    loop: ``tools.run_all(reply)`` draws the page in its cell (on mcpnb's thread, into that cell),
    the page hears the model's arguments and the result, and what it says for the model
    (``ui/update-model-context``, ``ui/message``) comes back as one user turn, once."""
    fe = Frontend(kernel)
    _ok(
        fe,
        "%load_ext mcpnb\n%mcp serve probe-kit --toolset apps\n"
        "import mcpnb\ntools = mcpnb.default_pool().functions()",
    )
    call = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "mcp__probe__dice",
        "input": {"count": 3, "sides": 20},
    }
    ran = _ok(fe, f"replies = tools.run_all([{call!r}])\nprint('REPLY', replies[0]['content'][0]['text'])")
    page = _page(fe, ran)
    assert page is not None and fe.displayed[ran] == [page], "the page is drawn in the cell that ran the call"
    assert "(3d20)" in fe.stdout[ran]
    empty = _ok(fe, "print('NEWS', tools.from_pages('anthropic'), len(tools.pages))")
    assert "NEWS [] 1" in fe.stdout[empty]

    fe.send_custom(page, {"view": "v", "message": INITIALIZE})
    ready = fe.send_custom(
        page, {"view": "v", "message": {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}}
    )
    fe.wait_for(lambda: len(fe.custom.get(ready, [])) == 2, what="the model's arguments and the result")
    heard = [m["message"] for m in fe.custom[ready]]
    assert heard[0]["params"] == {"arguments": {"count": 3, "sides": 20}}
    rolled = heard[1]["params"]["structuredContent"]
    assert len(rolled["rolls"]) == 3 and rolled["sides"] == 20

    said = [
        ("ui/update-model-context", {"content": [{"type": "text", "text": "the person kept the 17"}]}),
        ("ui/update-model-context", {"structuredContent": {"kept": [17, 4]}}),  # replaces the first
        ("ui/message", {"role": "user", "content": [{"type": "text", "text": "Roll the rest again"}]}),
    ]
    for n, (method, params) in enumerate(said, start=10):
        asked = fe.send_custom(
            page, {"view": "v", "message": {"jsonrpc": "2.0", "id": n, "method": method, "params": params}}
        )
        fe.wait_for(lambda asked=asked: fe.custom.get(asked), what=f"the answer to {method}")
    contexts = [n["text"] for n in fe.models[page]["notes"] if n["kind"] == "context"]
    assert contexts == ['the page set what a model should know: {"kept": [17, 4]}']  # the newest, once
    turn = _ok(
        fe,
        "import json\nprint('TURN', json.dumps(tools.from_pages('openai')))\n"
        "print('AGAIN', tools.from_pages('openai'))",
    )
    out = fe.stdout[turn]
    [message] = json.loads(out.split("TURN ", 1)[1].splitlines()[0])
    assert message == {
        "role": "user",
        "content": [
            {"type": "text", "text": "[probe.dice's page (an MCP App) says the model should know:]"},
            {"type": "text", "text": '{"kept": [17, 4]}'},
            {
                "type": "text",
                "text": "[probe.dice's page (an MCP App) says:]",
            },  # the page's, not the person's
            {"type": "text", "text": "Roll the rest again"},
        ],
    }
    assert "AGAIN []" in out

    csv = {"uri": "file:///rolls.csv", "mimeType": "text/csv", "text": "total\n17\n"}
    offered = fe.send_custom(
        page,
        {
            "view": "v",
            "message": {
                "jsonrpc": "2.0",
                "id": 20,
                "method": "ui/download-file",
                "params": {"contents": [{"type": "resource", "resource": csv}]},
            },
        },
    )
    fe.wait_for(lambda: fe.custom.get(offered), what="the answer to ui/download-file")
    assert fe.custom[offered][0]["message"]["result"] == {}
    link = fe.models[page]["notes"][-1]
    assert (link["kind"], link["download"]) == ("download", "rolls.csv") and link["url"].startswith(
        "data:text/csv;"
    )
    kept = _ok(fe, "print('FILE', repr(tools.pages[0].downloads[0].data().decode()))")
    assert "FILE 'total\\n17\\n'" in fe.stdout[kept]

    awaited = _ok(fe, f"replies = await tools.arun_all([{call!r}])")  # the cell's own loop draws it
    assert _page(fe, awaited) is not None and fe.displayed[awaited] == [_page(fe, awaited)]
    counted = _ok(fe, "print('PAGES', len(tools.pages), tools.pages[-1].tool.name)")
    assert "PAGES 2 dice" in fe.stdout[counted]


def test_a_tasks_page_hears_the_result_when_the_task_ends_or_that_it_was_cancelled(kernel):
    """``%mcp call --task`` on a tool with a page: the page is drawn as the task starts and hears
    its result when the task ends, or ``tool-cancelled`` when it is cancelled. The server is
    FastMCP's, with its own tasks extension and its own MCP Apps support (``app=``)."""
    from tests.peers.fastmcp_venv import FASTMCP_SERVER, fastmcp_python

    fe = Frontend(kernel)
    pages = []
    _ok(fe, f"%load_ext mcpnb\n%mcp connect fm -- {fastmcp_python()} {FASTMCP_SERVER} stdio")
    for turns, then, heard in (
        (3, "", "ui/notifications/tool-result"),
        (600, "dial.cancel()", "ui/notifications/tool-cancelled"),
    ):
        cell = _ok(fe, f"dial = %mcp call fm.dial turns={turns} --task")
        page = _page(fe, cell)
        assert page is not None, "the page is drawn as the task starts"
        fe.send_custom(page, {"view": "v", "message": INITIALIZE})
        ready = fe.send_custom(
            page, {"view": "v", "message": {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}}
        )
        fe.wait_for(lambda ready=ready: fe.custom.get(ready), what="the arguments")
        assert fe.custom[ready][0]["message"]["params"] == {"arguments": {"turns": turns}}
        if then:
            _ok(fe, then)
        told = fe.wait_for(
            lambda page=page, heard=heard: [
                m["message"] for m in fe.custom_of.get(page, []) if m["message"].get("method") == heard
            ],
            what=heard,
        )
        if turns == 3:
            assert told[0]["params"]["structuredContent"] == {"result": "dialled 3"}
        else:
            assert told[0]["params"] == {"reason": "the task was cancelled"}
        pages.append((page, heard))
    final = _ok(fe, "print('STATUS', dial.status)")
    assert "STATUS cancelled" in fe.stdout[final]
    for page, heard in pages:  # once each, however many times the task's state changed since
        assert [m["message"].get("method") for m in fe.custom_of[page]].count(heard) == 1


ASKING_SERVER = """
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

class Name(BaseModel):
    name: str

srv = MCPServer("asking")
PAGE = "ui://asking/page.html"

@srv.tool(meta={"ui": {"resourceUri": PAGE}})
def show() -> str:
    return "shown"

@srv.tool(meta={"ui": {"resourceUri": PAGE, "visibility": ["app"]}})
async def greet(ctx: Context) -> str:
    answer = await ctx.elicit("Your name?", Name)
    return f"hello {answer.data.name}" if answer.action == "accept" else f"no name ({answer.action})"

@srv.resource(PAGE, mime_type="text/html;profile=mcp-app")
def page() -> str:
    return "<!doctype html><title>asking</title><p>asking</p>"
"""


def test_a_question_of_a_tool_the_page_calls_is_a_form_in_the_page_s_cell(kernel):
    """A page's tools/call whose tool asks for a form: the policy answered it (declined on
    2025-11-25, "no back-channel" on 2026-07-28), far from the person who clicked in the page."""
    fe = Frontend(kernel)
    _ok(fe, "%load_ext mcpnb\n" + ASKING_SERVER + "\n%mcp connect asking {{srv}} --era legacy")
    cell = _ok(fe, "%mcp call asking.show")
    page = _page(fe, cell)
    assert page is not None
    for message in (INITIALIZE, {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}):
        fe.send_custom(page, {"view": "v1", "message": message})
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "greet", "arguments": {}}}
    called = fe.send_custom(page, {"view": "v1", "message": call})
    form = fe.form(cell, "name")
    fe.set(form["name"], "Ada")
    fe.click(form["accept"])
    fe.wait_for(lambda: fe.custom.get(called), what="the answer to tools/call")
    [answer] = fe.custom[called]
    assert answer["message"]["result"]["content"][0]["text"] == "hello Ada", answer
