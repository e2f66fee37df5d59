"""``ToolInfo.text_parameter``: where a bare value may go, and where it would be a guess."""

from __future__ import annotations

import pytest

from mcpnb.client.toolinfo import ToolInfo


def tool(properties: dict, required: list[str] | None = None) -> ToolInfo:
    schema = {"type": "object", "properties": properties, "required": required or []}
    return ToolInfo(server="s", name="t", description=None, input_schema=schema)


TEXT = {"type": "string"}


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        (tool({"sql": TEXT}, ["sql"]), "sql"),  # DuckDB's execute_query
        (tool({"sql": TEXT}), "sql"),  # the only one, optional
        (tool({"url": TEXT, "wait": {"type": "number"}}, ["url"]), "url"),  # one required among others
        (tool({"q": {"type": ["string", "null"]}}, ["q"]), "q"),
        (tool({"q": {"anyOf": [TEXT, {"type": "null"}]}}, ["q"]), "q"),
        (tool({"page": {"type": "number"}, "js": TEXT}, ["page", "js"]), None),  # two required
        (tool({"a": TEXT, "b": TEXT}), None),  # two optional: which one?
        (tool({"n": {"type": "integer"}}, ["n"]), None),  # not text
        (tool({}), None),
    ],
)
def test_the_one_text_parameter(info: ToolInfo, expected: str | None) -> None:
    assert info.text_parameter == expected


def test_a_malformed_schema_has_none() -> None:
    malformed = ToolInfo(server="s", name="t", description=None, input_schema={"properties": []})
    assert malformed.text_parameter is None
