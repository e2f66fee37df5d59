"""A person's yes before a model's tool call runs.

The MCP spec wants a human in the loop who can deny tool invocations, with a confirmation prompt for
operations. ``pool.functions(approve=...)`` says which of the model's calls ask first: ``"never"``
(the default: the person who wrote the loop decides by running it), ``"destructive"`` (a tool that
may destroy data, by the server's annotations and the spec's defaults: not ``readOnlyHint``, and
``destructiveHint`` not false), ``"writes"`` (a tool not marked read-only), ``"always"``, or a
function ``(tool, arguments) -> bool`` that says whether to ask.

Annotations are the server's word, which the spec says to trust only from trusted servers: for
others, ``"always"``. Calls a person makes (``tools.short.x(...)``) never ask: the person did.
The question is a form like a server's (a widget, or stdin where the cell blocks); a call nobody
could be asked about, or that the person refused, is not run, and the model is told so.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from mcpnb.client.errors import McpnbError, did_you_mean_text

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.client.toolinfo import ToolInfo

Approve = Literal["never", "destructive", "writes", "always"] | Callable[["ToolInfo", dict[str, Any]], Any]
MODES = ("never", "destructive", "writes", "always")
#: The arguments, as shown in the question, are cut after this many characters.
_SHOWN = 300


class NotApprovedError(McpnbError):
    """A model's tool call that was not run: the person refused it, or nobody could be asked."""


def check_approve(approve: Any) -> Approve:
    """``approve`` if it is a mode or a function; a ``ValueError`` that names the modes if not."""
    if callable(approve) or approve in MODES:
        return approve
    raise ValueError(
        f"approve={approve!r}: expected one of {', '.join(map(repr, MODES))} or a function "
        f"(tool, arguments) -> bool{did_you_mean_text(str(approve), MODES)}"
    )


def effect(tool: ToolInfo) -> str:
    """What the tool says it does to the world, in the person's words (the spec's defaults apply
    to what it leaves out)."""
    hints = tool.annotations or {}
    if hints.get("readOnlyHint"):
        return "read-only, by the server's annotations"
    if hints.get("destructiveHint") is False:
        return "it changes things but destroys nothing, by the server's annotations"
    if "destructiveHint" in hints:
        return "it may destroy data, by the server's annotations"
    return "the server does not say what it changes, so it may destroy data"


async def asks(approve: Approve, tool: ToolInfo, arguments: dict[str, Any]) -> bool:
    """Whether this call waits for a person's yes. An ``approve`` function that raises runs nothing
    (:class:`NotApprovedError`, which the model reads, the other calls of its turn unharmed) and
    warns the person, whose function it is."""
    if callable(approve):
        try:
            answer = approve(tool, arguments)
            return bool(await answer if inspect.isawaitable(answer) else answer)
        except Exception as exc:
            import warnings

            why = f"{type(exc).__name__}: {exc}"
            warnings.warn(f"the approve function raised {why} for {tool.server}.{tool.name}", stacklevel=2)
            raise NotApprovedError(
                f"{tool.server}.{tool.name} was not run: the function that approves calls failed ({why})"
            ) from exc
    hints = tool.annotations or {}
    read_only = bool(hints.get("readOnlyHint"))
    if approve == "always":
        return True
    if approve == "writes":
        return not read_only
    if approve == "destructive":
        return not read_only and hints.get("destructiveHint") is not False
    return False


def shown_arguments(tool: ToolInfo, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments as the question shows them: a secret's value masked as a form masks it (a
    parameter the schema marks ``format: password`` or ``writeOnly``, or whose name looks secret,
    and secret-looking keys inside objects). The question, and the record of it the notebook
    keeps, said ``{"username": "ann", "password": "hunter2"}``."""
    from mcpnb.client.elicitation.fields import HIDDEN, clearly_secret, fields_from_schema, mask

    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    # credentials beyond doubt only: the person judges the call by the rest (a key it deletes)
    masked = mask(fields_from_schema(schema), dict(arguments), doubtless=True) or {}
    # a key the schema does not list (a model's slip) is judged by its name alone
    listed = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    return {
        k: HIDDEN if k not in listed and clearly_secret(str(k)) and v not in (None, "") else v
        for k, v in masked.items()
    }


async def ask(pool: Pool, tool: ToolInfo, arguments: Mapping[str, Any], turn: asyncio.Lock) -> None:
    """Ask the person in the calling cell; :class:`NotApprovedError` unless they said run.

    ``turn``: one question at a time, though ``run_all`` runs the calls at once.
    """
    shown = json.dumps(shown_arguments(tool, arguments), ensure_ascii=False, default=str)
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 1] + "…"
    what = f"{tool.server}.{tool.name}"
    details = f"The model asks to run {what} with {shown} ({effect(tool)})."
    interaction = pool.effective_interaction
    call = pool.asking_context(awaited=pool.awaited_here())  # buttons where the cell awaits this
    async with turn:
        said, nobody = await interaction.confirm(
            f"Run {what}?", details, call, yes="Run it", no="Do not run it"
        )
    if said is None:
        raise NotApprovedError(f"{what} was not run: it needs a person's approval; {nobody}")
    if not said:
        raise NotApprovedError(f"{what} was not run: the person did not approve it")
