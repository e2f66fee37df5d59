"""A value written by hand: JSON, or a list or object in YAML's flow style with JSON's words only."""

from __future__ import annotations

import pytest

from mcpnb.client.handwritten import json_or_flow


def test_json_is_read_as_json_and_a_hand_written_list_or_object_as_flow_style():
    assert json_or_flow('{"a": [1, 2.5, null]}') == {"a": [1, 2.5, None]}
    assert json_or_flow("[Ada, Grace Hopper]") == ["Ada", "Grace Hopper"]
    assert json_or_flow("{bold: true, size: 11, when: 2024-01-01, answer: no}") == {
        "bold": True,
        "size": 11,
        "when": "2024-01-01",  # JSON's words only: no date, and "no" stays a word
        "answer": "no",
    }


@pytest.mark.parametrize("text", ["hello", "[Ada, Grace", "{a: 1", "tru"])
def test_what_is_neither_is_the_json_error(text):
    with pytest.raises(ValueError):  # a plain word is no string here: a missing bracket is said
        json_or_flow(text)
