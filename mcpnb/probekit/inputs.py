"""What a tool asks its client, in either protocol era: a form, a completion from the client's
model, the client's roots.

On 2025-11-25 a server asks in the middle of a call, with a request over the session. On 2026-07-28
it never does: it answers the call with an ``InputRequiredResult`` (the requests, each under a key of
its choosing, and an optional opaque ``requestState``), and the client retries the call with
``inputResponses`` under the same keys. :func:`answers` is both: the tool says what it needs and gets
the answers, or what to answer the call with first. A question the client did not declare it can
answer is never asked.
"""

from __future__ import annotations

from typing import Any

from mcp import types
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from mcpnb.probekit.responses import text

#: The method of each kind of question, the capability a client declares to take it, its answer's type.
_ASKS: dict[str, tuple[str, type[BaseModel]]] = {
    "elicitation/create": ("elicitation", types.ElicitResult),
    "sampling/createMessage": ("sampling", types.CreateMessageResult),
    "roots/list": ("roots", types.ListRootsResult),
}
_CAPABILITIES: dict[str, BaseModel] = {
    "elicitation": types.ElicitationCapability(),
    "sampling": types.SamplingCapability(),
    "roots": types.RootsCapability(),
}

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def form(message: str, schema: dict[str, Any]) -> types.ElicitRequest:
    return types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=schema))


def completion(prompt: str, max_tokens: int) -> types.CreateMessageRequest:
    message = types.SamplingMessage(role="user", content=text(prompt))
    return types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(messages=[message], max_tokens=max_tokens)
    )


def roots() -> types.ListRootsRequest:
    return types.ListRootsRequest()


Ask = types.ElicitRequest | types.CreateMessageRequest | types.ListRootsRequest


# ---------------------------------------------------------------------- asking, in either era
def modern(ctx: Context) -> bool:
    """Whether this request speaks 2026-07-28 (questions ride the result, not the session)."""
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def can(ctx: Context, capability: str) -> bool:
    """Whether the client declared ``capability`` (``elicitation``, ``sampling``, ``roots``)."""
    caps = ctx.client_capabilities
    return caps is not None and getattr(caps, capability, None) is not None


def asks_for_a_page(request: Ask) -> bool:
    """Whether ``request`` is a URL-mode elicitation (a page for the person to open)."""
    return isinstance(request, types.ElicitRequest) and isinstance(
        request.params, types.ElicitRequestURLParams
    )


def can_open_pages(ctx: Context) -> bool:
    """Whether the client declared URL-mode elicitation (``elicitation.url``). Both eras' spec: servers
    MUST NOT send an elicitation mode the client did not declare, and a bare ``elicitation: {}``
    declares form mode only."""
    caps = ctx.client_capabilities
    return caps is not None and caps.elicitation is not None and caps.elicitation.url is not None


def can_fill_forms(ctx: Context) -> bool:
    """Whether the client declared form-mode elicitation: ``elicitation.form``, or a bare
    ``elicitation: {}`` (form mode only, for backwards compatibility); one that declared
    ``{url: {}}`` alone takes no forms."""
    caps = ctx.client_capabilities
    asks = caps.elicitation if caps is not None else None
    return asks is not None and (asks.form is not None or asks.url is None)


def declared(ctx: Context, request: Ask) -> bool:
    """Whether the client declared it can answer ``request``, in its elicitation mode where it is one."""
    if asks_for_a_page(request):
        return can_open_pages(ctx)
    if isinstance(request, types.ElicitRequest):
        return can_fill_forms(ctx)
    return can(ctx, _ASKS[request.method][0])


def _needed(request: Ask) -> tuple[str, BaseModel]:
    """The capability ``request`` needs, shaped as a client would declare it."""
    if asks_for_a_page(request):
        return "elicitation", types.ElicitationCapability(url=types.UrlElicitationCapability())
    name = _ASKS[request.method][0]
    return name, _CAPABILITIES[name]


def require_capabilities(ctx: Context, wanted: dict[str, Ask]) -> None:
    """``-32021`` naming each capability ``wanted`` needs and the client did not declare."""
    missing = dict(_needed(r) for r in wanted.values() if not declared(ctx, r))
    if missing:
        names = " and ".join(sorted(missing))
        raise missing_capability(
            f"this request needs the client's {names} capability, which it did not declare",
            types.ClientCapabilities(**missing),
        )


def missing_capability(message: str, required: types.ClientCapabilities) -> MCPError:
    """SEP-2575's ``-32021``: its ``data.requiredCapabilities`` shaped as a client's capabilities."""
    data = types.MissingRequiredClientCapabilityErrorData(required_capabilities=required)
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=message,
        data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
    )


def _answer(request: Ask, given: Any) -> BaseModel | None:
    """The client's answer to ``request``, or None when it gave none that reads as one."""
    if given is None:
        return None
    kind = _ASKS[request.method][1]
    raw = given.model_dump(by_alias=True, exclude_none=True) if isinstance(given, BaseModel) else given
    try:
        return kind.model_validate(raw)
    except ValidationError:
        return None


async def answers(
    ctx: Context,
    wanted: dict[str, Ask],
    *,
    state: str | None = None,
    strict: bool = False,
    bound: bool = False,
) -> dict[str, Any] | types.InputRequiredResult | list[types.TextContent]:
    """The client's answers to ``wanted`` (key -> request), or what to answer the call with first.

    2026-07-28: the answers come in the retried call's ``inputResponses``; any that is missing (or
    is no answer of its kind) is asked again, with ``state`` echoed, and keys nobody asked for are
    ignored. ``bound``: answers count only on a retry that echoes ``state`` itself (the SDK seals a
    state, so a client cannot make one up): the answers are to this very question, asked of this
    client (a URL consent to one page), not to another. 2025-11-25: each is asked now, over the
    session. A client that did not declare what a question needs gets the questions as text
    (probe-kit's rule: every tool answers something), or, ``strict``, the ``-32021`` error that says
    which capability was missing."""
    if strict:
        require_capabilities(ctx, wanted)
    elif not all(declared(ctx, request) for request in wanted.values()):
        return [text(_as_text(wanted))]
    if not modern(ctx):
        from mcp.shared.message import ServerMessageMetadata

        meta = ServerMessageMetadata(related_request_id=ctx.request_id)
        return {
            key: await ctx.session.send_request(request, _ASKS[request.method][1], metadata=meta)
            for key, request in wanted.items()
        }
    given = ctx.input_responses or {}
    if bound and ctx.request_state != state:
        given = {}  # answers to some other question (or none): ask this one
    got = {key: _answer(request, given.get(key)) for key, request in wanted.items()}
    missing = {key: wanted[key] for key, answer in got.items() if answer is None}
    if missing:
        return types.InputRequiredResult(input_requests=missing, request_state=state)
    return got


def _as_text(wanted: dict[str, Ask]) -> str:
    """The questions, for a client that cannot be asked them (it did not declare the capability)."""
    lines = ["This client cannot be asked these (it did not declare the capability each needs):"]
    for key, request in wanted.items():
        capability = "elicitation.url" if asks_for_a_page(request) else _ASKS[request.method][0]
        if asks_for_a_page(request):
            what = f"a page to open: {request.params.message}"
        elif isinstance(request, types.ElicitRequest):
            what = f"a form: {request.params.message}"
        elif isinstance(request, types.CreateMessageRequest):
            content = request.params.messages[0].content
            what = f"a completion of: {content.text if isinstance(content, types.TextContent) else content}"
        else:
            what = "its roots"
        lines.append(f"- {key} ({capability}): {what}")
    return "\n".join(lines)


def said(reply: types.CreateMessageResult) -> str:
    content = reply.content
    return content.text if isinstance(content, types.TextContent) else str(content)


def named(reply: types.ElicitResult, field: str) -> str:
    return str((reply.content or {}).get(field, "")) if reply.action == "accept" else f"({reply.action})"
