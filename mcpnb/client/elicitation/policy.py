"""Headless answers: what to do when nobody can see a form (nbclient, papermill, CI)."""

from __future__ import annotations

from typing import Any, Literal

from mcpnb.client.elicitation.answers import validate
from mcpnb.client.elicitation.fields import defaults_of, fields_from_schema
from mcpnb.client.elicitation.outcome import FormOutcome
from mcpnb.client.errors import did_you_mean

Policy = Literal["decline", "defaults"] | dict[str, Any]


def apply_policy(schema: dict[str, Any], policy: Policy) -> FormOutcome:
    """Answer a form elicitation without a person.

    * ``"decline"``: the safe default; a headless run never invents answers.
    * ``"defaults"``: accept with every default, as a person accepting the pre-filled form would;
      decline when a required field has no default (the reason names it).
    * a dict: those answers on top of the defaults, validated; unknown names or invalid values
      decline with the reason, because a typo must not silently send a half-filled form.
    """
    fields = fields_from_schema(schema)
    if isinstance(policy, str):
        if policy == "decline":
            return FormOutcome("decline", None, reason="headless policy: decline")
        if policy != "defaults":
            raise ValueError(f"unknown elicitation policy {policy!r}: use 'decline', 'defaults' or a dict")
        missing = [f.name for f in fields if f.required and not f.has_default]
        if missing:
            return FormOutcome(
                "decline", None, reason=f"no default for required field(s): {', '.join(missing)}"
            )
        content = defaults_of(fields)
        errors = validate(schema, content)
        if errors:
            return FormOutcome("decline", None, reason=_explain("the defaults are invalid", errors))
        return FormOutcome("accept", content)
    if not isinstance(policy, dict):
        kind = type(policy).__name__
        raise TypeError(f"an elicitation policy is 'decline', 'defaults' or a dict, not {kind}")
    known = {f.name for f in fields}
    unknown = sorted(set(policy) - known) if known else []
    if unknown:
        return FormOutcome(
            "decline",
            None,
            reason=f"unknown field(s) in the answers: {', '.join(u + _close(u, known) for u in unknown)}; "
            f"the form asks for {', '.join(sorted(known))}",
        )
    content = {**defaults_of(fields), **policy}
    errors = validate(schema, content)
    if errors:
        return FormOutcome("decline", None, reason=_explain("the given answers are invalid", errors))
    return FormOutcome("accept", content)


def _close(name: str, known: set[str]) -> str:
    hint = did_you_mean(name, sorted(known))
    return f" (did you mean {hint!r}?)" if hint else ""


def _explain(head: str, errors: dict[str, str]) -> str:
    return f"{head}: " + "; ".join(f"{k}: {v}" if k else v for k, v in errors.items())
