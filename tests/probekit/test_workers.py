"""Real worker processes sharing a task store (SQLite file, real redis-server), driven by an mcpnb Pool
in both eras: a task started on worker A is read, answered and cancelled through worker B
(``pool.attach_task``); it expires with its TTL; A restarts and its tasks are still there; A is
killed mid-task and B reports the task as failed, saying why, and the finished one's result.

Each worker is ``python -m mcpnb.probekit --http`` on its own loopback port, in its own process group,
and dies with the test process (``PR_SET_PDEATHSIG``) even if the run is killed.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpnb.client.interaction import Interaction
from mcpnb.client.tasks import TaskCancelledError, TaskExpiredError
from tests.probekit.stores import SHARED, die_with_parent, flush, redis_server  # noqa: F401  (fixture)

ERAS = ["modern", "legacy"]
LEASE_S = 2.0
SLOW = {"steps": 400, "delay": 0.05}
ASKS = {"steps": 4, "delay": 0.05, "confirm": True}


class Worker:
    """One probe-kit worker process on 127.0.0.1; ``kill()`` is SIGKILL, ``stop()`` SIGTERM."""

    def __init__(self, store: str, root: Path, log: Path, *extra: str, port: int = 0) -> None:
        self.args = [
            sys.executable, "-m", "mcpnb.probekit", "--http", "--port", str(port), "--root", str(root),
            "--task-store", store, "--poll-interval-ms", "20", "--task-lease-s", str(LEASE_S), *extra,
        ]  # fmt: skip
        self.log = log
        self.proc = subprocess.Popen(
            self.args,
            stdout=subprocess.PIPE,
            stderr=log.open("ab"),
            text=True,
            preexec_fn=die_with_parent,
        )
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            line = pool.submit(self.proc.stdout.readline)  # type: ignore[union-attr]
            try:
                # printed once every worker serves; probe-kit itself gives up after START_TIMEOUT_S (120)
                self.url = line.result(timeout=150).strip()
            except concurrent.futures.TimeoutError:
                self.kill()
                raise AssertionError(f"worker printed no URL in 150 s: {log.read_text()[-2000:]}") from None
        assert self.url.startswith("http://127.0.0.1:"), f"{self.url!r}: {log.read_text()[-2000:]}"
        self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        self.ask_to_stop()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()

    def ask_to_stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)


class Proceed(Interaction):
    """Says yes to every question and remembers which server asked."""

    def __init__(self) -> None:
        super().__init__()
        self.asked_by: list[str] = []

    async def elicit(self, server: str, params: Any, call: Any) -> Any:
        from mcp.types import ElicitResult

        self.asked_by.append(server)
        return ElicitResult(action="accept", content={"proceed": True})


@pytest.fixture(params=SHARED)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'tasks.db'}"
    url = request.getfixturevalue("redis_server")
    flush(url)
    return f"{url}/0"


@pytest.fixture
def spawn(tmp_path: Path, store: str) -> Iterator[Callable[..., Worker]]:
    started: list[Worker] = []
    root = tmp_path / "root"
    root.mkdir()

    def start(*extra: str, port: int = 0) -> Worker:
        worker = Worker(store, root, tmp_path / "workers.log", *extra, port=port)
        started.append(worker)
        return worker

    yield start
    for worker in started:  # all at once: each may wait a moment for open streams
        worker.ask_to_stop()
    for worker in started:
        worker.stop()


def connect(pool: Any, name: str, worker: Worker, era: str) -> None:
    pool.connect(name, url=worker.url, era=era, wait=30)


def until(check: Callable[[], Any], what: str, ticks: int = 300, every: float = 0.05) -> Any:
    """Call ``check`` until it returns something truthy (bounded count)."""
    for _ in range(ticks):
        found = check()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"never: {what}")


@pytest.mark.parametrize("era", ERAS)
def test_started_on_a_answered_and_finished_through_b(spawn: Any, pool: Any, era: str) -> None:
    a, b = spawn(), spawn()
    connect(pool, "A", a, era)
    connect(pool, "B", b, era)
    person = Proceed()
    pool.interaction = person
    started = pool.start_task("A", "slow_task", ASKS)  # never awaited here: A's handle does not poll
    attached = pool.attach_task("B", started.task_id)
    assert attached is not started and attached.server == "B" and attached.task_id == started.task_id
    result = attached.result(timeout=60)
    assert person.asked_by == ["B"]  # the question came through B, from the task A runs
    assert not result.is_error and result.data["confirmed"] is True and len(result.data["steps"]) == 4
    assert started.refresh() == "completed"  # and A says the same


@pytest.mark.parametrize("era", ERAS)
def test_cancelled_through_b_stops_the_work_on_a(spawn: Any, pool: Any, era: str) -> None:
    a, b = spawn(), spawn()
    connect(pool, "A", a, era)
    connect(pool, "B", b, era)
    started = pool.start_task("A", "slow_task", SLOW)
    attached = pool.attach_task("B", started.task_id)
    until(
        lambda: (attached.refresh(), (attached.status_message or "").startswith("block "))[1], "work begins"
    )
    assert attached.cancel() == "cancelled"
    with pytest.raises(TaskCancelledError):
        attached.result(timeout=10)
    assert started.refresh() == "cancelled"
    message = started.status_message
    time.sleep(0.3)  # the work stopped: a running job would keep rewriting "block n/400"
    assert started.refresh() == "cancelled" and started.status_message == message


@pytest.mark.parametrize("era", ERAS)
def test_a_task_expires_with_its_ttl_on_every_worker(spawn: Any, pool: Any, era: str) -> None:
    a, b = spawn("--task-ttl-ms", "1500"), spawn("--task-ttl-ms", "1500")
    connect(pool, "A", a, era)
    connect(pool, "B", b, era)
    started = pool.start_task("A", "slow_task", {"steps": 1, "delay": 0})
    assert not started.result(timeout=30).is_error
    attached = pool.attach_task("B", started.task_id)
    assert attached.status == "completed"

    def expired() -> bool:
        try:
            pool.attach_task("B", started.task_id).refresh()
        except TaskExpiredError:
            return True
        return False

    until(expired, "the task expires", ticks=100, every=0.1)
    with pytest.raises(TaskExpiredError, match=r"no longer knows (the task|task)"):
        pool.attach_task("A", started.task_id)


def test_a_restarted_worker_still_has_its_tasks(spawn: Any, pool: Any) -> None:
    a, b = spawn(), spawn()
    connect(pool, "A", a, "modern")
    connect(pool, "B", b, "modern")
    done = pool.start_task("A", "slow_task", {"steps": 2, "delay": 0})
    assert not done.result(timeout=30).is_error
    running = pool.start_task("A", "slow_task", SLOW)
    until(lambda: running.refresh() == "working", "the task runs")
    a.stop()  # a graceful stop cancels what it runs, and says so
    stopped = pool.attach_task("B", running.task_id)
    assert stopped.status == "cancelled" and "probe-kit stopped" in (stopped.status_message or "")
    again = spawn(port=a.port)  # the same address: the pool's connection to A finds it again
    assert again.url == a.url
    kept = until(lambda: _attach_quietly(pool, "A", done.task_id), "A answers again", ticks=100, every=0.2)
    assert kept.status == "completed" and kept.result(timeout=30).data["totalPrimes"] > 0


def _attach_quietly(pool: Any, server: str, task_id: str) -> Any:
    from mcpnb.client.errors import McpnbError

    try:
        return pool.attach_task(server, task_id)
    except McpnbError:
        return None


@pytest.mark.parametrize("era", ERAS)
def test_a_killed_worker_loses_no_task_state(spawn: Any, pool: Any, era: str) -> None:
    a, b = spawn(), spawn()
    connect(pool, "A", a, era)
    connect(pool, "B", b, era)
    finished = pool.start_task("A", "slow_task", {"steps": 2, "delay": 0})
    assert not finished.result(timeout=30).is_error
    running = pool.start_task("A", "slow_task", SLOW)
    until(lambda: running.refresh() == "working", "the task runs")
    a.kill()  # SIGKILL: no goodbye, no last write
    kept = pool.attach_task("B", finished.task_id)
    assert kept.status == "completed" and kept.result(timeout=30).data["totalPrimes"] > 0
    orphan = pool.attach_task("B", running.task_id)
    result = orphan.result(timeout=10 * LEASE_S)  # B notices once A's lease runs out
    assert orphan.status == "failed" and result.is_error
    assert "stopped before it finished" in result.text and "Run the tool again" in result.text


# --- serving from several processes ---------------------------------------------------------------


def test_workers_flag_serves_from_n_processes_and_stops_them_all(tmp_path: Path, pool: Any) -> None:
    store = f"sqlite://{tmp_path / 'tasks.db'}"
    parent = Worker(store, tmp_path, tmp_path / "log", "--workers", "2")
    try:
        children = until(
            lambda: _workers_of(parent.proc.pid, 2), "two worker processes", ticks=200, every=0.1
        )
        connect(pool, "one", parent, "modern")
        connect(pool, "two", parent, "modern")  # another connection: the kernel picks the worker
        started = pool.start_task("one", "slow_task", {"steps": 2, "delay": 0})
        assert not pool.attach_task("two", started.task_id).result(timeout=30).is_error
    finally:
        parent.stop()
    assert all(not Path(f"/proc/{pid}").exists() or _zombie(pid) for pid in children)


def _workers_of(pid: int, count: int) -> list[int] | None:
    """The uvicorn worker processes under ``pid`` (multiprocessing's resource tracker is not one)."""
    found = []
    for child in _children(pid):
        cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
        if b"spawn_main" in cmdline:
            found.append(child)
    return found if len(found) == count else None


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def test_more_than_one_worker_needs_a_shared_store(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "mcpnb.probekit", "--http", "--workers", "3"]
    env = {k: v for k, v in os.environ.items() if k != "MCP_TASK_STORE"}
    refused = subprocess.run(run, capture_output=True, text=True, timeout=60, env=env)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "--workers 3 needs a task store the workers share" in refused.stderr
    assert "--task-store redis://127.0.0.1:6379/0" in refused.stderr
    stdio = subprocess.run([*run[:3], "--workers", "2"], capture_output=True, text=True, timeout=60)
    assert stdio.returncode == 2 and "--workers needs --http" in stdio.stderr


def test_only_loopback_is_quiet() -> None:
    from mcpnb.probekit.workers import reachable_warning

    assert reachable_warning("127.0.0.1", 8000) is None
    warning = reachable_warning("0.0.0.0", 8000)
    assert (
        warning is not None and "reachable from other machines" in warning and "no authentication" in warning
    )


async def _accepted_nodelay(http: Any) -> int:
    """TCP_NODELAY of the connection uvicorn accepted on a protocol-0 listener (uvicorn's own kind)."""
    import asyncio
    import socket

    import httpx2 as httpx
    import uvicorn

    from mcpnb.probekit.app import build_app
    from mcpnb.probekit.server import create_server

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # proto 0, as uvicorn binds it
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    server = uvicorn.Server(uvicorn.Config(build_app(create_server("core")), http=http, log_level="warning"))
    serving = asyncio.create_task(server.serve(sockets=[listener]))
    try:
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)
        port = listener.getsockname()[1]
        async with httpx.AsyncClient() as client:
            await client.get(f"http://127.0.0.1:{port}/nowhere")
            (protocol,) = server.server_state.connections
            return protocol.transport.get_extra_info("socket").getsockopt(
                socket.IPPROTO_TCP, socket.TCP_NODELAY
            )
    finally:
        server.should_exit = True
        await serving


@pytest.mark.anyio
async def test_uvicorn_factory_protocol_turns_nagle_off() -> None:
    from mcpnb.probekit.app import NoDelayHTTP

    assert await _accepted_nodelay("auto") == 0  # why the protocol exists: ~40 ms per response
    assert await _accepted_nodelay(NoDelayHTTP) != 0


def test_the_workers_listener_is_ipproto_tcp() -> None:
    import socket

    from mcpnb.probekit.workers import bind

    sock = bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP  # asyncio sets TCP_NODELAY on what it accepts
    finally:
        sock.close()


def _rounds(url: str, body: dict[str, Any]) -> dict[str, Any]:
    """One 2026-07-28 request on a connection of its own (so the kernel picks the worker anew)."""
    import httpx2

    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": body["name"],
        "Connection": "close",
    }
    with httpx2.Client(headers=headers, timeout=30) as client:
        reply = client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": body})
    return reply.json()


def test_a_questions_second_round_may_reach_another_worker(tmp_path: Path) -> None:
    # each worker sealed requestState with a key of its own: a retry that reached the other
    # worker than its first round was refused ("invalid requestState", -32602)
    store = f"sqlite://{tmp_path / 'tasks.db'}"
    parent = Worker(store, tmp_path, tmp_path / "log", "--workers", "2")
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    }
    call = {"name": "ask_user", "arguments": {"question": "Your name?"}, "_meta": meta}
    try:
        until(lambda: _workers_of(parent.proc.pid, 2), "two worker processes", ticks=200, every=0.1)
        for _ in range(16):  # which worker accepts a new connection is the kernel's choice
            asked = _rounds(parent.url, call)["result"]
            assert asked["resultType"] == "input_required", asked
            (key,) = asked["inputRequests"]
            answer = {"action": "accept", "content": {"answer": "Ada"}}
            retry = {**call, "inputResponses": {key: answer}, "requestState": asked["requestState"]}
            done = _rounds(parent.url, retry)
            assert "error" not in done, done
            said = done["result"]["structuredContent"]
            assert said["action"] == "accept" and said["answers"][0]["answer"] == "Ada"
    finally:
        parent.stop()
