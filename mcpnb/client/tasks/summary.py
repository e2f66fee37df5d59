"""A task in one line of text: what ``repr(handle)``, terminals and logs show, and the widget reuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    if handle.failure is not None:
        return f"stopped following it: {handle.failure}"
    if handle.landed is not None:
        return "result: error" if handle.landed.is_error else "result ready"
    if handle.input_requests and handle.answer is None and handle._unanswered:
        return "needs answers: handle.respond({...})"
    if handle.state.status == "input_required" and handle.answer is not None and handle.heard_ago is not None:
        return "waits for an answer: .result() asks you"  # nothing polls: nobody was asked yet
    return None


def message_of(handle: TaskHandle) -> str:
    """The server's status message where it says more than the status ("completed · completed")."""
    message = handle.status_message or ""
    return "" if message.strip().lower() == handle.state.status else message


def describe_handle(handle: TaskHandle) -> str:
    """One line: who, which task, status, times, message, outcome."""
    status, ago = handle.state.status, handle.heard_ago
    if ago is not None and ago >= STALE_AFTER:
        status += f" as of {seconds(ago)} ago (.refresh() asks the server)"
    parts = [status, f"{seconds(handle.elapsed)}"]
    if not handle.state.terminal and handle.ttl_left is not None:
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
    return f"<TaskHandle {handle.label} {ident} " + " · ".join(parts) + ">"
