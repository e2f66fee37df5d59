"""Headless policies: decline, defaults, given answers."""

from __future__ import annotations

import pytest

from mcpnb.notebook.forms import FormOutcome, apply_policy
from tests.client.elicitation.schemas import CONFORMANCE_BASIC, EVERYTHING, SEP1034


def test_decline():
    outcome = apply_policy(SEP1034, "decline")
    assert outcome.action == "decline" and outcome.content is None and "decline" in outcome.reason


def test_defaults_sep1034_fills_every_default():
    # what the conformance scenario elicitation-sep1034-client-defaults checks
    assert apply_policy(SEP1034, "defaults") == FormOutcome(
        "accept", {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True}
    )


def test_defaults_decline_when_a_required_field_has_none():
    outcome = apply_policy(EVERYTHING, "defaults")
    assert outcome.action == "decline" and "name" in outcome.reason


def test_defaults_that_do_not_validate_decline():
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3, "default": 9}}}
    outcome = apply_policy(schema, "defaults")
    assert outcome.action == "decline" and "at most 3" in outcome.reason


def test_given_answers_merge_with_defaults_and_validate():
    outcome = apply_policy(EVERYTHING, {"name": "Ada", "email": "ada@example.com"})
    assert outcome.action == "accept"
    assert outcome.content["name"] == "Ada" and outcome.content["integer"] == 42
    assert outcome.content["titledMultipleSelectEnum"] == ["fish-1"]
    bad = apply_policy(CONFORMANCE_BASIC, {"username": "ada", "email": 5})
    assert bad.action == "decline" and "email" in bad.reason
    missing = apply_policy(CONFORMANCE_BASIC, {"username": "ada"})
    assert missing.action == "decline" and "email: required" in missing.reason
    typo = apply_policy(CONFORMANCE_BASIC, {"username": "ada", "emial": "a@b.co"})
    assert typo.action == "decline" and "emial" in typo.reason


def test_unknown_policy():
    with pytest.raises(ValueError):
        apply_policy(SEP1034, "accept-all")
    with pytest.raises(TypeError):
        apply_policy(SEP1034, 3)
