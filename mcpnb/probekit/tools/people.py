"""People in the loop: a form interview, a one-question ask, and URL-mode consent to open a page.

Elicitation goes through the SDK's ``Resolve``/``Elicit`` markers, which work in both protocol eras
(a back-channel request on 2025-11-25, an ``input_required`` round on 2026-07-28). A decline or
cancel is a normal, clean result: a person saying no is not an error.
"""

import asyncio
import contextlib
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp import UrlElicitationRequiredError, types
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, Resolve
from mcp.server.mcpserver.resolve import AcceptedElicitation
from pydantic import BaseModel, Field, create_model

from mcpnb.probekit import inputs, schemas
from mcpnb.probekit.consents import elicitation_id as consent_id
from mcpnb.probekit.consents import requester
from mcpnb.probekit.paths import read_text
from mcpnb.probekit.responses import Payload, ProbeError, error_response, structured
from mcpnb.probekit.state import ProbeState


class InterviewForm(BaseModel):
    """The design's kickoff questions, flat so every client can render them as a form."""

    project_name: str = Field(title="Project name", description="What is the project called?")
    goal: str = Field(title="Goal", description="What should it achieve, in one sentence?")
    audience: str = Field(title="Audience", description="Who will use it?")
    stack: Literal["python", "typescript", "go", "rust", "other"] = Field(
        default="python", title="Main stack", description="Main language or stack"
    )
    deadline: str = Field(default="", title="Deadline", description="When is it due? (free text)")
    has_tests: bool = Field(default=False, title="Tests exist", description="Does it already have tests?")


QUESTIONS = {name: (field.description or name) for name, field in InterviewForm.model_fields.items()}


def can_elicit(ctx: Context) -> bool:
    """Whether the client declared elicitation; without it the question goes out as text."""
    caps = ctx.client_capabilities
    return caps is not None and caps.elicitation is not None


def ask_interview(ctx: Context, topic: str = "your project") -> Elicit[InterviewForm] | None:
    """Resolver: the interview form (a marker, so it works in both eras); None for a client
    without elicitation, which gets the questions as text instead (the design's fallbackToText)."""
    return Elicit(f"A few questions about {topic}", InterviewForm) if can_elicit(ctx) else None


def answer_model(question: str, choices: list[str] | None) -> type[BaseModel]:
    """A one-field form for ``question``; with choices, the field is an enum."""
    kind: Any = Literal[tuple(choices)] if choices else str  # type: ignore[valid-type]
    return create_model("Answer", answer=(kind, Field(title="Answer", description=question)))


def ask_question(ctx: Context, question: str, choices: list[str] | None = None) -> Elicit[Any] | None:
    """Resolver for ``ask_user``: builds the form from the tool's own arguments (None: no forms)."""
    return Elicit(question, answer_model(question, choices)) if can_elicit(ctx) else None


def unasked(result: Any) -> bool:
    """The resolver returned None (no forms): the SDK then hands the tool an empty "accept"."""
    return result is None or (isinstance(result, AcceptedElicitation) and result.data is None)


def text_question(intro: str, questions: list[tuple[str, list[str] | None]]) -> Payload:
    """fallbackToText: a plain-text result that asks the question(s) and lists the options."""
    lines = [intro, "(This client cannot show forms, so the questions come as text: answer in the chat.)"]
    for question, options in questions:
        lines.append(f"- {question}" + (f" Options: {', '.join(options)}" if options else ""))
    text = "\n".join(lines)
    return Payload({"action": "text", "answers": [], "message": text}, text)


def outcome_payload(result: Any, questions: dict[str, str]) -> Payload:
    """Answers as question/answer rows; decline and cancel give an empty, clean result."""
    if isinstance(result, AcceptedElicitation):
        data = result.data.model_dump()
        rows = [{"question": questions.get(k, k), "answer": str(v)} for k, v in data.items()]
        text = "\n".join(f"{r['question']} {r['answer']}" for r in rows)
        return Payload({"action": "accept", "answers": rows, "message": "thank you"}, text)
    action = getattr(result, "action", "cancel")
    msg = "You declined; nothing was recorded." if action == "decline" else "Cancelled; nothing was recorded."
    return Payload({"action": action, "answers": [], "message": msg}, msg)


def _choices(annotation: Any) -> list[str] | None:
    if annotation is bool:
        return ["yes", "no"]
    args = getattr(annotation, "__args__", None)
    return [str(a) for a in args] if getattr(annotation, "__origin__", None) is Literal and args else None


def page_title(text: str, fallback: str) -> str:
    m = re.search(r"^#\s+(.+)$", text, re.M) or re.search(r"<title>(.*?)</title>", text, re.I | re.S)
    return m.group(1).strip() if m else fallback


def _page_url(state: ProbeState, file: Any) -> str:
    """A link a browser can open: the page served on 127.0.0.1 (a ``file://`` URL is not a web link)."""
    from mcpnb.probekit.pages import PageServer

    if state.pages is None:
        state.pages = PageServer()
    return state.pages.publish(file)


def _said_done_on_visit(state: ProbeState, url: str, elicitation_id: str, ctx: Any) -> str:
    """The page's URL for this −32042 answer: its first visit sends ``notifications/elicitation/complete``
    to the session that was refused (only to it, as the spec says), so a client may retry by itself."""
    assert state.pages is not None  # published by _page_url
    loop, session = asyncio.get_running_loop(), ctx.session

    def done() -> None:
        with contextlib.suppress(RuntimeError):  # the session's loop has closed: nobody to tell
            asyncio.run_coroutine_threadsafe(session.send_elicit_complete(elicitation_id), loop)

    return state.pages.on_visit(url, elicitation_id, done)


#: The key of open_local_page's URL request in a 2026-07-28 ``InputRequiredResult``.
CONSENT = "consent"


def _page_result(path: str, url: str, name: str, text: str, action: str) -> types.CallToolResult:
    """What open_local_page answers once the person chose: the page (accept), or nothing opened."""
    data = {"action": action, "path": path, "url": url, "title": "", "bytes": 0, "preview": ""}
    if action == "accept":
        data |= {"title": page_title(text, name), "bytes": len(text.encode()), "preview": text[:500]}
        summary = f"Opened {path}: {data['title']} ({data['bytes']} bytes)\n\n{text[:500]}"
    else:
        summary = f"Not opened: the person chose {action}."
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=summary)], structured_content=data
    )


def _no_error_form() -> types.CallToolResult:
    """``via="error"`` on 2026-07-28, which forbids -32042 (basic/index: implementations of this
    version MUST NOT emit it; it is 2025-11-25's)."""
    return error_response(
        "-32042 (URL elicitation required) is the 2025-11-25 era's error; a 2026-07-28 server must "
        "not send it. This era asks with an InputRequiredResult holding the URL request instead, and "
        "the client retries the call with the person's answer.",
        hint="call with via='auto' (or 'elicit'), or connect with the legacy era "
        "(--era legacy, era='legacy') to see -32042 and its retry",
        code="not_in_this_era",
    )


def _no_url_mode() -> types.CallToolResult:
    """A client that did not declare elicitation's ``url`` mode is never sent one (the spec: servers
    MUST NOT send a mode the client did not declare; ``elicitation: {}`` means forms only)."""
    return error_response(
        "This client did not declare URL-mode elicitation (capabilities.elicitation.url), so "
        "probe-kit cannot ask it for consent to open the page.",
        hint="connect with a client that declares elicitation {url: {}} (mcpnb's does)",
        code="url_mode_not_declared",
    )


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The people family (elicitation tools)."""

    @structured(schemas.ANSWERS)
    def interview(
        result: Annotated[ElicitationResult[InterviewForm], Resolve(ask_interview)],
        topic: str = "your project",
    ) -> Payload:
        """Ask the kickoff interview as a form (elicitation; works in both protocol eras). A client
        without elicitation gets the questions as text."""
        if unasked(result):
            fields = InterviewForm.model_fields
            asked = [(QUESTIONS[n], _choices(f.annotation)) for n, f in fields.items()]
            return text_question(f"A few questions about {topic}:", asked)
        return outcome_payload(result, QUESTIONS)

    @structured(schemas.ANSWERS)
    def ask_user(
        question: str,
        result: Annotated[ElicitationResult[Any], Resolve(ask_question)],
        choices: list[str] | None = None,
    ) -> Payload:
        """Ask the person one question, optionally with fixed choices, and return the answer.
        A client without elicitation gets the question and its choices as text."""
        if unasked(result):
            return text_question(question, [(question, choices)])
        return outcome_payload(result, {"answer": question})

    async def open_local_page(
        path: str, ctx: Context, via: Literal["auto", "elicit", "error"] = "auto", confirmed: bool = False
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Ask consent (URL-mode elicitation) before opening a local page inside the allowed root
        (served for you on http://127.0.0.1). `auto` (or `elicit`) asks in the era's own way: on
        2026-07-28 the call is answered with an InputRequiredResult holding the URL request and the
        client retries it with the person's answer; on 2025-11-25 the request goes over the session.
        The client must declare elicitation's `url` mode. `via="error"` (2025-11-25 only) answers
        with the -32042 "URL elicitation required" error instead, after which the client retries the
        same call (or passes `confirmed=true`); the page's first visit sends
        notifications/elicitation/complete, so a client may retry by itself. 2026-07-28 has no -32042
        and says so."""
        try:
            file, text = read_text(state.root, path)
        except ProbeError as exc:
            return error_response(str(exc))
        url = _page_url(state, file)
        who = requester(ctx.request_context.request)  # the consent is this client's, nobody else's
        elicitation_id = consent_id(who, url)
        message = f"Open the local page {path}?"
        if via == "error":
            if inputs.modern(ctx):
                return _no_error_form()
            if not (confirmed or state.url_asked.came_back(who, elicitation_id)):
                state.url_asked.ask(who, elicitation_id)
                asked = _said_done_on_visit(state, url, elicitation_id, ctx)
                raise UrlElicitationRequiredError(
                    [types.ElicitRequestURLParams(message=message, url=asked, elicitation_id=elicitation_id)]
                )
            return _page_result(path, url, file.name, text, "accept")
        if not inputs.can_open_pages(ctx):
            return _no_url_mode()
        asked = types.ElicitRequestURLParams(message=message, url=url, elicitation_id=elicitation_id)
        got = await inputs.answers(
            ctx, {CONSENT: types.ElicitRequest(params=asked)}, state=elicitation_id, bound=True
        )
        if not isinstance(got, dict):
            return got  # type: ignore[return-value]  # 2026-07-28: the InputRequiredResult (asked)
        action = got[CONSENT].action
        if action == "accept" and not inputs.modern(ctx):  # 2025-11-25 has the "done" notification
            await ctx.session.send_elicit_complete(elicitation_id, related_request_id=ctx.request_id)
        return _page_result(path, url, file.name, text, action)

    open_local_page.output_schema = dict(schemas.PAGE)  # type: ignore[attr-defined]
    return [interview, ask_user, open_local_page]
