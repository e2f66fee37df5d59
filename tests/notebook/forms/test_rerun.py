"""Which arriving requests withdraw a waiting form, and a kernel without the parts read is left alone.

The kernel here is a stand-in with a real ``jupyter_client`` Session (signed messages, as the
frontend sends them); the whole path in a real kernel with a real server is in
``test_rerun_in_kernel.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from jupyter_client.session import Session

from mcpnb.client.elicitation.outcome import FormOutcome
from mcpnb.notebook.forms import rerun

STOPPED = FormOutcome("cancel", None)


class Stream:
    """What the rerun watch needs of a ZMQ stream: the callback it reads for each message."""

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self._recv_callback = self.seen.append

    def receive(self, frames: list[bytes]) -> None:
        self._recv_callback(frames)


class Loop:
    def add_callback(self, fn: Any, *args: Any) -> None:
        fn(*args)


class Kernel:
    """A kernel without subshells: the shell stream feeds the shell."""

    def __init__(self) -> None:
        self.session = Session(key=b"secret")
        self.shell_stream = Stream()
        self.io_loop = Loop()
        self.shell = None
        self.parent: dict[str, Any] = {}

    def get_parent(self, channel: str = "shell") -> dict[str, Any]:
        return self.parent

    def request(self, cell: str | None, *, silent: bool = False, key: bytes | None = None) -> list[bytes]:
        """An ``execute_request`` for ``cell`` as the frontend signs and sends it."""
        session = Session(key=key or b"secret")
        metadata = {"cellId": cell} if cell else {}
        msg = session.msg("execute_request", {"code": "1", "silent": silent}, metadata=metadata)
        self.last = msg
        return session.serialize(msg, ident=b"frontend")

    def run(self, cell: str | None) -> str:
        """The frontend runs ``cell``: the request arrives; returns its msg_id."""
        self.shell_stream.receive(self.request(cell))
        return self.last["header"]["msg_id"]

    def asking_in(self, cell: str) -> None:
        """The context of a run of ``cell`` (where a form is asked)."""
        msg = Session().msg("execute_request", {"code": "ask"}, metadata={"cellId": cell})
        self.parent = msg


class Panel:
    def __init__(self) -> None:
        self.outcome: Any = None
        self.server = "probe"
        self.answers: list[Any] = []

    def finish(self, outcome: Any, note: str | None = None) -> None:
        self.outcome, self.note = outcome, note

    def done(self, outcome: Any) -> None:
        self.answers.append(outcome)


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> Any:
    k = Kernel()
    monkeypatch.setattr(rerun, "current_kernel", lambda: k)
    yield k
    rerun.uninstall(k)


def _asking(kernel: Kernel, cell: str, *, same_run: bool = False) -> tuple[Panel, rerun.Watch]:
    """A form asked in a run of ``cell`` (``same_run``: in the run that asked before)."""
    if not same_run:
        kernel.asking_in(cell)
    panel = Panel()
    return panel, rerun.watch_rerun(panel, STOPPED, panel.done)


def test_the_same_cell_run_again_withdraws_the_form(kernel: Kernel) -> None:
    panel, watch = _asking(kernel, "c1")
    assert watch.watching
    kernel.run("c1")
    assert panel.answers == [STOPPED] and panel.note == rerun.NOTE
    assert not watch.watching
    assert len(kernel.shell_stream.seen) == 1  # the request itself went on to the shell, unchanged


def test_other_cells_silent_requests_and_unsigned_ones_withdraw_nothing(kernel: Kernel) -> None:
    panel, watch = _asking(kernel, "c1")
    kernel.run("c2")  # Run All: the cells below are queued
    kernel.run(None)  # a frontend without cell ids
    kernel.shell_stream.receive(kernel.request("c1", silent=True))
    kernel.shell_stream.receive(kernel.request("c1", key=b"forged"))
    assert panel.answers == [] and watch.watching
    assert len(kernel.shell_stream.seen) == 4  # every one still reaches the shell


def test_an_answered_form_is_not_withdrawn(kernel: Kernel) -> None:
    panel, watch = _asking(kernel, "c1")
    panel.outcome = FormOutcome("accept", {"answer": "Ada"})  # clicked just before the re-run
    kernel.run("c1")
    assert panel.answers == []
    watch.close()
    assert not watch.watching


def test_a_closed_watch_withdraws_nothing(kernel: Kernel) -> None:
    panel, watch = _asking(kernel, "c1")
    watch.close()
    kernel.run("c1")
    assert panel.answers == []


def test_a_run_already_superseded_has_its_next_question_withdrawn_at_once(kernel: Kernel) -> None:
    """The tool asks again after the withdrawn answer: that run's output is gone, so is this form."""
    first, _ = _asking(kernel, "c1")
    kernel.run("c1")
    assert first.answers == [STOPPED]
    second, watch = _asking(kernel, "c1", same_run=True)
    assert second.answers == [STOPPED] and not watch.watching


def test_a_later_run_asks_as_usual(kernel: Kernel) -> None:
    _asking(kernel, "c1")
    kernel.run("c1")
    kernel.parent = kernel.last  # the re-run itself asks
    panel, watch = _asking(kernel, "c1", same_run=True)
    assert watch.watching and panel.answers == []


def test_a_message_it_cannot_read_still_reaches_the_shell(kernel: Kernel) -> None:
    _asking(kernel, "c1")
    kernel.shell_stream.receive([b"not", b"a", b"message"])
    assert kernel.shell_stream.seen == [[b"not", b"a", b"message"]]


def test_uninstall_gives_the_stream_its_callback_back(kernel: Kernel) -> None:
    original = kernel.shell_stream._recv_callback
    assert rerun.install(kernel)
    assert kernel.shell_stream._recv_callback is not original
    rerun.uninstall(kernel)
    assert kernel.shell_stream._recv_callback == original


class Bare:
    """A kernel of another make: no shell stream, no session."""

    def get_parent(self, channel: str = "shell") -> dict[str, Any]:
        return Session().msg("execute_request", {}, metadata={"cellId": "c1"})


def test_a_kernel_without_the_parts_keeps_the_old_behaviour(monkeypatch: pytest.MonkeyPatch) -> None:
    bare = Bare()
    monkeypatch.setattr(rerun, "current_kernel", lambda: bare)
    assert not rerun.install(bare)
    panel = Panel()
    watch = rerun.watch_rerun(panel, STOPPED, panel.done)
    assert not watch.watching
    watch.close()
    monkeypatch.setattr(rerun, "current_kernel", lambda: None)  # plain Python: no kernel at all
    assert not rerun.watch_rerun(panel, STOPPED, panel.done).watching
