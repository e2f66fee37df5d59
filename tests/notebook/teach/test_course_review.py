"""Checker messages a course review found false or unfair (lessons 08 and 09): the likely slip gets
the sentence that is true of it, and a number is a number in every lesson's check."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from mcpnb import teach


def told(name: str, value: object) -> str:
    verdict = teach.check(name, value)
    assert verdict.passed is False, verdict
    assert "could not read this answer" not in verdict.message, verdict
    return verdict.message


# ---------------------------------------------------------------- 08.poll-field
def test_the_same_name_for_both_wires_is_told_whose_name_it_is() -> None:
    """`pollInterval` for both was told it is "the handle's Python attribute", which it is not."""
    said = told("08.poll-field", {"legacy": "pollInterval", "modern": "pollInterval"})
    assert "`pollInterval` is the 2025-11-25 name" in said and "spells it `pollIntervalMs`" in said
    assert "Python attribute" not in said
    said = told("08.poll-field", {"legacy": "pollIntervalMs", "modern": "pollIntervalMs"})
    assert "tasks extension's name" in said and "2025-11-25 spells it `pollInterval`" in said
    assert "Python attribute" not in said


@pytest.mark.parametrize(
    ("value", "right", "wrong"),
    [
        ({"legacy": "pollinterval", "modern": "pollintervalms"}, "pollInterval", "pollinterval"),
        ({"legacy": "pollInterval", "modern": "PollIntervalMs"}, "pollIntervalMs", "PollIntervalMs"),
        ({"legacy": "pollInterval", "modern": "pollinterval"}, "pollInterval", "pollinterval"),
    ],
)
def test_a_field_name_in_the_wrong_case_is_told_names_are_case_sensitive(
    value: dict[str, str], right: str, wrong: str
) -> None:
    said = told("08.poll-field", value)
    assert "field names are case-sensitive" in said and f"`{right}`, not `{wrong}`" in said
    assert "Python attribute" not in said


@pytest.mark.parametrize("attribute", ["poll_interval_ms", "poll_interval"])
def test_the_python_attribute_is_still_told_apart_from_the_wire_field(attribute: str) -> None:
    said = told("08.poll-field", {"legacy": attribute, "modern": attribute})
    assert "the handle's Python attribute" in said and "on the wire" in said


# ---------------------------------------------------------------- numbers
@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("09.timeout", np.int64(1)),
        ("09.timeout", np.float64(1.0)),
        ("09.timeout", Decimal("1")),
        ("07.mrtr", np.int64(2)),
        ("07.forged", np.int32(-32602)),
    ],
)
def test_numpy_numbers_are_numbers_in_every_lesson(name: str, value: object) -> None:
    """09.timeout refused numpy.int64(1) ("give a number of seconds") where 07 took numpy numbers."""
    assert teach.check(name, value).passed is True, teach.check(name, value)


def test_a_numpy_number_gets_the_same_teaching_as_a_python_one() -> None:
    assert "4 s works, but it is not the smallest" in told("09.timeout", np.int64(4))
    assert "positive number" in told("09.timeout", np.float64(-1))


@pytest.mark.parametrize("value", [True, "1", None, float("nan"), [1]])
def test_what_is_not_a_number_is_still_asked_for_one(value: object) -> None:
    assert "give a number of seconds" in told("09.timeout", value)


def test_the_shared_helpers_read_numbers_one_way() -> None:
    from mcpnb.notebook.teach.exercises import number, whole_number

    assert number(np.int64(3)) == 3 and type(number(np.int64(3))) is int
    assert number(np.float64(1.5)) == 1.5 and number(Decimal("2")) == 2
    assert number(True) is None and number("2") is None and number(float("nan")) is None
    assert whole_number(2.0) == 2 and whole_number(np.float32(2.0)) == 2
    assert whole_number(2.5) is None and whole_number(float("inf")) is None
