"""Exercises of ``09-resilience.ipynb``: reconnecting, what a timeout measures, what is retried."""

from __future__ import annotations

from typing import Any

from mcpnb.notebook.teach.exercises import Wrong, exercise, number

NOTEBOOK = "09-resilience.ipynb"


@exercise(
    "09.state",
    notebook=NOTEBOOK,
    hints=[
        "Look at the events printed after the kill: each line starts with the state the event put demo in.",
        "It is neither `connected` nor `failed`: the pool was working on it.",
    ],
)
def _state(value: Any) -> str:
    state = _state_word(value)
    if state == "reconnecting":
        return (
            "calls made meanwhile wait for the new session (up to startup_timeout) instead of failing at once"
        )
    if state == "failed":
        raise Wrong(
            "`failed` is where a server ends when the pool gives up (after `max_retries`) "
            "or retrying cannot help; "
            "demo came back"
        )
    if state == "connected":
        raise Wrong("it was connected before the kill and after the return; what was it in between?")
    if state == "disconnected":
        raise Wrong(
            "`disconnected` is the state before a first connect and after `%mcp disconnect`; nobody "
            "disconnected demo, it was killed: look at the events after the kill"
        )
    if state == "connecting":
        raise Wrong(
            "`connecting` is the state of a first connect (the first event printed); "
            "what did the pool do after the kill?"
        )
    if state.startswith(("connection lost", "lost", "killed", "the server process")):
        raise Wrong(
            f"`{state.split(':')[0]}` is that event's message, what happened; the word before it, "
            "`state`, is the event's kind. The state the pool put demo in is the event's `.state` "
            "(the first column the lesson prints): which one came right after the loss?"
        )
    raise Wrong(f"`{value}` is not a state mcpnb uses; the events after the kill name the right one")


def _state_word(value: Any) -> str:
    """The state a student names, also as copied from an event line: ``demo state: reconnecting
    (attempt 1/3) in 0.50 s after: …`` (or ``reconnecting: attempt 1/3 under way since …``) is
    ``reconnecting``."""
    text = str(value).strip().lower()
    text = text.split("state:", 1)[1].strip() if "state:" in text else text
    return text.split(" ", 1)[0].rstrip(":") if text.startswith("reconnecting") else text


@exercise(
    "09.timeout",
    notebook=NOTEBOOK,
    hints=[
        "`tool_timeout` is the longest *silence*, not the length of the whole call.",
        "With `every=0.5` the server speaks (a progress notification) every half second.",
    ],
)
def _timeout(given: Any) -> str:
    value = number(given)  # numpy's int64(1) is 1 here, as in 07's checks
    if value is None:
        raise Wrong("give a number of seconds")
    if value <= 0:
        raise Wrong("a timeout must be a positive number of seconds")
    if value < 1:
        raise Wrong(
            "the exercise asks for whole seconds; the smallest whole number that works is what we want"
        )
    if value == 1:
        return (
            "each progress notification restarts the clock: 1 s of allowed silence is plenty for a 3 s call"
        )
    if value >= 3:
        raise Wrong(
            f"{value} s works, but it is not the smallest: the call lasts 3 s, "
            "yet the server is never silent "
            "for more than half a second"
        )
    raise Wrong(f"{value} s works, but a smaller whole number does too; how long is the server ever silent?")


@exercise(
    "09.retry",
    notebook=NOTEBOOK,
    hints=[
        "Retry only what time can fix.",
        "A dead process can be restarted; a wrong token or a missing program stays wrong "
        "however often you try.",
    ],
)
def _retry(value: Any) -> str:
    expected = {"killed server": True, "HTTP 401": False, "command not found": False}
    if not isinstance(value, dict) or set(value) != set(expected):
        raise Wrong(f"give a dict with the keys {', '.join(repr(k) for k in expected)}, each True or False")
    loose = [k for k, v in value.items() if not isinstance(v, bool)]
    if loose:  # "no" is a non-empty string: Python reads it as true
        raise Wrong(f"answer each with True or False; {loose[0]!r} is {value[loose[0]]!r}")
    if value["HTTP 401"]:
        raise Wrong(
            "a 401 will not go away by asking again: mcpnb fails at once and says which credentials to check"
        )
    if value["command not found"]:
        raise Wrong("a program that is not installed stays missing: retrying would only delay the message")
    if not value["killed server"]:
        raise Wrong("the killed server came back by itself in section 1: that one *is* retried, with backoff")
    return "retry what time can fix (a crash, a restart, a lost connection); fail fast on what it cannot"
