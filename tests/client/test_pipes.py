"""A stdio server's pipes as the session's streams: whole lines in and out, ends said once, and
fewer turns of the event loop per call than the SDK's stdio client (the reason they exist)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from typing import Any

import anyio
import pytest
from conftest import DEMO
from mcp_types import JSONRPCNotification

from mcpnb.client.errors import MessageTooLargeError
from mcpnb.client.pipes import MessageReader, MessageWriter


def message(method: str, **params: Any) -> Any:
    from mcp.shared.message import SessionMessage

    return SessionMessage(JSONRPCNotification(jsonrpc="2.0", method=method, params=params))


class Ends:
    """What ``on_end`` was told, in order."""

    def __init__(self) -> None:
        self.said: list[MessageTooLargeError | None] = []

    async def __call__(self, too_large: MessageTooLargeError | None) -> None:
        self.said.append(too_large)


async def pipe_reader(**kw: Any) -> tuple[MessageReader, int, list[str], Ends]:
    """A reader on a real pipe whose write end the test holds (an fd), with what it reports."""
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    stdout = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), os.fdopen(read_fd, "rb", 0))
    bad: list[str] = []
    ends = Ends()
    reader = MessageReader(stdout, server="srv", on_bad_line=bad.append, on_end=ends, **kw)
    return reader, write_fd, bad, ends


async def read_all(reader: MessageReader) -> list[Any]:
    return [item.message async for item in reader]


def test_concurrent_sends_of_large_messages_arrive_whole():
    """Eight tasks send 300 kB messages at once through a pipe that holds 64 kB: each line comes
    back whole (a send writes its line in one piece; ``drain`` waits while the pipe is full)."""

    async def scenario() -> list[Any]:
        cat = await asyncio.create_subprocess_exec(
            "cat", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        assert cat.stdin is not None and cat.stdout is not None
        ends = Ends()
        reader = MessageReader(cat.stdout, server="cat", on_bad_line=print, on_end=ends)
        writer = MessageWriter(cat.stdin, on_broken=reader.close)
        got: list[Any] = []

        async def collect() -> None:
            for _ in range(8):
                got.append((await reader.receive()).message)

        async with anyio.create_task_group() as tg:
            tg.start_soon(collect)
            for n in range(8):
                tg.start_soon(writer.send, message("notifications/message", n=n, data=str(n) * 300_000))
        cat.stdin.close()
        assert await read_all(reader) == [] and ends.said == [None]
        await cat.wait()
        return got

    got = asyncio.run(scenario())
    assert sorted(m.params["n"] for m in got) == list(range(8))
    assert all(m.params["data"] == str(m.params["n"]) * 300_000 for m in got)


def test_lines_cut_across_reads_and_many_in_one_read():
    """The pipe gives what was written when it was written: half a line, then its end with more
    lines, a blank one, a print left in a server (to its log) and a 2025-03-26 batch (read)."""

    def line(n: int) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": n, "result": {"n": n}})

    async def scenario() -> tuple[list[Any], list[str], Ends]:
        reader, fd, bad, ends = await pipe_reader()
        first = line(1)
        batch = json.dumps([json.loads(line(4)), json.loads(line(5))])
        os.write(fd, first[:10].encode())
        await asyncio.sleep(0.05)
        os.write(fd, f"{first[10:]}\n{line(2)}\n\nhello from print()\n{line(3)}\n{batch}\n".encode())
        os.write(fd, "é".encode()[:1])  # a character cut in two by the pipe
        await asyncio.sleep(0.05)
        os.write(fd, "é".encode()[1:] + b"\n")
        os.close(fd)
        return await read_all(reader), bad, ends

    got, bad, ends = asyncio.run(scenario())
    assert [m.id for m in got] == [1, 2, 3, 4, 5]
    assert bad == ["hello from print()", "é"]  # whole, in the order written
    assert ends.said == [None]


def test_a_line_longer_than_the_limit_ends_the_stream_once():
    async def scenario() -> tuple[list[Any], Ends]:
        reader, fd, _, ends = await pipe_reader(max_message=1000)
        os.write(fd, (json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}}) + "\n").encode())
        os.write(fd, b"x" * 5000)  # no end of line, and more than the limit
        got = await read_all(reader)
        with pytest.raises(anyio.EndOfStream):
            await reader.receive()
        os.close(fd)
        return got, ends

    got, ends = asyncio.run(scenario())
    assert [m.id for m in got] == [1]  # what came before the long line still arrived
    assert len(ends.said) == 1 and isinstance(ends.said[0], MessageTooLargeError)


def test_closing_ends_a_waiting_receive_without_calling_it_the_servers_end():
    async def scenario() -> tuple[BaseException, Ends]:
        reader, fd, _, ends = await pipe_reader()
        waiting = asyncio.ensure_future(reader.receive())
        await asyncio.sleep(0.05)
        assert not waiting.done()
        reader.close()
        error = await asyncio.wait_for(asyncio.gather(waiting, return_exceptions=True), 5)
        os.close(fd)
        return error[0], ends

    error, ends = asyncio.run(scenario())
    assert isinstance(error, anyio.EndOfStream)
    assert ends.said == []  # we closed it: no news to report


def test_a_send_to_a_server_that_stopped_reading_fails_and_ends_the_reader():
    async def scenario() -> tuple[BaseException, list[Any]]:
        gone = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "import time, os; os.close(0); time.sleep(30)",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert gone.stdin is not None and gone.stdout is not None
        reader = MessageReader(gone.stdout, server="gone", on_bad_line=print, on_end=Ends())
        writer = MessageWriter(gone.stdin, on_broken=reader.close)
        await asyncio.sleep(0.5)  # it has closed its stdin by now
        try:
            with pytest.raises(anyio.BrokenResourceError) as caught:
                for _ in range(100):  # the first writes may still land in the pipe's buffer
                    await writer.send(message("notifications/initialized"))
                    await asyncio.sleep(0.01)
            return caught.value, await asyncio.wait_for(read_all(reader), 5)
        finally:
            gone.kill()
            await gone.wait()

    error, left = asyncio.run(scenario())
    assert isinstance(error.__cause__, OSError)
    assert left == []  # the session's receive loop would end, not wait for an answer


def test_a_closed_writer_refuses_to_send():
    async def scenario() -> None:
        cat = await asyncio.create_subprocess_exec("cat", stdin=asyncio.subprocess.PIPE)
        writer = MessageWriter(cat.stdin, on_broken=lambda: None)  # type: ignore[arg-type]
        async with writer:
            pass
        with pytest.raises(anyio.ClosedResourceError):
            await writer.send(message("notifications/initialized"))
        cat.stdin.close()  # type: ignore[union-attr]
        await cat.wait()

    asyncio.run(scenario())


def test_a_call_goes_round_the_loop_fewer_times_than_through_the_sdks_stdio_client():
    """What the streams are for (issue 13): the SDK's client puts a task and a memory stream on
    each side of the pipe, and each hand-off is another turn of the loop. Counted, not timed: the
    turns of one loop for the same calls to the same server, through each transport."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from mcpnb.client.stdio import stdio_transport

    async def turns_per_call(transport: Any) -> float:
        loop = asyncio.get_running_loop()
        turns = 0
        run_once = loop._run_once  # type: ignore[attr-defined]  # no public hook counts a loop's turns

        def counted() -> None:
            nonlocal turns
            turns += 1
            run_once()

        async with Client(transport, mode="auto") as client:
            for _ in range(3):  # warm: the SDK lists tools once, for their output schemas
                await client.call_tool("add", {"a": 1, "b": 2})
            loop._run_once = counted  # type: ignore[attr-defined]
            try:
                for _ in range(20):
                    assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {
                        "result": 3
                    }
            finally:
                del loop._run_once  # type: ignore[attr-defined]
        return turns / 20

    async def scenario() -> tuple[float, float]:
        with open(os.devnull, "w") as devnull:
            sdk = await turns_per_call(
                stdio_client(
                    StdioServerParameters(command=sys.executable, args=[DEMO, "stdio"]), errlog=devnull
                )
            )
            ours = await turns_per_call(
                stdio_transport(
                    "demo",
                    sys.executable,
                    [DEMO, "stdio"],
                    env=None,
                    cwd=None,
                    errlog=devnull,
                    on_bad_line=print,
                )
            )
        return sdk, ours

    sdk, ours = asyncio.run(scenario())
    assert ours <= sdk - 2, (sdk, ours)  # here: 8.2 and 5.0; mcpnb's old transport 8.1


def test_a_send_waits_for_room_so_a_cancelled_call_sends_nothing(tmp_path):
    """A server that stops reading (its loop blocked): forty 1 MB calls time out while they wait.
    Each waits for room in the pipe before it writes, so what reaches the server when it reads
    again is what was written before the pipe filled, not the cancelled calls too (they all did,
    and the kernel held every one in memory meanwhile: 40 MB here, 300 MB for 300 calls)."""
    flag, seen = tmp_path / "read-now", tmp_path / "seen"
    reader = (
        "import os, sys, time\n"
        f"while not os.path.exists({str(flag)!r}): time.sleep(0.01)\n"
        f"open({str(seen)!r}, 'wb').write(sys.stdin.buffer.read())\n"
    )

    async def scenario() -> int:
        server = await asyncio.create_subprocess_exec(
            sys.executable, "-c", reader, stdin=asyncio.subprocess.PIPE
        )
        assert server.stdin is not None
        writer = MessageWriter(server.stdin, on_broken=lambda: None)
        big = "x" * 1_000_000

        async def call(n: int) -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(writer.send(message("notifications/message", n=n, data=big)), 0.5)

        await asyncio.gather(*(call(n) for n in range(40)))
        held = server.stdin.transport.get_write_buffer_size()
        flag.touch()
        server.stdin.close()
        await server.wait()
        assert held <= 2_100_000, held  # one message beyond what the pipe took, not forty
        return seen.read_bytes().count(b"\n")

    assert asyncio.run(scenario()) <= 2  # the pipe takes 64 kB: the first call's message, at most one more


def test_no_write_goes_into_a_pipe_the_server_closed(caplog):
    """After the first failed write every send is refused at once: asyncio warned "pipe closed by
    peer or os.write(pipe, data) raised exception." for each later write, 195 lines in a cell."""

    async def scenario() -> list[type[BaseException]]:
        gone = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            "import os, time; os.close(0); time.sleep(30)",
            stdin=asyncio.subprocess.PIPE,
        )
        assert gone.stdin is not None
        writer = MessageWriter(gone.stdin, on_broken=lambda: None)
        await asyncio.sleep(0.5)  # it has closed its stdin by now
        raised: list[type[BaseException]] = []
        try:
            for _ in range(40):
                try:
                    await writer.send(message("notifications/initialized"))
                except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                    raised.append(type(exc))
                await asyncio.sleep(0)
        finally:
            gone.kill()
            await gone.wait()
        return raised

    with caplog.at_level("WARNING", logger="asyncio"):
        raised = asyncio.run(scenario())
    assert raised[0] is anyio.BrokenResourceError and set(raised[1:]) == {anyio.ClosedResourceError}
    assert not [r for r in caplog.records if "pipe closed by peer" in r.getMessage()]


def answer_line(result: str) -> str:
    return '{"jsonrpc": "2.0", "id": 7, "result": ' + result + "}"


def test_a_line_nested_deeper_than_python_reads_is_the_servers_bug_not_the_sessions_end():
    """``[`` × 100,000: json and pydantic raise RecursionError, which ended the session ("connection
    closed by the server"). It goes to the server's log; an answer so deep fails its call."""
    deep = "[" * 100_000 + "]" * 100_000

    async def scenario() -> tuple[list[Any], list[str]]:
        reader, fd, bad, _ = await pipe_reader()
        answer = answer_line(deep)
        fine = json.dumps({"jsonrpc": "2.0", "id": 8, "result": {}})
        data = f"{deep}\n{answer}\n{fine}\n".encode()

        def write_all() -> None:  # more than a pipe holds: written while the reader reads
            with os.fdopen(fd, "wb") as out:
                out.write(data)

        reading = asyncio.ensure_future(read_all(reader))
        await asyncio.to_thread(write_all)
        return await reading, bad

    got, bad = asyncio.run(scenario())
    assert [m.id for m in got] == [7, 8]
    assert got[0].error.message.startswith("the server's answer is JSON nested too deeply to read")
    assert bad == [deep, answer_line(deep)]  # both lines, whole, to its log


def test_a_byte_order_mark_before_the_first_line_is_no_text():
    """A server that writes UTF-8 with a BOM (a Windows-built one, a .NET one): the first line is
    still the handshake's answer, not "other text on its line ('\\ufeff')". The mark may come in
    two reads; a U+FEFF later in the stream is text and stays."""

    async def scenario() -> tuple[list[Any], list[str]]:
        reader, fd, bad, _ = await pipe_reader()
        first = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"name": "日本"}})
        os.write(fd, b"\xef\xbb")
        await asyncio.sleep(0.05)
        os.write(fd, b"\xbf" + first.encode() + b"\n\xef\xbb\xbfhello\n")
        os.close(fd)
        return await read_all(reader), bad

    got, bad = asyncio.run(scenario())
    assert [(m.id, m.result) for m in got] == [(1, {"name": "日本"})]
    assert bad == ["\ufeffhello"]


def test_a_backlog_of_messages_lets_the_loops_other_work_run_between_them():
    """A server that floods (20k notifications at once) left every other connection on the runtime
    loop waiting until its whole backlog was handled: the reader handed out buffered lines without
    ever giving the loop a turn. Here 200 lines arrive at once, and a task that only counts the
    loop's turns runs between them."""

    async def scenario() -> tuple[int, list[int]]:
        reader, write_fd, _bad, _ends = await pipe_reader()
        lines = "".join(
            json.dumps({"jsonrpc": "2.0", "method": "ping", "params": {"n": n}}) + "\n" for n in range(200)
        )
        os.write(write_fd, lines.encode())
        os.close(write_fd)
        turns = 0
        seen: list[int] = []

        async def count() -> None:
            nonlocal turns
            while True:
                turns += 1
                await asyncio.sleep(0)

        counter = asyncio.ensure_future(count())
        await asyncio.sleep(0)
        got = [(await reader.receive()).message]  # the first read buffers all 200 lines
        seen.append(turns)
        for _ in range(199):
            got.append((await reader.receive()).message)
            seen.append(turns)
        counter.cancel()
        assert [m.params["n"] for m in got] == list(range(200))  # all of them, in order
        return turns, seen

    turns, seen = asyncio.run(scenario())
    assert turns >= 150, turns  # the counting task ran between the messages, not only after them
    assert seen[-1] - seen[1] >= 150, seen[:5]
