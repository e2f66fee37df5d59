"""Exercises of ``08-tasks.ipynb``: a task's TTL, cancelling one, the two wires' field names."""

from __future__ import annotations

from typing import Any

from mcpnb.notebook.teach import exercises
from mcpnb.notebook.teach.exercises import Wrong, exercise

NOTEBOOK = "08-tasks.ipynb"

#: The two wires of 08.poll-field, in the lesson's words: whose a name is, and who spells one.
_WHOSE = {"legacy": "the 2025-11-25 name", "modern": "the 2026-07-28 tasks extension's name"}
_WHO = {"legacy": "2025-11-25", "modern": "the 2026-07-28 tasks extension"}


def _handle(value: Any, name: str) -> Any:
    from mcpnb.client.tasks import TaskHandle

    if not isinstance(value, TaskHandle):
        what = "a result (the call waited)" if type(value).__name__ == "ToolResult" else type(value).__name__
        raise Wrong(f"`{name}` should be the live handle that `--task` gives; you have {what}")
    return value


@exercise(
    "08.ttl",
    notebook=NOTEBOOK,
    hints=[
        "`--ttl` asks the server to keep the task (and its result) that long after it was created.",
        "Only a 2025-11-25 server honours the client's TTL: start it on `old`.",
        "`--ttl` counts milliseconds.",
    ],
)
def _ttl(value: Any) -> str:
    handle = _handle(value, "short")
    if handle.tool != "slow_task":
        raise Wrong(f"that is a task of `{handle.tool}`; start `slow_task`")
    ttl = handle.ttl_ms
    if ttl == 20:
        raise Wrong("your task's TTL is 20 ms: `--ttl` counts milliseconds, so 20 seconds is 20000")
    if ttl == 300_000:
        raise Wrong(
            "the server kept its default TTL (5 minutes): a 2026-07-28 server decides the TTL itself, "
            "and a 2025-11-25 one uses `--ttl` only when you give it"
        )
    if ttl != 20_000:
        raise Wrong(f"the server keeps this task for {ttl} ms; the exercise asks for 20 seconds")
    return "20 s after it was created the server may forget the task and its result: collect results in time"


@exercise(
    "08.cancel",
    notebook=NOTEBOOK,
    hints=[
        "Start a task that takes a while (`steps=50`), then call `.cancel()` on its handle.",
        "`.cancel()` waits for the server's answer; `.status` then says `cancelled`.",
    ],
)
def _cancel(value: Any) -> str:
    if isinstance(value, str) and value in ("cancelled", "completed", "working", "input_required", "failed"):
        raise Wrong(
            f"{value!r} is what `.cancel()` returns (the task's status); keep the handle itself in `stopped`"
        )
    handle = _handle(value, "stopped")
    if handle is exercises.lesson_variables().get("long"):
        raise Wrong(
            "that is section 2's `long`, which the lesson cancelled; start a task of your own on `new`"
        )
    if handle.server != "new":
        raise Wrong(
            f"that task runs on `{handle.server}`; the exercise asks for `new`, where cancelling is the "
            "tasks extension's `tasks/cancel`"
        )
    status = handle.status
    if status == "cancelled":  # only a client's tasks/cancel ends a probe-kit task so
        return "the server stopped the work and keeps the task, marked cancelled, until its TTL runs out"
    if status == "completed":
        why = (
            "your cancel came after it had completed, and a task that has ended cannot be cancelled any more"
            if handle.cancel_requested
            else "it completed: no cancel was sent (a task that has ended cannot be cancelled any more)"
        )
        raise Wrong(f"{why}; start one with more steps (say `steps=50`) and call `.cancel()` at once")
    if status in ("working", "input_required"):
        raise Wrong(f"it is still {status}: call `.cancel()` on it")
    raise Wrong(f"its status is {status}; a cancelled task says `cancelled`")


@exercise(
    "08.poll-field",
    notebook=NOTEBOOK,
    hints=[
        "Both wires tell the client how long to wait between two `tasks/get`; look at a task object of each.",
        "One wire names durations in milliseconds with an `Ms` suffix.",
    ],
)
def _poll_field(value: Any) -> str:
    expected = {"legacy": "pollInterval", "modern": "pollIntervalMs"}
    if not isinstance(value, dict) or set(value) != set(expected):
        raise Wrong("give a dict with two keys, `legacy` and `modern`, each a field name")
    given = {era: str(name).strip() for era, name in value.items()}  # as 07.opening: spaces don't count
    if given == {"legacy": "pollIntervalMs", "modern": "pollInterval"}:
        raise Wrong("the other way round: the 2026-07-28 extension spells its durations with `Ms`")
    for era, field in expected.items():
        name = given[era]
        if name == field:
            continue
        if name in expected.values():  # the same name for both (the likely slip): say whose it is
            theirs = next(e for e, f in expected.items() if f == name)
            raise Wrong(
                f"`{name}` is {_WHOSE[theirs]}; {_WHO[era]} spells it `{field}`"
                + (" (its durations carry `Ms`)" if era == "modern" else "")
            )
        if name.lower() == field.lower():  # pollinterval, PollIntervalMs
            raise Wrong(f"field names are case-sensitive: `{field}`, not `{name}`")
        if name.lower() in (f.lower() for f in expected.values()):  # a case slip of the other one
            theirs = next(e for e, f in expected.items() if f.lower() == name.lower())
            raise Wrong(
                f"field names are case-sensitive (`{expected[theirs]}`, not `{name}`), and that one is "
                f"{_WHOSE[theirs]}; {_WHO[era]} spells it `{field}`"
            )
        if "_" in name and name.replace("_", "").lower() in ("pollintervalms", "pollinterval"):
            raise Wrong(
                f"`{name}` is the handle's Python attribute (cell 4's `job.poll_interval_ms`, "
                "the same in both eras: mcpnb converts); the question asks for the field's name on "
                "the wire, in the JSON of each task object (sections 3 and 5)"
            )
        if name.lower().startswith("ttl"):
            raise Wrong(f"`{name}` is how long the task is kept; which field says how often to poll?")
        raise Wrong(f"the {era} task object has no field `{name}` for that; look at its keys again")
    return (
        "same meaning, two spellings: `ttl`/`pollInterval` (2025-11-25) vs `ttlMs`/`pollIntervalMs` "
        "(the extension)"
    )
