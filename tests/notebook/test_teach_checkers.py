"""Checker messages a teacher sweep found wanting: each common answer gets the sentence that teaches
(exercises of lessons 06-10). The checkers that read a server ask a real one: the demo server over
stdio (06), probe-kit in-process (10)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import mcpnb
from mcpnb import teach

DEMO = str(Path(__file__).resolve().parents[1] / "servers" / "demo_server.py")


def told(name: str, value: object) -> str:
    verdict = teach.check(name, value)
    assert verdict.passed is False, verdict
    assert "could not read this answer" not in verdict.message, verdict
    return verdict.message


@pytest.mark.parametrize("modern", [None, "none", "None", " "])
def test_the_modern_era_has_no_opening_and_saying_so_is_right(modern: object) -> None:
    """Lesson 07 teaches that 2026-07-28 has no handshake; `None` for its opening was refused."""
    verdict = teach.check("07.opening", {"legacy": "initialize", "modern": modern})
    assert verdict.passed is True, verdict
    assert "no opening" in verdict.message and "server/discover" in verdict.message


def test_the_legacy_era_does_open_with_a_method() -> None:
    assert "does have an opening" in told("07.opening", {"legacy": None, "modern": "server/discover"})


def test_a_code_without_its_sign_is_told_the_sign_matters() -> None:
    assert "the sign is part of the code" in told("07.forged", 32602)
    assert "the sign is part of the code" in told("07.forged", 32602.0)


@pytest.mark.parametrize(
    "value", ["85be5e0f0c3a4a46bd2f1a8e44c3a9d1", "85be5e0f-0c3a-4a46-bd2f-1a8e44c3a9d1"]
)
def test_the_session_id_itself_is_told_to_give_the_header_s_name(value: str) -> None:
    assert "that is the header's value" in told("07.session", value)
    assert teach.check("07.session", f"Mcp-Session-Id: {value}").passed  # a header line is still right


def test_the_handle_attribute_is_told_apart_from_the_wire_field() -> None:
    said = told("08.poll-field", {"legacy": "poll_interval_ms", "modern": "poll_interval_ms"})
    assert "the handle's Python attribute" in said and "on the wire" in said


@pytest.mark.parametrize(
    "value",
    ["connection lost", "demo state: connection lost: the server process was killed (SIGKILL)"],
)
def test_the_event_message_is_told_apart_from_the_state(value: str) -> None:
    said = told("09.state", value)
    assert "`connection lost` is that event's message" in said and "`.state`" in said
    assert "not a state mcpnb uses" not in said


def test_a_repaired_result_with_a_field_the_server_never_sent_is_refused(pool, monkeypatch) -> None:
    pool.connect("demo", command=sys.executable, args=[DEMO, "stdio"])
    monkeypatch.setattr("mcpnb.notebook.teach.exercises.course_pool", lambda: pool)
    assert "`z` is not a field of the outputSchema" in told("06.fix-point", {"x": 3, "y": 2, "z": 1})
    assert teach.check("06.fix-point", {"x": 3, "y": 2}).passed


def test_a_tool_name_in_the_wrong_case_is_told_names_are_case_sensitive(pool, monkeypatch) -> None:
    mcpnb.serve_probekit("probe", pool=pool, toolset="apps")
    monkeypatch.setattr("mcpnb.notebook.teach.exercises.course_pool", lambda: pool)
    said = told("10.visibility", {"Dice"})
    assert "case-sensitive" in said and "`dice`, not `Dice`" in said
