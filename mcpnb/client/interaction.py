"""When a server needs a person: elicitation, sampling, progress and logs, routed to the right call.

The connection turns the SDK's callbacks into calls on an :class:`Interaction`. This base class
never asks anyone: it applies a policy (decline, accept the schema defaults, or answers given with
the call), which is right for scripts, CI and nbclient runs. The notebook UI subclasses it to show
forms in the calling cell. ``$MCPNB_ELICITATION`` (``decline`` or ``defaults``) sets the policy
in plain Python as it does for a headless notebook, and a question nobody could be asked is said
once per tool as a WARNING on the ``mcpnb`` logger, with the ways to answer it.

Which call asked? In the 2026-07-28 era the request arrives inside the calling task, so a context
variable knows. A legacy push request arrives on the session's receive task instead, so each
connection also keeps its calls in flight and the most recent one is taken.
"""

from __future__ import annotations

import contextvars
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mcpnb.client.events import unheard

Policy = Literal["decline", "defaults"]
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]

#: Nobody answers within this long: the request is cancelled, so nothing waits forever. Nine
#: minutes: a 2026-07-28 server built on the MCP SDK forgets a call's state ten minutes after it
#: asked (``RequestStateSecurity``'s ttl), and an answer sent at ten reached it as "Invalid or
#: expired requestState" (-32602) instead of the cancel a server is owed.
ELICITATION_TIMEOUT = 540.0
#: Log notifications kept per call (the newest); the rest are counted, so a flood cannot fill a cell.
LOG_LIMIT = 200

#: How a server's questions are answered when the code says nothing: read by the notebook for
#: ``Mcp.elicitation``'s default (a headless kernel inherits it) and by plain Python for the policy.
ELICITATION_ENV = "MCPNB_ELICITATION"
#: Its values. Outside IPython only the policies mean something: ``widget`` and ``text`` ask a
#: person in a notebook or terminal IPython, and a plain process declines as with none set.
ELICITATION_MODES = ("widget", "text", "decline", "defaults")

logger = logging.getLogger("mcpnb")


def elicitation_from_env() -> str | None:
    """``$MCPNB_ELICITATION`` as one of :data:`ELICITATION_MODES` (any case, spaces around it
    ignored), or None: unset, or a value that is none of them."""
    mode = os.environ.get(ELICITATION_ENV, "").strip().lower()
    return mode if mode in ELICITATION_MODES else None


def policy_from_env() -> Policy | None:
    """The policy ``$MCPNB_ELICITATION`` sets where nobody can be asked: ``decline`` or ``defaults``."""
    mode = elicitation_from_env()
    return mode if mode in ("decline", "defaults") else None  # type: ignore[return-value]


@dataclass
class CallContext:
    """What one call brings along for the people-in-the-loop parts (all optional)."""

    server: str = ""
    tool: str = ""
    answers: dict[str, Any] | None = None  # --answers: used instead of asking
    policy: Policy | None = None  # overrides the Interaction's policy for this call
    on_progress: ProgressFn | None = None
    ui: Any = None  # opaque to the core: where a notebook UI shows forms for this call
    #: The last log notifications of the call (a :class:`~mcpnb.client.call_logs.KeptLogs`, made
    #: at the first: most calls log nothing).
    _logs: Any = field(default=None, repr=False)
    asked: list[str] = field(default_factory=list)  # what the server asked for, for the record
    #: The server's questions that nobody was asked, each said as a sentence: how the policy or the
    #: call's answers answered, and why (shown with the result: a typo in the answers, or a headless
    #: run declining, must not pass unseen).
    answered_without_asking: list[str] = field(default_factory=list)
    policy_reason: str = ""  # why a policy answers instead of a person, e.g. nobody can answer here
    deadline: Any = field(default=None, repr=False)  # the call's Deadline, paused while a person answers
    transcript: Any = None  # a mcpnb.client.transcript.Transcript to record the call's traffic into
    #: Told once when the call ends, on the runtime loop (None: it finished; else how it failed):
    #: a question of it still waiting for a person then stops (the notebook freezes its form).
    on_end: Callable[[BaseException | None], None] | None = field(default=None, repr=False)

    def add_log(self, params: Any) -> None:
        """Keep a log notification of the call, within :data:`LOG_LIMIT` and a size budget."""
        if self._logs is None:
            from mcpnb.client.call_logs import KeptLogs

            self._logs = KeptLogs(LOG_LIMIT)
        self._logs.add(params)

    @property
    def logs(self) -> list[Any]:
        """The log notifications kept so far, oldest first (as ``result.logs`` will have them)."""
        return self.kept_logs()[0]

    @property
    def logs_dropped(self) -> int:
        """Earlier ones not kept: a server may log 50,000 lines in one call."""
        return self.kept_logs()[1]

    def kept_logs(self) -> tuple[list[Any], int]:
        """The log notifications kept, oldest first, and how many earlier ones were dropped."""
        return ([], 0) if self._logs is None else (self._logs.kept(), self._logs.dropped)


def quote(message: Any, limit: int = 100) -> str:
    """A server's message quoted in one of our sentences: its first line, cut at ``limit``."""
    text = str(message or "").strip()
    first = text.splitlines()[0] if text else ""
    if first != text or len(first) > limit:
        first = first[: limit - 1].rstrip() + "…"
    return f"“{first}”"


class Unasked(str):
    """How a question no person answered was answered, and why, as a sentence; ``accepted`` tells
    answers that went out (information) from refusals (a warning) without reading the words."""

    accepted: bool = False


def note_unasked(call: CallContext | None, sentence: str, *, accepted: bool = False) -> None:
    """Say with ``call``'s result how a question no person answered was answered, and why."""
    if call is not None:
        note = Unasked(sentence)
        note.accepted = accepted
        call.answered_without_asking.append(note)


current_call: contextvars.ContextVar[CallContext | None] = contextvars.ContextVar("mcpnb_call", default=None)


#: The (server, tool, question kind) whose unanswered questions were said on the logger: once each.
_told_nobody: set[tuple[str, str, str]] = set()


class Interaction:
    """Answers server requests without a person, by policy. Subclasses ask a person, or answer in
    code (a model that answers sampling, a program that fills forms). A subclass may write
    :meth:`elicit`, :meth:`sample` and :meth:`log` as plain functions too: they run in a thread of
    their own (see :func:`answered`), so one that waits on a model's API holds no other server up."""

    _policy: Policy | None = None  # None: $MCPNB_ELICITATION's, else decline
    #: Whether :meth:`elicit` and :meth:`sample` put a server's question before a person (a form in
    #: the cell, a prompt on stdin), who answers a few at a time: then at most
    #: :data:`~mcpnb.client.asking.MAX_OPEN_QUESTIONS` of one server's questions wait at once, and
    #: the ones a flood sends past them are answered without asking anyone. False here (a policy
    #: answers) and for a subclass that does not say so: a program answers as many at once as the
    #: server sends (a server fanning twelve sampling requests out to the model lost four to the cap
    #: when every subclass counted as a person). A subclass that asks a person sets it True, as
    #: ``NotebookInteraction`` does. (Not :attr:`CellUI.asks_people`, which says whether one call's
    #: cell can ask anyone: see :func:`headless`.)
    waits_for_a_person: bool = False

    def __init__(self, policy: Policy | None = None, timeout: float = ELICITATION_TIMEOUT) -> None:
        self._policy = policy
        self.timeout = timeout

    @property
    def policy(self) -> Policy:
        """The policy given, else ``$MCPNB_ELICITATION``'s (``decline`` or ``defaults``), else
        ``decline``. Read at each question, so the environment a script sets before its calls counts."""
        return self._policy or policy_from_env() or "decline"

    @policy.setter
    def policy(self, value: Policy | None) -> None:
        self._policy = value

    def _policy_reason(self, call: CallContext | None) -> str:
        """Why the policy answers: the call's own reason (a headless cell's), else that the
        environment chose it, when it did."""
        if call is not None and (call.policy_reason or call.policy):
            return call.policy_reason
        chosen = None if self._policy or type(self).policy is not Interaction.policy else policy_from_env()
        return f"${ELICITATION_ENV} is {chosen!r}" if chosen else ""

    def code_context(self, *, awaited: bool = False, later: bool = False) -> CallContext:
        """The context of a call made from code (``pool.call``, a toolbox function) that brought
        none: where its questions go. Here nowhere, so the policy answers; the notebook's asks the
        person in the calling cell. Called on the caller's thread (or with its context variables);
        ``awaited``: the caller awaits the call on its own loop, rather than blocking in it;
        ``later``: the questions may come after the caller has moved on (a task's)."""
        return CallContext()

    async def elicit(self, server: str, params: Any, call: CallContext | None) -> Any:
        """Answer a form or URL elicitation; returns an ``mcp.types.ElicitResult``."""
        from mcp.types import ElicitResult

        if getattr(params, "mode", "form") == "url":
            asked = f"{server} asked to open a page ({quote(params.message)})"
            note_unasked(call, f"{asked}, answered without asking anyone: declined")
            tell_nobody_answered(server, call, "page", "declined: opening a page needs a person's consent")
            return ElicitResult(action="decline")  # consent to open a URL needs a person, always
        schema = params.requested_schema or {}
        answers = call.answers if call is not None else None
        policy: Any = (
            answers if answers is not None else (call.policy if call and call.policy else self.policy)
        )
        from mcpnb.client.elicitation.policy import apply_policy

        outcome = apply_policy(schema, policy)
        if isinstance(policy, dict):
            by = "the answers given with the call"
        else:
            reason = self._policy_reason(call)
            by = f"the {policy!r} policy" + (f" ({reason})" if reason else "")
        said = {"accept": "accepted", "decline": "declined"}.get(outcome.action, "cancelled")
        why = f": {outcome.reason}" if outcome.reason and policy != "decline" else ""
        sentence = (
            f"{server} asked {quote(params.message)}, answered without asking anyone: {said} by {by}{why}"
        )
        note_unasked(call, sentence, accepted=outcome.action == "accept")
        if answers is None and outcome.action != "accept":
            tell_nobody_answered(server, call, "form", f"{said} by {by}{why}")
        return ElicitResult(action=outcome.action, content=outcome.content)

    async def confirm(
        self, question: str, details: str, call: CallContext, *, yes: str, no: str
    ) -> tuple[bool | None, str]:
        """A yes/no of mcpnb's own (run the model's call?): ``(answer, "")``, or ``(None, why nobody
        answered)``. Asked here as a form with the two answers as a choice, so an interaction that
        answers forms answers this too; the notebook's shows two buttons."""
        choice = {
            "type": "string",
            "title": question,
            "oneOf": [{"const": "yes", "title": yes}, {"const": "no", "title": no}],
        }
        schema = {"type": "object", "properties": {"answer": choice}, "required": ["answer"]}
        result, nobody = await ask_form(self, "mcpnb", details, schema, call, "answer")
        if result is None:
            return None, nobody
        return result.action == "accept" and (result.content or {}).get("answer") == "yes", ""

    async def sample(self, server: str, params: Any, call: CallContext | None) -> Any:
        """Answer a sampling request (an LLM completion the server wants). Headless: reject."""
        return reject_sampling(server, call)

    async def log(self, server: str, params: Any, call: CallContext | None) -> None:
        """A log notification from the server. Kept on the call (shown under its result)."""
        if call is not None:
            call.add_log(params)

    async def draw_page(self, pool: Any, tool: Any, arguments: Mapping[str, Any], call: CallContext) -> Any:
        """A tool's page (MCP Apps) for a call someone watches being made, a model's call that a
        ``Toolbox`` runs: drawn where ``call`` shows, before the call is sent. It returns what was
        drawn (something with ``deliver(outcome)``, ``messages`` and ``context``, as
        ``mcpnb.notebook.render.app_view.AppView`` has), or None: here nothing can draw a page."""
        return None


#: What answers each kind of question in code, said with a question nobody could be asked.
_HOW_TO_ANSWER = {
    "form": (
        "pass answers={...} with the call (CallContext(answers=...) for a task), set "
        "pool.interaction to an Interaction subclass whose elicit() asks someone, or set "
        f"{ELICITATION_ENV}=defaults to accept the forms' defaults"
    ),
    "page": "set pool.interaction to an Interaction subclass whose elicit() answers mode 'url' requests",
    "completion": "set pool.interaction to an Interaction subclass whose sample() answers",
}
_QUESTION = {"form": "a question (a form)", "page": "to open a page", "completion": "for an LLM completion"}


def tell_nobody_answered(server: str, call: CallContext | None, kind: str, how: str) -> None:
    """A WARNING on the ``mcpnb`` logger, once per server, tool and kind of question, when a
    question was answered by nobody outside a notebook (where the cell shows it under the result):
    a script's log says what happened and how to answer next time. The server's own words are left
    out (``result.answered_without_asking`` has them): a log line is no place for its escapes."""
    if call is not None and call.ui is not None:
        return
    tool = call.tool if call is not None else ""
    if (server, tool, kind) in _told_nobody:
        return
    _told_nobody.add((server, tool, kind))
    who = f"{server}.{tool}" if tool else server
    unknown = os.environ.get(ELICITATION_ENV, "").strip()
    ignored = (
        f" (${ELICITATION_ENV}={unknown!r} is ignored: it takes decline or defaults)"
        if unknown and policy_from_env() is None and kind == "form"
        else ""
    )
    said = (
        f"{who} asked {_QUESTION[kind]} and nobody was there to answer: {how}. To answer: "
        f"{_HOW_TO_ANSWER[kind]}{ignored}. (Said once per tool; result.answered_without_asking "
        "lists each call's questions.)"
    )
    logger.warning("%s", said)
    unheard(said)  # a script that set up no logging still hears it, once


def reject_sampling(
    server: str, call: CallContext | None, why: str = "", *, person_there: bool = False
) -> Any:
    """A sampling request nobody was asked to answer, refused (``ErrorData``, as a person's reject
    is), and said with the call's result, with ``why`` nobody was asked.

    The server is told that no person is there, unless one is (``person_there``: a notebook whose
    ``Mcp.elicitation`` is ``decline``, a ``%%capture`` cell, a call from a thread): then ``why``.
    A server echoes the words in its call's error, which is what the person reads, and "no person
    is there to answer" was said to someone sitting at the notebook, without the reason."""
    from mcp.types import ErrorData

    because = f" ({why})" if why else ""
    note_unasked(
        call, f"{server} asked for an LLM completion, answered without asking anyone: rejected{because}"
    )
    tell_nobody_answered(server, call, "completion", "rejected")
    if person_there and why:
        return ErrorData(code=-1, message=f"sampling was rejected without asking the person: {why}")
    return ErrorData(code=-1, message="sampling was rejected: no person is there to answer")


def headless(ui: Any) -> bool:
    """Whether a call's ``ui`` (:attr:`CallContext.ui`) says nobody can be asked there: its
    ``asks_people`` is False (a ``CellUI`` under nbclient, or in a thread of its own), so a policy
    answers. A ui that says nothing (someone's own, for an Interaction of their own) is not taken
    for headless: the interaction decides, as with no ui at all. The one rule for mcpnb's own forms
    (:func:`ask_form`) and for the questions that count as waiting for a person
    (``asking.MAX_OPEN_QUESTIONS``): a ui that said nothing was headless in the one (a form of
    mcpnb's own never reached the interaction that could answer it) and asking in the other."""
    return ui is not None and not getattr(ui, "asks_people", True)


async def ask_form(
    interaction: Interaction, asker: str, message: str, schema: dict[str, Any], call: CallContext, given: str
) -> tuple[Any, str]:
    """A form of mcpnb's own (not a server's) asked as an elicitation is, so the same forms answer it:
    ``(ElicitResult, "")``, or ``(None, why nobody was asked)`` when nobody can answer here (headless,
    or no notebook cell and no ``given``, the values that stand in for a person's), or in time."""
    import asyncio

    if headless(call.ui):
        return None, "nobody to ask (a headless run)"
    if call.ui is None and type(interaction).elicit is Interaction.elicit:
        return None, f"nobody to ask (no notebook cell, and no {given} given)"
    from mcp.types import ElicitRequestFormParams

    params = ElicitRequestFormParams(message=message, requested_schema=schema)
    try:
        return await asyncio.wait_for(
            answered(interaction.elicit, asker, params, call), interaction.timeout
        ), ""
    except TimeoutError:
        return None, f"nobody answered within {interaction.timeout:g} s"


async def answered(method: Callable[..., Any], *args: Any) -> Any:
    """What an :class:`Interaction` method returns, whether its subclass wrote it ``async def`` or
    ``def``: a plain function (a model called through a blocking client library, say) runs in a
    thread, not on the loop every connection shares; before, it failed with "object ... can't be
    used in 'await' expression"."""
    import asyncio
    import inspect

    if inspect.iscoroutinefunction(method):
        return await method(*args)
    value = await asyncio.to_thread(method, *args)
    return await value if inspect.isawaitable(value) else value


_default_interaction: Interaction | None = None


def default_interaction() -> Interaction:
    global _default_interaction
    if _default_interaction is None:
        _default_interaction = Interaction()  # the policy: $MCPNB_ELICITATION's, else decline
    return _default_interaction


def set_default_interaction(interaction: Interaction) -> Interaction:
    """Install the process-wide interaction (the notebook UI does); returns the previous one."""
    global _default_interaction
    previous = default_interaction()
    _default_interaction = interaction
    return previous
