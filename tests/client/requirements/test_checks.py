"""After connecting: the row of one server, from what the pool knows (state, version, tools)."""

from __future__ import annotations

from mcpnb.client.requirements import PlannedServer
from mcpnb.client.requirements.checks import row_for

from .helpers import cfg


def planned(**extra) -> PlannedServer:
    return PlannedServer("time", cfg("time"), "notebook", ("notebook",), **extra)


def test_a_satisfied_server_is_ok():
    row = row_for(
        planned(version=">=2", tools=("now",)), state="connected", version="2.1", tools=["now", "x"]
    )
    assert (row.state, row.level, row.problems) == ("connected", "ok", ())
    assert (row.version_wanted, row.version_got) == (">=2", "2.1")


def test_a_version_outside_the_specifier_fails_a_required_server():
    row = row_for(planned(version=">=3"), state="connected", version="2.1", tools=[])
    assert row.state == "unsatisfied" and row.level == "error"
    assert row.problems == ("version 2.1 does not satisfy >=3",)


def test_a_server_that_reports_no_version_is_a_warning_not_a_failure():
    row = row_for(planned(version=">=3"), state="connected", version=None, tools=[])
    assert row.state == "connected" and row.level == "warn" and row.problems == ()
    assert "reports no version, so >=3 was not checked" in row.notes


def test_missing_tools_fail_and_are_named():
    row = row_for(planned(tools=("now", "convert", "zone")), state="connected", version="1", tools=["now"])
    assert row.level == "error" and row.problems == ("missing tools: convert, zone",)


def test_a_failed_required_server_is_an_error_with_its_reason():
    row = row_for(planned(), state="failed", version=None, error="command not found: srv")
    assert (row.state, row.level, row.problems) == ("failed", "error", ("command not found: srv",))


def test_a_failed_optional_server_is_a_warning_row():
    row = row_for(planned(optional=True), state="failed", version=None, error="command not found: srv")
    assert row.level == "warn" and row.problems == ("command not found: srv",)
    assert "optional, so the notebook goes on without it" in row.notes


def test_what_was_done_leads_the_notes():
    row = row_for(
        planned(notes=("deduplicated: a, b",)),
        state="connected",
        version="1",
        action="kept",
        action_note="already connected with these settings: untouched",
    )
    assert row.action == "kept" and row.notes[:2] == (
        "already connected with these settings: untouched",
        "deduplicated: a, b",
    )
