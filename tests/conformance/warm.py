"""``client.py`` started warm: a process that has imported it once forks a fresh client per run.

Each scenario's runner starts the client it tests as a program (``--command``). A fresh
``python client.py`` spent about a second importing mcpnb, the SDK and pydantic's models before it
did anything, 56 times a test file. Here one process per test file (``serve``) imports all of that
and waits on a Unix socket; the runner's command is this file's ``connect``, a Python without
``site`` that imports only the standard library's sockets. It hands the server its arguments, its
environment, its working directory and its own stdin, stdout and stderr (the runner's pipes); the
server forks, and the child, a copy of the process as it stood right after the imports (nothing of
an earlier run is in it: every run is a fork of that same state), becomes that client: the
environment, directory, ``sys.argv`` and standard streams are the runner's, ``client.main`` runs,
and the child exits as ``python client.py`` would (``sys.exit`` of what ``main`` returned, atexit
handlers and non-daemon threads included). ``connect`` exits with the child's status. When the runner
kills ``connect`` (its timeout), the server sees the socket close and stops the child.

A run's process differs from ``python client.py`` only in being forked (its parent is this server,
not the runner's shell). Nothing the tests check reads that: the runner judges what its servers
saw, and the tests read the runner's output, its exit code and the events file ``client.py`` writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys

#: What ``client.py`` imports as it connects (the transports, auth, the schema checks), imported
#: by the server once rather than by each run.
PRELOAD = (
    "httpx2",
    "httpcore2",
    "h11",
    "anyio._backends._asyncio",
    "jsonschema_rs",
    "jwt",
    "cryptography.x509",
    "truststore",
    "tomllib",
    "mcp.client.auth",
    "mcpnb.client.server_skills",
    "mcpnb.client.apps",
    "mcpnb.client.arguments",
    "mcpnb.client.config",
    "mcpnb.client.doors",
    "mcpnb.client.lean",
    "mcpnb.client.nullable",
    "mcpnb.client.pipes",
    "mcpnb.client.reaper",
    "mcpnb.client.resulttype",
    "mcpnb.client.schemacheck",
    "mcpnb.client.schemacost",
    "mcpnb.client.schemarefs",
    "mcpnb.client.stdio",
    "mcpnb.client.tasks",
    "mcpnb.client.transcript",
    "mcpnb.client.transports",
    "mcpnb.client.whole_numbers",
)

#: connect -> serve: an 8-byte length, then JSON {"argv", "env", "cwd"}; fds 0, 1, 2 with the length.
#: serve -> connect: the child's wait status, 4 bytes.
HEADER = 8


def connect(path: str, argv: list[str]) -> int:
    """The runner's command: run ``client.py argv`` in a fork of the server at ``path``."""
    payload = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        socket.send_fds(conn, [len(payload).to_bytes(HEADER, "big")], [0, 1, 2])
        conn.sendall(payload)
        status = _read(conn, 4)
    if len(status) < 4:
        print(f"warm client: the server at {path} closed without a status", file=sys.stderr)
        return 70
    wait_status = int.from_bytes(status, "big")
    if os.WIFSIGNALED(wait_status):  # end as the child ended
        sig = os.WTERMSIG(wait_status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        return 128 + sig
    return os.waitstatus_to_exitcode(wait_status)


def _read(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def serve(path: str) -> None:
    """Import the client, listen at ``path``, fork a client for each ``connect``. The server runs
    until it is stopped (SIGTERM); in a child, this raises ``SystemExit`` as the client ends."""
    import atexit
    import gc
    import importlib
    import selectors

    atexit.register(_end_child)  # the first registered runs last: after every other one
    # the conformance client (mcpnb, the SDK, pydantic's models), and what it imports as it runs
    import client

    for name in PRELOAD:
        importlib.import_module(name)
    gc.freeze()  # what is imported stays as it is: a child's collections do not walk (and copy) it

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(16)
    selector = selectors.DefaultSelector()
    selector.register(server, selectors.EVENT_READ, ("accept",))
    children: dict[int, socket.socket] = {}  # running, whose connect is still there
    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            kind = key.data[0]
            if kind == "accept":
                conn, _ = server.accept()
                header, fds, _, _ = socket.recv_fds(conn, HEADER, 3)
                request = json.loads(_read(conn, int.from_bytes(header, "big")))
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    selector.close()
                    server.close()
                    conn.close()
                    _become_client(client, request, fds)  # raises SystemExit
                for fd in fds:
                    os.close(fd)
                pidfd = os.pidfd_open(pid)
                selector.register(pidfd, selectors.EVENT_READ, ("ended", pid, conn))
                selector.register(conn, selectors.EVENT_READ, ("gone", pid))
                children[pid] = conn
            elif kind == "ended":  # the child ended: tell connect its status
                _, pid, conn = key.data
                selector.unregister(key.fileobj)
                os.close(key.fd)
                _, wait_status = os.waitpid(pid, 0)
                if children.pop(pid, None) is not None:
                    selector.unregister(conn)
                with contextlib.suppress(OSError):  # connect is gone
                    conn.sendall(wait_status.to_bytes(4, "big"))
                conn.close()
            else:  # "gone": connect ended first (the runner killed it), so the child stops
                _, pid = key.data
                if children.pop(pid, None) is None:  # it ended in this same round
                    continue
                selector.unregister(key.fileobj)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)


def _become_client(client, request: dict, fds: list[int]) -> None:
    """In the child: the runner's streams, environment, directory and arguments, then the client."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [client.__file__, *request["argv"]]
    code: object = 1  # an exception out of main: its traceback, then 1, as python client.py
    try:
        code = client.main(sys.argv)
    except SystemExit as stop:
        code = stop.code
        raise
    finally:
        _exiting["status"] = code if isinstance(code, int) else 0 if code is None else 1
    sys.exit(code)


#: In a child, the status it exits with (see :func:`_end_child`).
_exiting: dict[str, int] = {}


def _end_child() -> None:
    """A child's last exit step, once its threads were joined and every other atexit handler ran:
    flush the standard streams and end. A fork's interpreter teardown (every module of the copied
    process freed, each free a page copied) took a quarter of a second and does nothing a run needs."""
    if "status" in _exiting:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(_exiting["status"])


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        sys.exit(connect(sys.argv[2], sys.argv[3:]))
