"""One person, several kernels, one token file: ``token_storage: "file"`` shared by processes.

Three notebooks side by side (or a notebook and a papermill run) connect to the same OAuth server
with the same user config, so they read and write the same ``<token dir>/<server>.json``. The
authorization server here rotates refresh tokens (each refresh spends the one it was given), as
OAuth 2.1 asks of public clients. Each "kernel" is a real Python process with its own ``Pool``
(:data:`KERNEL`), driven one command at a time over its stdin. One pair of servers serves the
whole file (:func:`servers`): each test starts with a new token folder, new kernels (so new
clients) and the servers' counts at zero.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import wait_until
from servers.oauth_server import OAuthServers  # tests/ is on sys.path

from mcpnb.client.auth import CallbackListener, FileTokenStorage, forget_tokens, token_path

pytestmark = pytest.mark.usefixtures("isolated_tokens")

#: A stand-in kernel: one Pool, one OAuth server kept in the shared token file; a person at a
#: browser who follows every sign-in link (counted: a second kernel should never need one), after
#: the file ``$PERSON_WAITS_FOR`` names exists, if it names one (busy elsewhere for a while);
#: ``$NO_FILE_LOCKS``: on a file system without ``flock`` (the locks beside the file fail). What
#: mcpnb tells the person (its warnings) since the last answer comes with the next, and, as it happens, each
#: link and each notice is a line in the file ``sys.argv[2]`` (for a test to see while a command runs).
KERNEL = """
import json, os, sys, threading, time, warnings
import httpx2
import mcpnb
from mcpnb.client.auth import set_authorization_ui

links, told = [], []
hold = os.environ.get("PERSON_WAITS_FOR")
if os.environ.get("NO_FILE_LOCKS"):  # a file system without locks (NFS without lockd): flock fails
    import errno, fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    fcntl.flock = no_locks

def note(kind, text):
    with open(sys.argv[2], "a") as events:
        events.write(json.dumps([kind, text]) + "\\n")

def follow(url):  # the browser: the authorization server approves and redirects to the listener
    links.append(url)
    note("link", url)

    def browse():
        deadline = time.monotonic() + 60
        while hold and not os.path.exists(hold) and time.monotonic() < deadline:
            time.sleep(0.02)
        httpx2.get(url, follow_redirects=True)

    threading.Thread(target=browse).start()

def shown(message, *args, **kwargs):  # what mcpnb tells the person (a warning, shown in the cell)
    told.append(str(message))
    note("told", str(message))

warnings.showwarning = shown
set_authorization_ui(show_link=follow, mode="listener")
pool = mcpnb.Pool()
auth = {"type": "oauth", "flow": "authorization_code", "token_storage": "file"}
for line in sys.stdin:
    try:
        if line.strip() == "connect":
            pool.connect("shared", url=sys.argv[1], config={"auth": auth, "health_check_interval": 0})
            said = "connected"
        elif line.strip() == "signout":
            pool.disconnect("shared", sign_out=True)
            said = "signed out"
        elif line.strip() == "ping":
            said = "ready"
        else:
            said = pool.call("shared", "whoami").text
    except Exception as exc:
        said = f"failed: {type(exc).__name__}: {exc}"
    print(json.dumps({"said": said, "sign_ins": len(links), "told": told}), flush=True)
    told.clear()
pool.close()
"""


class Kernel:
    """One process of the person's, sharing the token directory with the others."""

    def __init__(self, url: str, events: Path, hold: Path | None = None, locks: bool = True) -> None:
        self.events = events
        env = dict(os.environ)  # MCPNB_TOKEN_DIR: the test's, the same for every kernel
        if hold is not None:
            env["PERSON_WAITS_FOR"] = str(hold)
        if not locks:
            env["NO_FILE_LOCKS"] = "1"
        self.process = subprocess.Popen(
            [sys.executable, "-c", KERNEL, url, str(events)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"the kernel ended (exit {self.process.poll()})"
        return json.loads(line)

    def run(self, command: str) -> dict[str, Any]:
        self.send(command)
        return self.answer()

    def seen(self, kind: str) -> list[str]:
        """The links shown ("link") or the notices told ("told") so far, a command still running."""
        try:
            lines = self.events.read_text().splitlines()
        except FileNotFoundError:
            return []
        return [text for k, text in map(json.loads, lines) if k == kind]

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def shared_servers() -> Iterator[OAuthServers]:
    with OAuthServers() as servers:
        yield servers


@pytest.fixture
def servers(shared_servers: OAuthServers) -> Iterator[OAuthServers]:
    """The file's servers, as a test's own: what they count at zero, tokens that live an hour, the
    refresh tokens back in a plain dict (a test may slow them down). What earlier tests left there
    (their clients and tokens) is never used again: each test's kernels register anew in a new
    token folder."""
    state = shared_servers.state
    state.token_requests.clear()
    state.authorize_requests = state.registrations = state.registering = state.register_together = 0
    state.token_ttl = 3600
    yield shared_servers
    state.refresh = dict(state.refresh)


@pytest.fixture
def kernels(tmp_path: Path) -> Iterator[Any]:
    """Started kernels; each stopped at the test's end, before the servers (a kernel's open
    connection held the servers' shutdown for seconds)."""
    started: list[Kernel] = []

    def start(url: str, hold: Path | None = None, locks: bool = True) -> Kernel:
        started.append(Kernel(url, tmp_path / f"kernel-{len(started)}.events", hold, locks))
        return started[-1]

    yield start
    for kernel in started:
        kernel.stop()


def signed_in_twice(servers: OAuthServers, *answers: dict[str, Any]) -> str:
    """What went wrong, if a kernel was sent to sign in again or a refresh was refused ("")."""
    wrong = [a["said"] for a in answers if not a["said"].startswith("dyn-")]
    if servers.state.authorize_requests != 1 or ("refresh_token", 400) in servers.token_requests:
        wrong.append(f"{servers.state.authorize_requests} sign-ins, token requests {servers.token_requests}")
    return "; ".join(wrong)


def test_a_kernel_refreshes_with_what_another_kernel_refreshed(servers, kernels):
    """Kernel B refreshed the tokens both kernels had read from the file (the server spent the old
    refresh token); kernel A, refreshing later with the one it held, was refused and sent to sign in
    again (a papermill run beside it would fail: nobody can sign in there). Either may refresh first,
    so both call after their tokens expired: neither is asked again."""
    servers.state.token_ttl = 1
    a, b = kernels(servers.mcp_url), kernels(servers.mcp_url)
    assert a.run("connect")["sign_ins"] == 1  # the person signs in once, in A
    assert b.run("connect") == {"said": "connected", "sign_ins": 0, "told": []}  # B uses the file
    time.sleep(1.5)  # every token either holds expires
    first = b.run("call")  # B refreshes
    second = a.run("call")  # A's token expired too: its refresh token is spent
    assert not signed_in_twice(servers, first, second)
    assert first["said"] == second["said"]


def clients_of_their_own(servers: OAuthServers, kernels: Any, hold: Path) -> tuple[Kernel, Kernel]:
    """Two kernels that each registered a client and signed in with it, sharing the token file:
    where no lock can be taken beside the file (NFS without lockd), neither waits for the other's
    sign-in, and both run their first cell at once. The file holds whichever stored last. (Both
    registrations are answered together: one kernel that read the other's registration, stored a
    moment before, would share its client instead, and find its redirect port taken.)"""
    a, b = kernels(servers.mcp_url, hold, locks=False), kernels(servers.mcp_url, hold, locks=False)
    assert a.run("ping")["said"] == b.run("ping")["said"] == "ready"
    servers.state.register_together = 2
    a.send("connect")
    b.send("connect")
    assert wait_until(lambda: a.seen("link") and b.seen("link"), timeout=60), (a.seen("told"), b.seen("told"))
    hold.touch()  # the person approves both
    assert a.answer()["said"] == b.answer()["said"] == "connected"
    assert servers.state.registrations == 2 and servers.state.authorize_requests == 2
    return a, b


def test_kernels_with_clients_of_their_own_refresh_their_own_tokens(servers, kernels, tmp_path):
    """Kernels A and B each registered a client and signed in (:func:`clients_of_their_own`). The
    file holds the tokens of whichever refreshed last, and another client's tokens are refused at
    the refresh: each kernel keeps refreshing its own."""
    servers.state.token_ttl = 1
    a, b = clients_of_their_own(servers, kernels, tmp_path / "approve")
    answers = []
    for first, then in ((b, a), (a, b)):  # each finds the other's tokens on file
        time.sleep(1.5)
        answers += [first.run("call"), then.run("call")]
    assert [answer["sign_ins"] for answer in answers] == [1, 1, 1, 1]  # each kernel's first only
    assert ("refresh_token", 400) not in servers.token_requests
    assert answers[0]["said"] == answers[3]["said"] != answers[1]["said"] == answers[2]["said"]


def test_a_redirect_port_another_sign_in_holds_is_said_to_be_that(servers, kernels):
    """A registration on file (or ``auth.redirect_port``) names one redirect address for every
    kernel: two that sign in at once (the server dropped the sign-in, and both notebooks run a cell)
    meet there, and the second was told to close what uses that port: the first kernel's sign-in,
    waiting for the person. (Here this process holds it, as that kernel's listener would.)"""
    a = kernels(servers.mcp_url)
    a.run("connect")
    saved = json.loads(token_path("shared").read_text())
    port = urlsplit(saved["client_info"]["redirect_uris"][0]).port
    del saved["tokens"]  # signed out of the server: the next connect signs in again
    token_path("shared").write_text(json.dumps(saved))

    async def second_sign_in() -> str:
        waiting = await CallbackListener(port).start()  # the first kernel's sign-in, waiting
        try:
            return await asyncio.to_thread(kernels(servers.mcp_url).run, "connect")
        finally:
            await waiting.close()

    said = asyncio.run(second_sign_in())["said"]
    assert f"cannot listen for the OAuth redirect on 127.0.0.1:{port}" in said
    assert "another sign-in to this server may be waiting there (another kernel's" in said
    assert "finish it, then connect again" in said


class SlowRefreshes(dict):
    """The server's refresh tokens, where spending one takes a while (the whole server waits, as a
    busy one might): a second kernel's refresh is on its way meanwhile."""

    def pop(self, key: Any, *default: Any) -> Any:
        time.sleep(1.0)
        return super().pop(key, *default)


def test_two_kernels_refreshing_at_once_refresh_once(servers, kernels):
    """Both kernels' tokens expired and both run a cell at once ("Run All" in two notebooks after
    lunch): both refreshed with the same refresh token, and the second was refused. The second now
    waits for the first's refresh and uses what it stored."""
    servers.state.token_ttl = 1
    a, b = kernels(servers.mcp_url), kernels(servers.mcp_url)
    a.run("connect")
    b.run("connect")
    time.sleep(1.5)
    servers.state.refresh = SlowRefreshes(servers.state.refresh)
    before = len(servers.token_requests)  # B's connect may have refreshed A's first token
    a.send("call")
    b.send("call")
    answers = a.answer(), b.answer()
    assert not signed_in_twice(servers, *answers)
    assert servers.token_requests[before:] == [("refresh_token", 200)]


def told(answer: dict[str, Any], words: str) -> bool:
    return any(words in notice for notice in answer["told"])


SIGNED_OUT = "signed out in another kernel or process"


def test_a_sign_out_in_one_kernel_holds_in_the_others(servers, kernels):
    """The person signed out in kernel A (``%mcp disconnect shared --sign-out``); kernel B, holding
    the tokens in memory, went on calling the server as them, and its next refresh wrote them back
    to the file: the sign-out undone for every kernel. B now lets go of them too, says why, and its
    next call signs in afresh (a new registration: the sign-out dropped the old one)."""
    a, b = kernels(servers.mcp_url), kernels(servers.mcp_url)
    a.run("connect")
    b.run("connect")
    before = b.run("call")
    assert a.run("signout")["said"] == "signed out"
    assert not token_path("shared").exists()
    after = b.run("call")
    assert after["sign_ins"] == 1 and told(after, SIGNED_OUT), after
    assert after["said"].startswith("dyn-") and after["said"] != before["said"]
    saved = json.loads(token_path("shared").read_text())
    assert saved["client_info"]["client_id"] == saved["tokens_client_id"] == after["said"]
    assert [grant for grant, _ in servers.token_requests] == ["authorization_code"] * 2  # no refresh


class GatedRefreshes(dict):
    """The server's refresh tokens, where spending one waits until the test lets it (``go``):
    something happens while a kernel's refresh is on its way (``asked`` says it is)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.asked, self.go = threading.Event(), threading.Event()

    def pop(self, key: Any, *default: Any) -> Any:
        self.asked.set()
        self.go.wait(30)
        return super().pop(key, *default)


def test_a_sign_out_during_a_refresh_is_not_undone(servers, kernels):
    """The sign-out came while kernel B's refresh was on its way (B had read the tokens before):
    B stored the refreshed tokens in a file that had none, undoing it. B keeps them out of the file,
    lets go of them, and signs in again."""
    servers.state.token_ttl = 1
    b = kernels(servers.mcp_url)
    b.run("connect")
    time.sleep(1.5)  # B's token expired: its next call refreshes it
    gate = servers.state.refresh = GatedRefreshes(servers.state.refresh)
    b.send("call")
    assert gate.asked.wait(30)
    forget_tokens("shared")  # the sign-out, in another process (here, the test's)
    gate.go.set()
    answer = b.answer()
    assert answer["sign_ins"] == 2 and told(answer, SIGNED_OUT), answer
    saved = json.loads(token_path("shared").read_text())
    assert saved["client_info"]["client_id"] == saved["tokens_client_id"] == answer["said"]
    assert servers.token_requests[-2:] == [("refresh_token", 200), ("authorization_code", 200)]


def forget_access_tokens(servers: OAuthServers, client_id: str | None = None) -> None:
    """The server no longer takes the access tokens it gave (those of ``client_id``; None: all), as
    after a restart that lost them or an administrator's revocation: the requests that bring them
    are answered 401. Their refresh tokens still work."""
    for token, issued in list(servers.state.access.items()):
        if client_id is None or issued.client_id == client_id:
            del servers.state.access[token]


def test_a_kernel_uses_the_sign_in_another_kernel_made_after_a_401(servers, kernels):
    """The server stopped taking the token both kernels held. The first request of one kernel
    (a call, or its listen stream) was answered 401 and the person signed in again there; the other
    kernel, answered 401 too, sent the person to sign in a second time. It now reads the file first
    (or waits for the sign-in under way there) and uses that sign-in."""
    a, b = kernels(servers.mcp_url), kernels(servers.mcp_url)
    a.run("connect")
    b.run("connect")
    forget_access_tokens(servers)
    answers = a.run("call"), b.run("call")
    assert answers[0]["said"] == answers[1]["said"] and answers[0]["said"].startswith("dyn-"), answers
    assert servers.state.authorize_requests == 2 and servers.state.registrations == 1
    assert answers[0]["sign_ins"] + answers[1]["sign_ins"] == 2  # A's first, and one sign-in again


def test_a_refused_kernel_takes_up_another_clients_sign_in(servers, kernels, tmp_path):
    """Kernels A and B each have a client of their own (:func:`clients_of_their_own`), and the
    server stopped taking A's token. A's call, answered 401, sent the person to sign in again,
    while the file holds B's sign-in, which the server takes: A now goes on as B's client, with B's
    tokens (a later sign-in there comes back to the address B's client registered)."""
    a, b = clients_of_their_own(servers, kernels, tmp_path / "approve")
    own_a, own_b = a.run("call")["said"], b.run("call")["said"]
    on_file = json.loads(token_path("shared").read_text())["tokens_client_id"]
    first, second = (a, b) if on_file == own_b else (b, a)  # the kernel whose sign-in is not on file
    forget_access_tokens(servers, own_a if first is a else own_b)
    answer = first.run("call")
    assert answer == {"said": on_file, "sign_ins": 1, "told": []}
    assert servers.state.authorize_requests == 2
    assert second.run("call")["said"] == on_file


def test_two_kernels_signing_in_at_once_sign_in_once(servers, kernels, tmp_path):
    """Two notebooks run their first cell at once, no sign-in kept yet: both showed a sign-in link,
    and the person approved twice (two registrations; the file kept whichever came last). The
    second now says that it waits for the first's sign-in, and uses it."""
    hold = tmp_path / "approve"
    a, b = kernels(servers.mcp_url, hold), kernels(servers.mcp_url, hold)
    assert a.run("ping")["said"] == b.run("ping")["said"] == "ready"
    a.send("connect")
    b.send("connect")

    def waiting_or_both_shown() -> bool:
        links = len(a.seen("link")) + len(b.seen("link"))
        waits = [k for k in (a, b) if any("is signing in to this server" in t for t in k.seen("told"))]
        return links >= 2 or (links == 1 and len(waits) == 1)

    assert wait_until(waiting_or_both_shown, timeout=60)
    hold.touch()  # the person approves what they were shown
    answers = a.answer(), b.answer()
    assert servers.state.authorize_requests == 1 and servers.state.registrations == 1
    assert sorted(answer["sign_ins"] for answer in answers) == [0, 1]
    waited = next(answer for answer in answers if answer["sign_ins"] == 0)
    assert waited["said"] == "connected" and told(waited, "waits for it, up to 330 s")
    assert a.run("call")["said"] == b.run("call")["said"]


def test_a_refresh_waiting_for_another_kernels_says_so(servers, kernels):
    """Another process was refreshing the tokens (here the test holds that turn, as one whose token
    request hangs would): the cell stood still with no word for up to 35 s. It says what it waits
    for and for how long, and once that refresh is done, refreshes with what is on file."""
    servers.state.token_ttl = 1
    a = kernels(servers.mcp_url)
    a.run("connect")
    time.sleep(1.5)
    storage = FileTokenStorage(token_path("shared"), servers.mcp_url)
    turn = asyncio.run(storage.refresh_turn(5))
    assert turn is not None
    try:
        a.send("call")
        assert wait_until(lambda: any("refreshing this server's sign-in" in t for t in a.seen("told")))
    finally:
        turn.release()
    answer = a.answer()
    assert answer["said"].startswith("dyn-") and answer["sign_ins"] == 1
    assert told(answer, "another kernel or process of yours that is refreshing this server's sign-in")
    assert told(answer, "up to 35 s, then this kernel refreshes it itself")


#: A process saving one part of the token file again and again: the tokens ("tokens") or the
#: authorization server's metadata ("metadata"), reading back its own part after each save. Prints
#: how often it found an older value of its own there, or none (another process's save had put
#: back what was there before).
SAVER = """
import asyncio, sys, time
from pathlib import Path
from mcp.shared.auth import OAuthMetadata, OAuthToken
from mcpnb.client.auth.storage import FileTokenStorage

part, path, go = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
storage = FileTokenStorage(path, "http://127.0.0.1:1/mcp")
origin = "http://127.0.0.1:1"
print("ready", flush=True)
while not go.exists():
    time.sleep(0.001)

async def main() -> int:
    older = 0
    for n in range(1, 151):
        if part == "tokens":
            await storage.set_tokens(OAuthToken(access_token=f"a{n}", refresh_token=f"r{n}", expires_in=60))
            older += getattr(await storage.get_tokens(), "access_token", None) != f"a{n}"
        else:
            endpoints = {"authorization_endpoint": f"{origin}/a", "token_endpoint": f"{origin}/t"}
            storage.store_metadata(OAuthMetadata.model_validate({"issuer": f"{origin}/{n}", **endpoints}))
            older += str(getattr(storage.stored_metadata(), "issuer", None)) != f"{origin}/{n}"
    return older

print(asyncio.run(main()))
"""


def test_two_processes_saving_at_once_lose_nothing(tmp_path):
    """Each save reads the file, merges its change and writes it back. Two processes that save at
    once (one a refreshed token, the other the server's metadata after its own sign-in) read the
    same file, and the later write put back what the earlier one had replaced: a refresh token the
    server had spent, say."""
    path, go = tmp_path / "tokens" / "shared.json", tmp_path / "go"
    savers = [
        subprocess.Popen(
            [sys.executable, "-c", SAVER, part, str(path), str(go)], stdout=subprocess.PIPE, text=True
        )
        for part in ("tokens", "metadata")
    ]
    assert [saver.stdout.readline() for saver in savers] == ["ready\n"] * 2  # type: ignore[union-attr]
    go.touch()  # both save at the same time
    older = [int(saver.communicate(timeout=60)[0]) for saver in savers]
    saved = json.loads(path.read_text())
    assert older == [0, 0]
    assert saved["tokens"]["access_token"] == "a150" and saved["oauth_metadata"]["issuer"].endswith("/150")


def test_a_file_system_without_locks_still_keeps_the_tokens(tmp_path, monkeypatch):
    """The review's: ``flock`` on NFS without lockd (or CIFS, some FUSE) fails with ENOLCK; every
    save then failed as "cannot write" and left a lock file behind, and the person signed in again
    in every kernel. Such a file system stands here as a flock that says so (it cannot be mounted
    in the test)."""
    import asyncio
    import errno
    import fcntl

    from mcp.shared.auth import OAuthToken

    from mcpnb.client.auth.storage import FileTokenStorage

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    storage = FileTokenStorage(tmp_path / "tokens" / "srv.json", "http://127.0.0.1:9/mcp")
    asyncio.run(storage.set_tokens(OAuthToken(access_token="kept", token_type="Bearer")))
    assert json.loads(storage.path.read_text())["tokens"]["access_token"] == "kept"
    assert sorted(p.name for p in storage.path.parent.iterdir()) == ["srv.json"]


def test_only_a_removed_sign_in_is_a_sign_out(tmp_path):
    """A kernel holding tokens took any file without its tokens for a sign-out: one written for
    another URL under the same name (a second notebook's config), or cut short by a crash, sent
    it to sign in again, and the two kernels then took turns overwriting each other's sign-in."""
    from mcpnb.client.auth.storage import FileTokenStorage

    path = tmp_path / "shared.json"
    storage = FileTokenStorage(path, "http://127.0.0.1:9/mcp")
    assert storage.signed_out()  # no file: removed by a sign-out
    path.write_text(json.dumps({"server_url": "http://127.0.0.1:9/mcp", "client_info": {}}))
    assert storage.signed_out()  # this server's record, its tokens gone
    path.write_text(json.dumps({"server_url": "http://127.0.0.1:8/other", "tokens": {"access_token": "x"}}))
    assert not storage.signed_out()  # another URL's sign-in under this name
    path.write_text('{"server_url": "http://127.0.0.1:9/mcp", "tok')  # cut short
    assert not storage.signed_out()
