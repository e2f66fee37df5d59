"""A connection's side of people-in-the-loop: the SDK callbacks for elicitation, sampling and logs.

Each request is routed to the call it belongs to (see :mod:`mcpnb.client.interaction`), the call's
deadline is paused while a person answers, and the person's time is bounded. A question nobody
answered in that time, or a failure of the interaction itself (a form that cannot be shown), is
answered ``cancel`` (the spec's "dismissed without making an explicit choice"; ``decline`` says a
person chose no), never an error that would look like a broken connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import REFUSED_HERE, describe
from mcpnb.client.events import log_data_text
from mcpnb.client.interaction import (
    CallContext,
    Interaction,
    answered,
    current_call,
    default_interaction,
    headless,
    note_unasked,
    quote,
)

if TYPE_CHECKING:
    from mcpnb.client.connection import Connection


class _AskFailed(Exception):
    """The interaction itself failed (not the server): an elicitation is cancelled, sampling refused."""


class _TooMany(Exception):
    """The server already has :data:`MAX_OPEN_QUESTIONS` questions waiting for a person."""


#: Questions (forms, pages to open, completions) one server may have waiting for a person at once.
#: A server that sent 200 ``elicitation/create`` at once put 200 forms (7,400 widgets) in the calling
#: cell; past this many, the next is answered at once without asking anyone (cancel, or refused for
#: sampling) until one is answered, said once in the server's log and under each call concerned.
#: Only questions put before a person count (``Interaction.waits_for_a_person``: the notebook's forms
#: and stdin prompts): a policy, the answers given with a call, or an interaction that is a program
#: (a model answering sampling) answer every question whatever their number. Counted per server,
#: not per call: it bounds what one person has in front of them, whichever calls asked (a question
#: of several calls in flight belongs to none of them). So calls in flight share it: a toolbox
#: running a model's ten parallel calls of one server (``Toolbox.arun_all`` starts them all at
#: once), each asking the person something, shows eight forms and has the other two cancelled,
#: each of those calls saying so under its result.
MAX_OPEN_QUESTIONS = 8
#: A server's words kept in one line of its log (characters), as a stderr line is
#: (:data:`~mcpnb.client.callbacks.STDERR_LINE_CHARS`): the log keeps its last 200 lines for as long
#: as the connection lives, and 300 log notifications of a megabyte each kept 200 MB there.
LINE_CHARS = 4000


def cut(text: str, limit: int = LINE_CHARS) -> str:
    """``text`` for a line of the server's log: its start, and how much more there was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} more characters not kept)"


def answer_as(answer: Any, method: str, model: Any) -> Any:
    """An interaction's answer as the SDK's ``model`` (or its ``ErrorData``). A subclass may return
    the dict it would send (``{"action": "accept", "content": {...}}``): it reached the SDK as it was
    and failed the call as "'dict' object has no attribute 'action' (MCP error 0)", the server's
    fault by the words, the interaction's in fact. Anything else is said to be the interaction's."""
    from mcp.types import ErrorData
    from pydantic import ValidationError

    from mcpnb.client.errors import validation_problem

    if isinstance(answer, (model, ErrorData)):
        return answer
    if isinstance(answer, dict):
        try:
            return model.model_validate(answer)
        except ValidationError as exc:
            problem = validation_problem(exc)
            raise TypeError(
                f"the interaction's {method}() returned a dict that is no {model.__name__} ({problem})"
            ) from None
    raise TypeError(
        f"the interaction's {method}() returned {type(answer).__name__}, not an mcp.types.{model.__name__}"
    )


#: The ``_meta`` key a 2025-11-25 server puts on a request or notification that belongs to a task.
RELATED_TASK = "io.modelcontextprotocol/related-task"
#: JSON-RPC's "Invalid params": a request that carries what the client never said it takes.
_INVALID_PARAMS = -32602


def related_task(params: Any) -> str | None:
    """The task a server request or notification says it belongs to (its ``_meta``), if any;
    ``params`` parsed or as sent (:class:`~mcpnb.client.transcript.Wire` asks with those)."""
    meta = params.get("_meta") if isinstance(params, dict) else getattr(params, "meta", None)
    if meta is not None and not isinstance(meta, dict) and hasattr(meta, "model_dump"):
        meta = meta.model_dump(by_alias=True)  # a typed _meta keeps unknown keys as extras
    related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
    task_id = related.get("taskId") if isinstance(related, dict) else None
    return task_id if isinstance(task_id, str) and task_id else None


@dataclass
class Unsure(CallContext):
    """A question that may belong to any of ``calls``: several were in flight and nothing said
    which (a 2025-11-25 server's push request over stdio or SSE carries no link to its call).

    It is asked without any call's ``answers`` (one call's answers must never answer another's
    question), where those calls are shown if they share a cell; each call is told afterwards."""

    calls: list[CallContext] = field(default_factory=list)

    @classmethod
    def among(cls, server: str, calls: list[CallContext]) -> Unsure:
        first = calls[0]
        shared = all(c.ui is first.ui and c.policy == first.policy for c in calls)
        return cls(
            server=server,
            ui=first.ui if shared else None,
            policy=first.policy if shared else None,
            policy_reason=first.policy_reason if shared else "",
            calls=list(calls),
        )

    def spread(self, asked: str) -> None:
        """Tell each call what happened to the question, and a call whose answers were left out why
        (once: three calls asked the same thing at once are each told once, not three times)."""
        unused = (
            f"{asked} while {len(self.calls)} calls were running, and nothing said which one it was "
            "for: the answers given with this call were not used for it"
        )
        for call in self.calls:
            said = call.answered_without_asking
            said.extend(note for note in self.answered_without_asking if note not in said)
            if call.answers is not None and unused not in said:
                note_unasked(call, unused)


def _record_answer(
    call: CallContext | None, method: str, answer: Any, schema: dict[str, Any] | None = None
) -> None:
    """The client's answer to a server's request, in the transcript of the call it belongs to (a
    2025-11-25 transcript showed the question and never what went back). Not on 2026-07-28, where
    no answer crosses on its own: it rides in the call's next request (``inputResponses``, recorded
    there, masked), and a line of mcpnb's own read as a message on the wire. An elicitation's content
    is masked as the form masks it (:func:`~mcpnb.client.elicitation.fields.mask`, for the fields of
    the requested ``schema``: ``format: password``, ``writeOnly``, secret-looking names and keys
    inside JSON fields), so the transcript never shows what the form hid."""
    calls = call.calls if isinstance(call, Unsure) else [call] if call is not None else []
    kept = [each for each in calls if each.transcript is not None]
    if not kept:
        return
    dump = getattr(answer, "model_dump", None)
    shown = dump(by_alias=True, exclude_none=True, mode="json") if dump else {"result": str(answer)}
    if isinstance(shown.get("content"), dict):
        shown["content"] = masked_answer(schema, shown["content"])
    kind = "error" if "code" in shown else "response"
    for each in kept:
        each.transcript.add("→", kind, method, shown)


def masked_answer(schema: Any, content: dict[str, Any]) -> dict[str, Any]:
    """``content`` sent for a form of ``schema``, masked as the form shows it; a key the schema
    does not declare is judged by its name as a field of that name would be."""
    from mcpnb.client.elicitation.fields import field_from_property, fields_from_schema, mask

    fields = fields_from_schema(schema)
    declared = {f.name for f in fields}
    fields += [field_from_property(str(key), {}) for key in content if key not in declared]
    return mask(fields, content) or {}


def _sampling_outcome(result: Any) -> str:
    """How a sampling request was answered, for the server's log, as an elicitation's ``accept``
    is said there: which model replied and why it stopped, or the refusal's words. The log said
    that the server asked, and never whether the model (or the person playing it) answered."""
    message = getattr(result, "message", None)
    if getattr(result, "code", None) is not None and isinstance(message, str):
        return f"sampling rejected: {message}"
    stop = getattr(result, "stop_reason", None)
    return f"sampling answered by {getattr(result, 'model', '?')!r}" + (f" ({stop})" if stop else "")


class Asking:
    """Answers one connection's server requests through its interaction."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        #: Calls in flight: a 2025-11-25 push request finds its call here.
        self.active_calls: list[CallContext] = []
        #: Tasks that may still ask, by task id (their questions say which task they are for).
        self.task_calls: dict[str, CallContext] = {}
        #: Questions waiting for a person now, and how many were answered without asking since
        #: there were :data:`MAX_OPEN_QUESTIONS` (said in the log when the last one is answered).
        self.open_questions = 0
        self.refused_questions = 0

    @property
    def interaction(self) -> Interaction:
        return self.conn.interaction or default_interaction()

    def adopt(self, context: CallContext, task_id: str, *, until: Callable[[], bool], watch: Any) -> None:
        """Route the questions of task ``task_id`` to ``context`` while it outlives its call, until
        ``until()`` is true; ``watch.add_listener`` says when to look again."""
        self.task_calls[task_id] = context

        def release(_: Any = None) -> None:
            if until() and self.task_calls.get(task_id) is context:
                del self.task_calls[task_id]

        watch.add_listener(release)

    def current(self, params: Any = None) -> CallContext | None:
        """The call a server request (or notification) belongs to.

        The context variable first (the 2026-07-28 era, and HTTP answers read in the caller's
        task); then the task its ``_meta`` names; then the one call in flight. With several in
        flight and nothing to tell them apart, an :class:`Unsure` of them all: the most recent
        call once took every such question, with its answers, and another call's too.
        """
        call = current_call.get()
        if call is not None:
            return call
        task_id = related_task(params)
        if task_id is not None:
            return self.task_calls.get(task_id)  # a task of ours, or one started elsewhere (none)
        calls = self.active_calls or list(self.task_calls.values())  # tasks: a server that did not say
        if len(calls) > 1:
            return Unsure.among(self.conn.name, calls)
        return calls[0] if calls else None

    async def _ask(
        self,
        what: str,
        call: CallContext | None,
        ask: Callable[[Interaction, CallContext | None], Awaitable[Any]],
    ) -> Any:
        interaction = self.interaction
        asks_someone = self._asks_someone(interaction, what, call)
        if asks_someone and self.open_questions >= MAX_OPEN_QUESTIONS:
            self.refused_questions += 1
            if self.refused_questions == 1:
                self.conn.emit(
                    "ask",
                    f"the server already has {MAX_OPEN_QUESTIONS} questions waiting for an answer: its next "
                    "ones are answered without asking anyone until one is answered",
                    refused=True,
                )
            raise _TooMany
        calls = call.calls if isinstance(call, Unsure) else [call] if call is not None else []
        for each in calls:  # (a transcript has the request as sent: transcript.Wire)
            each.asked.append(what)
            if each.deadline is not None:
                each.deadline.pause()
        self.conn.emit("ask", cut(f"the server asks: {what}"), call=call.tool if call else None)
        self.open_questions += int(asks_someone)
        try:
            return await asyncio.wait_for(ask(interaction, call), interaction.timeout)
        except (TimeoutError, asyncio.CancelledError):
            raise
        except Exception as exc:  # a broken UI must never look like a broken server
            # a WARNING: a bug in an Interaction of the person's own (pool.interaction) is theirs to see
            self.conn.emit("ask", f"asking failed, so the server is told no: {describe(exc)}", failed=True)
            raise _AskFailed(describe(exc)) from exc
        finally:
            self.open_questions -= int(asks_someone)
            if not self.open_questions and self.refused_questions:
                refused, self.refused_questions = self.refused_questions, 0
                self.conn.emit(
                    "ask",
                    f"{refused} of the server's questions were answered without asking anyone: "
                    f"it asked them while {MAX_OPEN_QUESTIONS} others were waiting for an answer",
                    refused=refused,
                )
            for each in calls:
                if each.deadline is not None:
                    each.deadline.resume()

    @staticmethod
    def _asks_someone(interaction: Interaction, what: str, call: CallContext | None) -> bool:
        """Whether a question may wait for a person, and so counts toward :data:`MAX_OPEN_QUESTIONS`:
        only when the interaction says it asks a person (``waits_for_a_person``) and answers this
        kind of question itself; not when a policy (a headless cell's, the base class's) or the
        call's own answers answer it. Those, and a program, answer any number at once: a model
        answering a server's twelve parallel sampling requests must get all twelve."""
        if not getattr(interaction, "waits_for_a_person", False):
            return False
        if call is not None and headless(call.ui):  # a policy answers
            return False
        if what.startswith("sampling"):
            return type(interaction).sample is not Interaction.sample
        if what.startswith("form") and isinstance(call, CallContext) and call.answers is not None:
            return False
        return type(interaction).elicit is not Interaction.elicit

    def _too_many(self, call: CallContext | None, asked: str, answered: str) -> None:
        """Say on ``call`` (once) that questions of its server were answered without asking."""
        head = (
            f"{self.conn.name} asked more than {MAX_OPEN_QUESTIONS} questions at once: the ones past "
            f"{MAX_OPEN_QUESTIONS} were {answered} without asking anyone"
        )
        calls = call.calls if isinstance(call, Unsure) else [call] if call is not None else []
        for each in calls:  # once per call: 200 questions at once are one line under its result
            if not any(note.startswith(head) for note in each.answered_without_asking):
                note_unasked(each, f"{head} (the first of them: {asked})")

    async def on_elicit(self, ctx: Any, params: Any) -> Any:
        """The SDK's elicitation callback (both eras, form and URL mode, task questions too)."""
        from mcp.types import ElicitResult

        mode = getattr(params, "mode", "form") or "form"
        server, call = self.conn.name, self.current(params)
        asked = f"{server} asked {quote(params.message)}"

        async def elicit(interaction: Interaction, call: CallContext | None) -> Any:
            if mode == "form" and isinstance(call, CallContext) and call.answers is not None:
                # the call's own answers beat any interaction: a subclass set as pool.interaction
                # that asks in its own way (and knows nothing of answers=) ignored them
                return await Interaction.elicit(interaction, server, params, call)
            return answer_as(await answered(interaction.elicit, server, params, call), "elicit", ElicitResult)

        try:
            result = await self._ask(f"{mode} elicitation: {params.message}", call, elicit)
        except TimeoutError:  # nobody chose: "cancel", not "decline" (a person's explicit no)
            self.conn.emit("ask", "nobody answered the elicitation in time: cancelled")
            note_unasked(call, f"{asked} and nobody answered in time: cancelled")
            result = ElicitResult(action="cancel")
        except _AskFailed as failed:
            note_unasked(call, f"{asked} and asking failed ({failed}): cancelled")
            result = ElicitResult(action="cancel")
        except _TooMany:
            self._too_many(call, quote(params.message), "cancelled")
            result = ElicitResult(action="cancel")
        else:
            self.conn.emit("ask", f"elicitation answered: {result.action}")
        finally:
            if isinstance(call, Unsure):
                call.spread(asked)
        if self.conn.era != "modern":  # 2026-07-28: the answer goes in the call's next request
            _record_answer(call, "elicitation/create", result, getattr(params, "requested_schema", None))
        return result

    async def on_sample(self, ctx: Any, params: Any) -> Any:
        """The SDK's sampling callback: the person plays the model (or it is rejected)."""
        from mcp.types import CreateMessageResult, ErrorData

        server, call = self.conn.name, self.current(params)
        asked = f"{server} asked for an LLM completion"
        undeclared = self._undeclared_sampling_fields(params)
        if undeclared:  # MCP: the client MUST return an error, so nobody is asked
            fields = " and ".join(f"`{name}`" for name in undeclared)
            self.conn.emit("ask", f"sampling request with {fields} refused: sampling.tools is not declared")
            note_unasked(call, f"{asked} with {fields}, which this client does not take: refused")
            result: Any = ErrorData(
                code=_INVALID_PARAMS,
                message=f"sampling/createMessage carries {fields}, but this client did not declare the "
                "sampling.tools capability: send the request without tools and toolChoice",
            )
            if self.conn.era != "modern":
                _record_answer(call, "sampling/createMessage", result)
            return result

        async def sample(interaction: Interaction, call: CallContext | None) -> Any:
            answer = await answered(interaction.sample, server, params, call)
            return answer_as(answer, "sample", CreateMessageResult)

        try:
            result = await self._ask("sampling (an LLM completion)", call, sample)
        except TimeoutError:
            self.conn.emit("ask", "nobody answered the sampling request in time: rejected")
            note_unasked(call, f"{asked} and nobody answered in time: rejected")
            result = ErrorData(code=-1, message="nobody answered the sampling request in time")
        except _AskFailed as failed:
            note_unasked(call, f"{asked} and asking failed ({failed}): rejected")
            # not "could not ask anyone": the interaction may be a model function that raised
            result = ErrorData(code=-1, message="the client failed to answer the sampling request")
        except _TooMany:  # said once in the log for the whole flood (see _ask), not per question
            self._too_many(call, "for an LLM completion", "rejected")
            result = ErrorData(
                code=-1, message=f"more than {MAX_OPEN_QUESTIONS} questions at once: not asked"
            )
        else:
            self.conn.emit("ask", cut(_sampling_outcome(result)))
        finally:
            if isinstance(call, Unsure):
                call.spread(asked)
        if self.conn.era != "modern":
            _record_answer(call, "sampling/createMessage", result)
        elif isinstance(result, ErrorData):  # ends the call here: errors.describe says so
            result = result.model_copy(update={"data": REFUSED_HERE})
        return result

    def _undeclared_sampling_fields(self, params: Any) -> list[str]:
        """The tool-use fields of a sampling request (``tools``, ``toolChoice``) that this client's
        capabilities do not allow: it declares ``sampling`` without ``tools``, and the spec has the
        client refuse such a request with an error rather than answer it without the tools."""
        client = self.conn.client
        declared = getattr(getattr(client, "sampling_capabilities", None), "tools", None)
        if declared is not None:
            return []
        sent = {"tools": getattr(params, "tools", None), "toolChoice": getattr(params, "tool_choice", None)}
        return [name for name, value in sent.items() if value is not None]

    async def on_log(self, params: Any) -> None:
        """The SDK's logging callback: an event and the interaction, each with the secrets this
        connection knows scrubbed (a server that logs its own env or token), as ``%mcp logs`` shows
        the line: the call's log lines are saved with the notebook. (A transcript has the
        notification as the server sent it, scrubbed as it is added: transcript.Wire.)"""
        params = self.cleaned(params)
        said = cut(log_data_text(params.data))  # JSON, as the call's own view shows it
        logger = cut(params.logger, 200) if isinstance(params.logger, str) else params.logger
        self.conn.emit("log", f"{params.level}: {said}", level=params.level, logger=logger)
        call = self.current(params)
        if isinstance(call, Unsure):  # several calls in flight: the line stays in the server's log
            call = None
        try:
            await answered(self.interaction.log, self.conn.name, params, call)
        except Exception as exc:  # a broken log view must not break the session
            self.conn.emit("log", f"showing the log line failed: {describe(exc)}")

    def cleaned(self, params: Any) -> Any:
        """A log notification's ``params`` with the connection's secrets scrubbed from its data
        and logger name (:meth:`Connection.safe`); the same object when there was nothing to hide."""
        from mcpnb.client.transcript import scrubbed

        data, logger = scrubbed(params.data, self.conn.safe), params.logger
        logger = self.conn.safe(logger) if isinstance(logger, str) else logger
        if data is params.data and logger == params.logger:
            return params
        return params.model_copy(update={"data": data, "logger": logger})
