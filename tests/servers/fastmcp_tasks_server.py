"""A FastMCP 4 server with its tasks package (SEP-2663): an implementation of the 2026-07-28 tasks
extension that we did not write, to test mcpnb's task code against.

It runs only in its own virtual environment (``fastmcp-tasks`` pins versions that conflict with
ours; ``tests/peers/fastmcp_venv.py`` builds it) and never imports mcpnb. Usage:

    python fastmcp_tasks_server.py http     # prints its URL (127.0.0.1, a free port), then serves
    python fastmcp_tasks_server.py stdio

Tools: ``double`` (task optional, 0.1 s), ``crawl`` (task optional, runs until cancelled),
``greet`` (task required: asks for a name with the guard pattern, then greets), ``haiku`` and
``where`` (task required: ask for the client's model completion and its roots the same way), ``stepper`` (task
required, reports progress), ``explode`` (task optional, fails with a JSON-RPC error), ``echo``
(no tasks), ``fail_next_post`` (the next HTTP POST gets a bare HTTP error), ``task_headers``
(the routing headers tasks/* requests came with), ``orders`` (pydantic rows with a ``Decimal``, a
``datetime`` and a ``date``: FastMCP writes all three as strings), ``page`` (task optional; its
description says it answers in Markdown), ``export`` (a zip, as FastMCP's ``File`` sends it),
``dial`` (task optional, 0.1 s a turn, with an MCP App page: FastMCP's own ``app=``).
Every start of a task-capable tool is counted in ``runs`` (read by the ``runs`` tool), so a test can
tell whether a call became a task.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.apps import AppConfig
from fastmcp.utilities.tasks import TaskConfig
from fastmcp.utilities.types import File
from fastmcp_tasks import TasksExtension
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

mcp = FastMCP("fastmcp-tasks-peer")
mcp.add_extension(TasksExtension(url="memory://"))
STARTED: dict[str, int] = {}
DIAL_PAGE = "ui://fastmcp-peer/dial.html"


def _count(name: str) -> None:
    STARTED[name] = STARTED.get(name, 0) + 1


@mcp.tool(task=True)
async def double(value: int, ctx: Context) -> int:
    """Twice ``value`` after 0.1 s of work."""
    _count("double:task" if ctx.is_background_task else "double:plain")
    await asyncio.sleep(0.1)
    return value * 2


@mcp.tool(task=True)
async def crawl(ctx: Context) -> str:
    """Runs until cancelled (the cancel test's victim)."""
    _count("crawl:task" if ctx.is_background_task else "crawl:plain")
    await asyncio.sleep(3600)
    return "never"


@mcp.tool(task=TaskConfig(mode="required"))
async def greet(ctx: Context) -> Any:
    """Asks for a name (guard pattern: the task waits in input_required), then greets."""
    answers = ctx.input_responses or {}
    answer = answers.get("name")
    if answer is None:
        schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        request = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(message="What is your name?", requested_schema=schema)
        )
        return mcp_types.InputRequiredResult(input_requests={"name": request})
    fields = answer if isinstance(answer, dict) else answer.model_dump()
    content, action = fields.get("content"), fields.get("action")
    if action != "accept" or not content:
        return f"no name given ({action})"
    return f"Hello, {content['name']}!"


@mcp.tool(task=TaskConfig(mode="required"))
async def haiku(topic: str, ctx: Context) -> Any:
    """Asks the client's model for a haiku (guard pattern: ``sampling/createMessage`` among the
    task's inputRequests), then returns what the model said."""
    answer = (ctx.input_responses or {}).get("draft")
    if answer is None:
        message = mcp_types.SamplingMessage(
            role="user", content=mcp_types.TextContent(type="text", text=f"A haiku about {topic}")
        )
        request = mcp_types.CreateMessageRequest(
            params=mcp_types.CreateMessageRequestParams(messages=[message], max_tokens=60)
        )
        return mcp_types.InputRequiredResult(input_requests={"draft": request})
    fields = answer if isinstance(answer, dict) else answer.model_dump()
    return f"{fields['model']} wrote: {fields['content']['text']}"


@mcp.tool(task=TaskConfig(mode="required"))
async def where(ctx: Context) -> Any:
    """Asks for the client's roots (``roots/list`` among the task's inputRequests), then lists them."""
    answer = (ctx.input_responses or {}).get("roots")
    if answer is None:
        return mcp_types.InputRequiredResult(input_requests={"roots": mcp_types.ListRootsRequest()})
    fields = answer if isinstance(answer, dict) else answer.model_dump()
    return " ".join(str(root["uri"]) for root in fields["roots"])


@mcp.tool(task=TaskConfig(mode="required"))
async def stepper(steps: int, ctx: Context) -> str:
    """Counts to ``steps`` (0.1 s each), reporting progress; runs only as a task."""
    _count("stepper:task" if ctx.is_background_task else "stepper:plain")
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
        await asyncio.sleep(0.1)
    return f"{steps} steps done"


@mcp.tool(task=True)
async def explode() -> str:
    """Fails with a JSON-RPC error, so the task ends ``failed``."""
    raise MCPError(code=-32603, message="the reactor melted")


@mcp.tool
def echo(text: str) -> str:
    """A tool that never runs as a task."""
    return text


FAIL_NEXT: list[tuple[int, str]] = []


@mcp.tool
def fail_next_post(status: int, message: str) -> str:
    """The next HTTP POST is answered with ``status`` and ``message`` as plain text (no JSON-RPC)."""
    FAIL_NEXT.append((status, message))
    return "armed"


TASK_HEADERS: list[list[str]] = []


@mcp.tool
def task_headers() -> list[list[str]]:
    """``[Mcp-Method, Mcp-Name]`` of every tasks/* request so far (SEP-2663 routing headers)."""
    return list(TASK_HEADERS)


class FailOnce:
    """ASGI middleware for ``fail_next_post`` (what a proxy or a crashing handler answers); it also
    records the routing headers of tasks/* requests."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
            if headers.get("mcp-method", "").startswith("tasks/"):
                TASK_HEADERS.append([headers["mcp-method"], headers.get("mcp-name", "")])
        if scope["type"] == "http" and scope["method"] == "POST" and FAIL_NEXT:
            status, message = FAIL_NEXT.pop()
            headers = [(b"content-type", b"text/plain; charset=utf-8")]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": message.encode()})
            return
        await self.app(scope, receive, send)


@mcp.tool(task=True)
async def page(title: str, ctx: Context) -> str:
    """Returns the page as Markdown."""
    _count("page:task" if ctx.is_background_task else "page:plain")
    return f"## {title}\n\n| step | done |\n| --- | --- |\n| fetch | yes |"


#: What ``export`` sends: bytes that are no text (a zip's header and then some).
EXPORT = b"PK\x03\x04" + bytes(range(256))


@mcp.tool
def export() -> File:
    """An archive, as FastMCP sends a file: an embedded resource named by its ``file:///`` URI."""
    return File(data=EXPORT, format="zip", name="export")


class Order(BaseModel):
    id: int
    total: Decimal
    placed_at: datetime
    day: date
    code: str


@mcp.tool
def orders(n: int = 3) -> list[Order]:
    """Orders with money, times and codes, as a shop's database would return them."""
    placed = [datetime(2026, 12, 4, 14, i, tzinfo=UTC) for i in range(n)]
    return [
        Order(id=i, total=Decimal("3.10") * i, placed_at=placed[i], day=date(2026, 12, i + 1), code=f"{i:05}")
        for i in range(n)
    ]


@mcp.tool(task=True, app=AppConfig(resource_uri=DIAL_PAGE))
async def dial(turns: int, ctx: Context) -> str:
    """Turns a dial ``turns`` times, 0.1 s each; its page (an MCP App) shows where it stopped."""
    _count("dial:task" if ctx.is_background_task else "dial:plain")
    await asyncio.sleep(0.1 * turns)
    return f"dialled {turns}"


@mcp.resource(DIAL_PAGE)  # ui://: FastMCP serves it as an MCP App page (text/html;profile=mcp-app)
def dial_page() -> str:
    return "<!doctype html><html><head><title>dial</title></head><body>dial</body></html>"


@mcp.tool
def runs() -> dict[str, int]:
    """How many times each task-capable tool started, and how (task or plain)."""
    return dict(STARTED)


def main() -> None:
    kind = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if kind == "stdio":
        mcp.run("stdio", show_banner=False)
        return
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)  # the URL printed below accepts at once, before uvicorn has started
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    from starlette.middleware import Middleware

    asyncio.run(
        mcp.run_http_async(
            show_banner=False,
            transport="http",
            host="127.0.0.1",
            port=sock.getsockname()[1],
            log_level="warning",
            sockets=[sock],
            middleware=[Middleware(FailOnce)],
        )
    )


if __name__ == "__main__":
    main()
