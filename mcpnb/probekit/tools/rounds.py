"""The conformance fixtures of 2026-07-28: a request that needs the client's input (SEP-2322), the
capability a request must declare (SEP-2575), a parameter mirrored into a header (SEP-2243).

On 2026-07-28 a server never sends its client a request in the middle of a call. It answers with an
``InputRequiredResult`` instead: what it needs, each under a key of its choosing (``inputRequests``:
a form, a completion from the client's model, the client's roots), and, if it wants to remember
something, an opaque ``requestState``. The client fulfils the requests and sends the same call again
with ``inputResponses`` under the same keys and the state echoed verbatim. Each tool here, named as
the official suite calls it, is the smallest example of one part of that. On 2025-11-25 the same
tools ask the old way, with requests over the session, so each works in both eras
(:mod:`mcpnb.probekit.inputs` does the asking).

The state is the server's memory between rounds and it travels through the client, so the spec
tells servers to treat what comes back as an attacker's: the SDK's ``RequestStateBoundary`` seals
every state a handler hands out (authenticated encryption, bound to the request) and refuses, with
``-32602``, one that comes back changed or for another tool, before the tool runs. Here a state is
plain JSON (:func:`remember`, :func:`recall`). A question the client did not declare it can answer
is never asked: the call fails with ``-32021`` and says which capability it needed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp import types
from mcp.server.mcpserver import Context

from mcpnb.probekit.inputs import (
    NAME_FORM,
    Ask,
    answers,
    completion,
    declared,
    form,
    modern,
    named,
    roots,
    said,
)
from mcpnb.probekit.responses import content_only, text
from mcpnb.probekit.state import ProbeState


# ---------------------------------------------------------------------- the state
def remember(memory: dict[str, Any]) -> str:
    """``memory`` as a requestState (the SDK seals it on its way out)."""
    return json.dumps(memory, separators=(",", ":"))


def recall(state: str) -> dict[str, Any]:
    """What :func:`remember` put in ``state``: the SDK has checked its seal, and that it was handed
    out for this very request (the same method and tool), before the tool runs."""
    return json.loads(state)


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The 2026-07-28 fixtures, in the order the suite runs them."""

    async def test_input_required_result_elicitation(ctx: Context) -> Any:
        """Input required, one round: a form to fill (key user_name); the retry with a name completes it."""
        got = await answers(ctx, {"user_name": form("What is your name?", NAME_FORM)})
        if not isinstance(got, dict):
            return got
        return [text(f"Hello, {named(got['user_name'], 'name')}!")]

    async def test_input_required_result_sampling(ctx: Context) -> Any:
        """Input required: a question for the client's model (key capital_question), then its answer."""
        got = await answers(ctx, {"capital_question": completion("What is the capital of France?", 100)})
        if not isinstance(got, dict):
            return got
        return [text(f"The client's model says: {said(got['capital_question'])}")]

    async def test_input_required_result_list_roots(ctx: Context) -> Any:
        """Input required: the client's roots (roots/list, key client_roots), then named."""
        got = await answers(ctx, {"client_roots": roots()})
        if not isinstance(got, dict):
            return got
        listed = ", ".join(f"{r.name or r.uri} ({r.uri})" for r in got["client_roots"].roots) or "none"
        return [text(f"The client's roots: {listed}")]

    async def test_input_required_result_request_state(ctx: Context) -> Any:
        """Input required with a sealed requestState the retry must echo unchanged ("state-ok")."""
        return await _confirm(ctx, "test_input_required_result_request_state")

    async def test_input_required_result_multiple_inputs(ctx: Context) -> Any:
        """Input required, three at once (a form, the client's model, its roots) plus a requestState."""
        tool = "test_input_required_result_multiple_inputs"
        memory = recall(ctx.request_state) if ctx.request_state else {"tool": tool}
        wanted = {
            "user_name": form("What is your name?", NAME_FORM),
            "greeting": completion("Generate a greeting", 50),
            "client_roots": roots(),
        }
        got = await answers(ctx, wanted, state=remember(memory))
        if not isinstance(got, dict):
            return got
        count = len(got["client_roots"].roots)
        return [
            text(
                f"{said(got['greeting'])} {named(got['user_name'], 'name')}: "
                f"your client shares {count} root{'s' * (count != 1)}."
            )
        ]

    async def test_input_required_result_multi_round(ctx: Context) -> Any:
        """Input required twice: step 1's name rides the requestState into step 2's question."""
        tool = "test_input_required_result_multi_round"
        memory = recall(ctx.request_state) if ctx.request_state else {"tool": tool, "round": 1}
        if memory["round"] == 1:
            step1 = {"step1": form("Step 1: What is your name?", NAME_FORM)}
            got = await answers(ctx, step1, state=remember(memory))
            if not isinstance(got, dict):
                return got
            memory = {"tool": tool, "round": 2, "name": named(got["step1"], "name")}
            if modern(ctx):  # the next question is the next round: a new state, the name kept in it
                return types.InputRequiredResult(input_requests=_step2(), request_state=remember(memory))
        got = await answers(ctx, _step2(), state=remember(memory))
        if not isinstance(got, dict):
            return got
        return [text(f"{memory['name']} likes {named(got['step2'], 'color')}.")]

    async def test_input_required_result_tampered_state(ctx: Context) -> Any:
        """Input required with a sealed requestState: one changed on its way back is refused (-32602)."""
        return await _confirm(ctx, "test_input_required_result_tampered_state")

    async def test_input_required_result_capabilities(ctx: Context) -> Any:
        """Input required only for what the client declared it can answer (form, model, roots)."""
        offered = {
            "user_name": form("What is your name?", NAME_FORM),
            "greeting": completion("Generate a greeting", 50),
            "client_roots": roots(),
        }
        wanted = {key: request for key, request in offered.items() if declared(ctx, request)}
        if not wanted:
            return [text("The client declared none of elicitation, sampling and roots: nothing was asked.")]
        got = await answers(ctx, wanted)
        if not isinstance(got, dict):
            return got
        return [text(f"Answered: {', '.join(sorted(got))} (only what the client declared was asked).")]

    async def test_missing_capability(ctx: Context) -> Any:
        """Needs the client's sampling: undeclared, the call fails with -32021 naming it (SEP-2575)."""
        got = await answers(ctx, {"haiku": completion("Write a haiku about protocols", 60)}, strict=True)
        if not isinstance(got, dict):
            return got
        return [text(said(got["haiku"]))]

    async def test_streaming_elicitation(ctx: Context) -> Any:
        """Progress, then a question: a 2026-07-28 response stream carries no request of the server's."""
        await ctx.report_progress(0, 1, "about to ask")
        got = await answers(ctx, {"user_name": form("What is your name?", NAME_FORM)})
        if not isinstance(got, dict):
            return got
        await ctx.report_progress(1, 1, "answered")
        return [text(f"Streamed, then answered: {named(got['user_name'], 'name')}")]

    async def test_logging_tool(ctx: Context) -> list[types.TextContent]:
        """Two log lines, sent only where a level was chosen (per request in 2026-07-28, per client)."""
        from mcpnb.probekit.logs import log

        sent = 0
        for message in ("logging tool started", "logging tool finished"):
            sent += await log(ctx, "info", message, state.log_levels)
        return [text(f"{sent} log notifications sent")]

    async def test_trigger_tool_change(ctx: Context) -> list[types.TextContent]:
        """Adds or removes a tool and tells subscribers the tool list changed (both eras)."""
        return [text(await _toggle(ctx, state, "tool"))]

    async def test_trigger_prompt_change(ctx: Context) -> list[types.TextContent]:
        """Adds or removes a prompt and tells subscribers the prompt list changed (both eras)."""
        return [text(await _toggle(ctx, state, "prompt"))]

    def test_x_mcp_header(region: str, note: str = "") -> list[types.TextContent]:
        """A parameter mirrored into a header (Mcp-Param-Region); header and body must agree (SEP-2243)."""
        return [text(f"region {region}" + (f" ({note})" if note else ""))]

    test_x_mcp_header.input_schema = {  # type: ignore[attr-defined]
        "type": "object",
        "properties": {
            "region": {"type": "string", "description": "Where to run", "x-mcp-header": "Region"},
            "note": {"type": "string", "description": "Not mirrored"},
        },
        "required": ["region"],
    }

    return content_only(
        [
            test_input_required_result_elicitation,
            test_input_required_result_sampling,
            test_input_required_result_list_roots,
            test_input_required_result_request_state,
            test_input_required_result_multiple_inputs,
            test_input_required_result_multi_round,
            test_input_required_result_tampered_state,
            test_input_required_result_capabilities,
            test_missing_capability,
            test_streaming_elicitation,
            test_logging_tool,
            test_trigger_tool_change,
            test_trigger_prompt_change,
            test_x_mcp_header,
        ]
    )


def _step2() -> dict[str, Ask]:
    schema = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}
    return {"step2": form("Step 2: What is your favorite color?", schema)}


async def _confirm(ctx: Context, tool: str) -> Any:
    """One round: a yes/no question and a requestState the retry must bring back unchanged (sealed
    by the SDK: a changed one never reaches the tool)."""
    memory = recall(ctx.request_state) if ctx.request_state else {"tool": tool}
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    got = await answers(ctx, {"confirm": form("Please confirm", schema)}, state=remember(memory))
    if not isinstance(got, dict):
        return got
    checked = "state-ok: the requestState came back unchanged" if ctx.request_state else "asked in one go"
    return [text(f"{checked}; confirmed: {named(got['confirm'], 'ok')}")]


#: What the list triggers add and take away, in turn.
_COMING = {"tool": "test_appearing_tool", "prompt": "test_appearing_prompt"}


async def _toggle(ctx: Context, state: ProbeState, kind: str) -> str:
    from mcp.server.subscriptions import PromptsListChanged, ToolsListChanged

    server, name = ctx.mcp_server, _COMING[kind]
    if kind == "tool":
        present = server._tool_manager.get_tool(name) is not None
        if present:
            server.remove_tool(name)
        else:
            server.add_tool(_appearing, name=name, description="Here until the trigger runs again.")
        event: Any = ToolsListChanged()
    else:
        present = server._prompt_manager.get_prompt(name) is not None
        if present:
            server.remove_prompt(name)
        else:
            server.prompt(name=name, description="Here until the trigger runs again.")(_appearing)
        event = PromptsListChanged()
    if modern(ctx):
        await state.subscriptions.bus.publish(event)
    elif kind == "tool":
        await ctx.session.send_tool_list_changed()
    else:
        await ctx.session.send_prompt_list_changed()
    return f"{name} {'removed' if present else 'added'}; the {kind} list changed and subscribers were told"


def _appearing() -> str:
    return "I was added by a list-change trigger."
