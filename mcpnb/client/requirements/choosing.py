"""Strategy ``ask``: one form with a question per conflict, asked through the pool's
:class:`~mcpnb.client.interaction.Interaction` like a server's elicitation.

So the existing forms answer it: in a notebook cell the widget form (or the text prompts), with
``answers`` the given answers (checked like ``--answers`` for a tool), and headless nobody: then
the caller falls back to priority and the plan says so. Each field offers the conflict's sides,
with priority's pick (when it has one) as the default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcpnb.client.interaction import CallContext, ask_form
from mcpnb.client.requirements.errors import RequirementConflictError

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.client.requirements.plan import Conflict

#: Who asks, as the form's header shows it.
ASKER = "mcpnb require"
MESSAGE = "Declarations disagree. Pick, for each server, the one to use (the default is priority's pick)."


def question(conflicts: Sequence[Conflict]) -> dict[str, Any]:
    """The form's JSON Schema: one required choice per conflict."""
    properties: dict[str, Any] = {}
    for c in conflicts:
        what = ", ".join(c.keys) if c.kind == "config" else "versions"
        prop: dict[str, Any] = {
            "type": "string",
            "title": c.key,
            "description": f"they differ in {what}",
            "oneOf": [{"const": o.id, "title": f"{o.id}: {o.summary}"} for o in c.options],
        }
        if c.chosen is not None:
            prop["default"] = c.chosen
        properties[c.key] = prop
    return {"type": "object", "properties": properties, "required": list(properties)}


async def choose(
    pool: Pool,
    conflicts: Sequence[Conflict],
    *,
    answers: dict[str, Any] | None = None,
    context: CallContext | None = None,
) -> tuple[dict[str, str] | None, str]:
    """``(choices, how)``: what was chosen and by whom, or ``(None, why nobody chose)``.

    A person who cancels stops everything (:class:`RequirementConflictError`), as do answers that
    do not fit the question (a typo must not quietly become priority's pick); one who declines
    leaves it to priority.
    """
    schema = question(conflicts)
    call = context if context is not None else pool.asking_context()
    given = answers if answers is not None else call.answers
    if given is not None:
        from mcpnb.client.elicitation.policy import apply_policy

        outcome = apply_policy(schema, given)
        if outcome.action != "accept":
            raise RequirementConflictError(f"the answers given do not settle the conflicts: {outcome.reason}")
        return {k: str(v) for k, v in (outcome.content or {}).items()}, "answers given"
    interaction = pool.effective_interaction
    result, nobody = await ask_form(interaction, ASKER, MESSAGE, schema, call, "answers")
    if result is None:
        return None, nobody
    if result.action == "accept":
        return {k: str(v) for k, v in (result.content or {}).items()}, "asked"
    if result.action == "cancel":
        raise RequirementConflictError("you cancelled the choice, so nothing was connected")
    return None, "you declined to choose"
