"""A stdio server's pipes as the two streams ``mcp.Client`` takes, with no task between them.

The SDK's stdio client puts a memory stream and a task on each side: a writer task takes each
message from the session and writes it, a reader task hands each line to the session's receive
loop. Every call then goes round the event loop five more times than it needs (12 turns for a
call instead of 7, ~60 µs a call on this machine; issue 13). Here the session's own tasks do the
work: a send writes into asyncio's pipe transport, which buffers (``drain`` waits only while the
pipe is full, so back-pressure holds, and concurrent sends never interleave a line), and the
session's receive loop reads the pipe itself.

The reader also keeps what mcpnb's stdio has always done with a line: a ``print`` left in a
server goes to its log (``on_bad_line``), a malformed answer to a pending request fails that
call at once (:func:`salvage`), and a line longer than ``max_message`` ends the session instead
of growing until the kernel dies.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import re
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from mcpnb.client.errors import MessageTooLargeError, validation_problem

#: How much of the pipe one read takes (anyio's ``TextReceiveStream`` took as much).
CHUNK = 65536


class MessageWriter:
    """The session's write stream: each message goes into the pipe from the sending task.

    One sender at a time, and only once the pipe has room: the message is encoded and written
    after that. A sender cancelled while it waits (its call timed out, or was interrupted) sends
    nothing, and what waits for a server that stopped reading is one message in the pipe's buffer,
    not every call's (writing first and draining after let 300 calls of 1 MB fill 300 MB, and each
    cancelled call still reached the server when it read again). Uncontended, the lock and the
    drain do not yield: no turn of the loop is added.
    """

    def __init__(self, stdin: asyncio.StreamWriter, on_broken: Callable[[], None]) -> None:
        self._stdin = stdin
        self._on_broken = on_broken  # the server stopped reading: the session must hear the end
        self._closed = False
        self._turn = asyncio.Lock()

    async def send(self, message: Any) -> None:
        import anyio

        async with self._turn:
            if self._closed:
                raise anyio.ClosedResourceError
            try:
                await self._stdin.drain()  # room first: a sender cancelled here has sent nothing
                self._refuse_if_gone()
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                self._stdin.write(data.encode())
                self._refuse_if_gone()  # the write failed at once (EPIPE): the line was dropped
            except (OSError, RuntimeError) as exc:  # a broken pipe; RuntimeError: uvloop's closed transport
                self._closed = True  # no more writes into a lost pipe (asyncio warns at each one)
                self._on_broken()
                raise anyio.BrokenResourceError from exc

    def _refuse_if_gone(self) -> None:
        if self._stdin.is_closing():
            raise BrokenPipeError("the server closed its stdin")

    async def flush(self) -> None:
        """Wait until what was sent has left for the pipe (the server reads it, or it is gone)."""
        with contextlib.suppress(OSError, RuntimeError):
            await self._stdin.drain()

    def close(self) -> None:
        self._closed = True

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> MessageWriter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class MessageReader:
    """The session's read stream: its receive loop reads the pipe, a message per line.

    ``on_end(too_large)`` is awaited once when the server's output ends (``None``) or a line is
    longer than ``max_message`` characters (the error); after it the stream is over. Not when the
    stream is closed from our side.
    """

    def __init__(
        self,
        stdout: asyncio.StreamReader,
        *,
        server: str,
        on_bad_line: Callable[[str], None],
        on_end: Callable[[MessageTooLargeError | None], Awaitable[None]],
        max_message: int | None = None,
    ) -> None:
        self._stdout = stdout
        self._server = server
        self._on_bad_line = on_bad_line
        self._on_end = on_end
        self._max_message = max_message
        # utf-8-sig: a byte order mark before the first line (a Windows-built server, a .NET one) is
        # no text; read as the first message's first character it lost the handshake's answer
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._pieces: list[str] = []  # a line still unfinished
        self._held = 0  # characters in _pieces
        self._ready: deque[Any] = deque()
        self._over = False

    async def receive(self) -> Any:
        import anyio

        while not self._ready:
            if self._over:
                raise anyio.EndOfStream
            try:
                chunk = await self._stdout.read(CHUNK)
            except anyio.ClosedResourceError:  # closed from our side (the server stopped reading)
                chunk = None
            if not chunk:
                self._over = True
                if chunk is not None:
                    await self._on_end(None)
                continue
            too_large = self._take(self._decoder.decode(chunk))
            if too_large is not None:
                self._over = True
                await self._on_end(too_large)
        if len(self._ready) > 1:  # a backlog (a server's flood): the runtime loop's other work gets
            await asyncio.sleep(0)  # a turn between its messages, or other connections wait it out
        return self._ready.popleft()  # taken after the turn: a cancellation there loses nothing

    def _take(self, text: str) -> MessageTooLargeError | None:
        """The messages of the lines ``text`` ends, onto the ready queue; the rest is kept."""
        from mcp.shared.message import SessionMessage

        from mcpnb.client.lean import parse_message

        *lines, rest = text.split("\n")
        for line in lines:
            self._pieces.append(line)
            whole, self._pieces, self._held = "".join(self._pieces), [], 0
            if not whole.strip():
                continue
            try:
                messages = [parse_message(whole)]
            except (ValueError, RecursionError):  # RecursionError: JSON nested deeper than Python goes
                messages, read = salvage(whole)
                if not read:
                    self._on_bad_line(whole)
            del whole  # a 200 MB line is not kept while the session reads the message
            self._ready.extend(SessionMessage(message) for message in messages)
        if rest:
            self._pieces.append(rest)
            self._held += len(rest)
            if self._max_message is not None and self._held > self._max_message:
                self._pieces.clear()
                return MessageTooLargeError(self._server, self._max_message)
        return None

    def close(self) -> None:
        """No more messages: a receive waiting on the pipe ends too."""
        import anyio

        self._over = True
        self._stdout.set_exception(anyio.ClosedResourceError())

    async def aclose(self) -> None:
        self._over = True

    def __aiter__(self) -> MessageReader:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> MessageReader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def salvage(line: str) -> tuple[list[Any], bool]:
    """What can still be read from a line that is not one JSON-RPC message: each message of a
    batch (the 2025-03-26 array form), and for a malformed answer to a request (``"result": null``)
    an error answer to that request, so its call fails now with the reason instead of waiting out
    its timeout. A line cut short that starts as an answer fails its call too (:func:`_cut_short`);
    anything else (not JSON) is only the server's log's business.
    Also says whether the whole line was read (else it goes to the server's log)."""
    import json

    from mcp_types import jsonrpc_message_adapter as adapter

    try:
        value = json.loads(line)
    except ValueError as exc:
        return _cut_short(line, f"is not valid JSON ({exc})"), False
    except RecursionError:  # a value nested deeper than Python's stack reads: the line is lost
        return _cut_short(line, "is JSON nested too deeply to read"), False
    found, whole = [], isinstance(value, list) and bool(value)
    for item in value if isinstance(value, list) else [value]:
        try:
            found.append(adapter.validate_python(item, by_name=False))  # as parse_message reads a line
            continue
        except ValueError as exc:
            why, whole = exc, False
        request_id = item.get("id") if isinstance(item, dict) and "method" not in item else None
        if type(request_id) not in (int, str):
            continue
        why = _first_problem(item) or why
        found.append(_failed(request_id, f"the server's answer is not valid JSON-RPC ({why})"))
    return found, whole


def _failed(request_id: int | str, why: str) -> Any:
    """An error answer to ``request_id`` in the server's stead: its call fails now, saying ``why``."""
    from mcp_types import ErrorData, JSONRPCError

    said = f"{why}; the line is in its log (%mcp logs)"
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=-32603, message=said))


#: The start of an answer as serializers write it (the SDK's pydantic: jsonrpc, id, then result or
#: error): enough to tell which request a line that is cut short answers.
_ANSWER_START = re.compile(
    r'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,\s*"(?:result|error)"\s*:'
)


def _cut_short(line: str, why: str) -> list[Any]:
    """An error answer for a line that is no JSON but starts as an answer to a request (a server
    that died or was cut mid-write): that call fails now, saying so, instead of waiting out its
    timeout. Any other line is the server's log's business only."""
    import json

    start = _ANSWER_START.match(line)
    if start is not None:
        return [_failed(json.loads(start.group(1)), f"the server's answer {why}")]
    start = _ANSWER_START.search(line)  # after text of its own: a print() that wrote no newline
    if start is None:
        return []
    before = line[: start.start()].strip()
    shown = before if len(before) <= 40 else before[:39] + "…"
    said = f"the server's answer came after other text on its line ({shown!r}): a print() without a newline?"
    return [_failed(json.loads(start.group(1)), said)]


def _first_problem(answer: dict[str, Any]) -> str | None:
    """What is wrong with an answer, in a few words (``result: Input should be a valid dictionary``),
    rather than what every kind of message would have needed."""
    from mcp_types import JSONRPCError, JSONRPCResponse
    from pydantic import ValidationError

    try:
        (JSONRPCError if "error" in answer else JSONRPCResponse).model_validate(answer)
    except ValidationError as exc:
        return validation_problem(exc)
    return None
