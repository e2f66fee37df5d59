"""A task in one line of text: what ``repr(handle)``, terminals and logs show, and the widget reuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpnb.client.printable import printable

if TYPE_CHECKING:
    from mcpnb.client.tasks.handle import TaskHandle


#: A status older than this, with nothing polling, is shown with its age.
STALE_AFTER = 1.0


def seconds(value: float | None) -> str:
    """``0.4 s``, ``12 s``, ``4 min 58 s``, ``2 h 5 min``: short enough for a status line."""
    if value is None:
        return "?"
    if value < 10:
        return f"{value:.1f} s"
    if value < 60:
        return f"{value:.0f} s"
    minutes, secs = divmod(int(value), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def _progress_text(handle: TaskHandle) -> str | None:
    if handle.progress is None:
        return None
    done, total, _ = handle.progress
    return f"{done:g}/{total:g}" if total else f"{done:g}"


def outcome_text(handle: TaskHandle) -> str | None:
    if handle.landed is not None:  # a result that landed stays here, whatever the server forgets
        ready = "result: error" if handle.landed.is_error else "result ready"
        return ready + (" (kept here: the server no longer has the task)" if handle.expired else "")
    if handle.failure is not None:
        return f"stopped following it: {handle.failure}"
    if handle.input_requests and handle.answer is None and handle._unanswered:
        return "needs answers: handle.respond({...})"
    if handle.state.status == "input_required" and handle.answer is not None and handle.heard_ago is not None:
        return "waits for an answer: .result() asks you"  # nothing polls: nobody was asked yet
    return None


def message_of(handle: TaskHandle) -> str:
    """The server's status message where it says more than the status ("completed · completed");
    of a task the server no longer has, as what it said last ("block 2/3" read as current)."""
    message = handle.status_message or ""
    if message.strip().lower() == handle.state.status:
        return ""
    return f"last said: {message}" if message and handle.expired else message


def status_text(handle: TaskHandle) -> str:
    """The status a person reads: ``expired`` once the server no longer has the task (its last
    known status, say ``working``, would read as current), else the last known one."""
    return "expired" if handle.expired else handle.state.status


def ttl_text(handle: TaskHandle) -> str:
    """What is left of the task's TTL, in words: none for an expired task; "no limit" where the
    server said ``ttl: null``; empty where it said nothing; "past its TTL" for a task still there
    after its TTL, counted from its creation as the spec counts it, ran out (servers keep an ended
    task its TTL after it ended: the server may drop it at any time now)."""
    if handle.expired:
        return ""
    if handle.state.unlimited:
        return "no limit"
    left = handle.ttl_left
    if left is None:
        return ""
    return seconds(left) if left > 0 else "past its TTL"


def describe_handle(handle: TaskHandle) -> str:
    """One line: who, which task, status, times, message, outcome."""
    status, ago = status_text(handle), handle.heard_ago
    if handle.expired:
        status += f" (last seen {handle.state.status})"
    elif ago is not None and ago >= STALE_AFTER:
        status += f" as of {seconds(ago)} ago (.refresh() asks the server)"
    parts = [status, f"{seconds(handle.elapsed)}"]
    if not handle.state.terminal and not handle.expired and handle.ttl_left is not None:
        parts.append(f"TTL {seconds(handle.ttl_left)} left")
    progress = _progress_text(handle)
    if progress:
        parts.append(progress)
    message = message_of(handle)
    if message:
        parts.append(message)
    outcome = outcome_text(handle)
    if outcome:
        parts.append(outcome)
    ident = handle.task_id[:8] if handle.task_id else "(no task)"
    return printable(f"<TaskHandle {handle.label} {ident} " + " · ".join(parts) + ">")  # a server's words
