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
        self._sessions: dict[tuple[str, bytes], Session] = {}

    def get_parent(self, channel: str = "shell") -> dict[str, Any]:
        return self.parent

    def request(
        self, cell: str | None, *, silent: bool = False, key: bytes | None = None, page: str = "page-1"
    ) -> list[bytes]:
        """An ``execute_request`` for ``cell`` as page ``page`` (its session id) signs and sends it."""
        return self.message("execute_request", {"code": "1", "silent": silent}, cell, key=key, page=page)

    def message(
        self,
        kind: str,
        content: dict[str, Any],
        cell: str | None = None,
        *,
        key: bytes | None = None,
        page: str = "page-1",
    ) -> list[bytes]:
        session = self._page(page, key or b"secret")
        metadata = {"cellId": cell} if cell else {}
        msg = session.msg(kind, content, metadata=metadata)
        self.last = msg
        return session.serialize(msg, ident=b"frontend")

    def run(self, cell: str | None, page: str = "page-1") -> str:
        """Page ``page`` runs ``cell``: the request arrives; returns its msg_id."""
        self.shell_stream.receive(self.request(cell, page=page))
        return self.last["header"]["msg_id"]

    def hear(self, kind: str, page: str) -> None:
        """Another shell message from ``page``: ``kernel_info_request`` (a page connecting),
        ``comm_msg`` (typing into a form)."""
        self.shell_stream.receive(self.message(kind, {}, page=page))

    def asking_in(self, cell: str, page: str = "page-1") -> None:
        """The context of a run of ``cell`` from ``page`` (where a form is asked)."""
        msg = self._page(page).msg("execute_request", {"code": "ask"}, metadata={"cellId": cell})
        self.parent = msg

    def _page(self, page: str, key: bytes = b"secret") -> Session:
        """One session per page, as a page keeps one (its msg_ids count up; a new Session would
        start them again, and two messages would share one)."""
        return self._sessions.setdefault((page, key), Session(key=key, session=page))


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


def _asking(
    kernel: Kernel, cell: str, *, same_run: bool = False, holds_kernel: bool = False
) -> tuple[Panel, rerun.Watch]:
    """A form asked in a run of ``cell`` (``same_run``: in the run that asked before); one that
    ``holds_kernel`` is awaited by its run."""
    if not same_run:
        kernel.asking_in(cell)
    panel = Panel()
    return panel, rerun.watch_rerun(panel, STOPPED, panel.done, holds_kernel=holds_kernel)


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


# ---------------------------------------------------------------------------- another page
def _notes_of(run: str) -> list[str]:
    return rerun._notes.get(run, [])


def test_a_run_from_a_new_page_withdraws_the_form_its_silent_page_holds_the_kernel_with(
    kernel: Kernel,
) -> None:
    """The page was reloaded: the new one connects and runs another cell; the form of the old one
    (which holds the kernel) goes, and the new run says why at its top."""
    panel, watch = _asking(kernel, "c2", holds_kernel=True)
    kernel.hear("kernel_info_request", "page-2")  # the reloaded page connects
    run = kernel.run("c9", page="page-2")
    assert panel.answers == [STOPPED] and panel.note == rerun.PAGE_NOTE
    assert not watch.watching
    (line,) = _notes_of(run)
    assert "a run from another page" in line and "reloaded or closed" in line
    assert 'probe was told "cancel"' in line


def test_a_page_heard_from_since_the_other_appeared_keeps_its_form(kernel: Kernel) -> None:
    """Two windows: the first one's person typed into the form after the second one connected."""
    panel, watch = _asking(kernel, "c2", holds_kernel=True)
    kernel.hear("kernel_info_request", "page-2")
    kernel.hear("comm_msg", "page-1")  # typing into the form: that page is alive
    kernel.run("c9", page="page-2")
    assert panel.answers == [] and watch.watching


def test_a_page_that_only_connects_or_runs_silently_withdraws_nothing(kernel: Kernel) -> None:
    panel, watch = _asking(kernel, "c2", holds_kernel=True)
    kernel.hear("kernel_info_request", "page-2")
    kernel.hear("comm_msg", "page-2")
    kernel.shell_stream.receive(kernel.request("c9", silent=True, page="page-2"))
    kernel.run("c3")  # Run All of the asking page itself: queued below, as before
    assert panel.answers == [] and watch.watching


def test_a_question_that_does_not_hold_the_kernel_is_left_to_its_page(kernel: Kernel) -> None:
    """A cell that let go (or a task's question): nothing waits behind it."""
    panel, watch = _asking(kernel, "c2", holds_kernel=False)
    kernel.run("c9", page="page-2")
    assert panel.answers == [] and watch.watching


def test_a_question_of_the_lost_pages_queue_goes_at_once_while_the_new_page_waits(kernel: Kernel) -> None:
    """Run All on page 1 queued c2, c3, c4 (before the watch began: c2's form starts it); page 2
    (the reload) runs c2 again. c3's question is asked into an output nobody shows while page 2's
    run waits behind it: withdrawn at once, and page 2's run says so at its top, with the question."""
    first, _ = _asking(kernel, "c2", holds_kernel=True)
    queued = kernel._page("page-1").msg("execute_request", {"code": "ask"}, metadata={"cellId": "c3"})
    again = kernel.run("c2", page="page-2")
    assert first.answers == [STOPPED] and first.note == rerun.NOTE  # the same cell: a re-run
    kernel.parent = queued  # c3 runs and asks
    panel = Panel()
    panel.message = "Second?"
    watch = rerun.watch_rerun(panel, STOPPED, panel.done, holds_kernel=True)
    assert panel.answers == [STOPPED] and panel.note == rerun.PAGE_NOTE
    assert not watch.watching
    rerun_line, page_line = _notes_of(again)
    assert "when the cell ran again" in rerun_line
    assert '("Second?")' in page_line and "reloaded or closed" in page_line


def test_a_question_behind_its_own_pages_queue_stays(kernel: Kernel) -> None:
    """Run All on one page: the cells queued below are that page's own."""
    _asking(kernel, "c1", holds_kernel=True)  # the watch begins
    kernel.run("c3")
    asking = kernel.last
    kernel.run("c4")
    kernel.parent = asking
    panel = Panel()
    watch = rerun.watch_rerun(panel, STOPPED, panel.done, holds_kernel=True)
    assert panel.answers == [] and watch.watching
