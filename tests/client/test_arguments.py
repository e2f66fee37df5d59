"""Argument checks against an inputSchema: which field, what is wrong, the signature; text coercion."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mcpnb.client.arguments import check_arguments, signature
from mcpnb.client.errors import ArgumentsError
from mcpnb.client.toolinfo import ToolInfo
from mcpnb.notebook.magics.parser import parse_body, parse_pairs

TOOL = ToolInfo(
    server="s",
    name="search",
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
            "category": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["query"],
    },
)


def test_signature():
    assert signature(TOOL) == "search(query*: string, limit: integer, tags: array, category: string|null)"


def test_valid_arguments_pass_and_typed_text_is_coerced():
    args = parse_pairs(["query=007", "limit=3", "category=true"], [])
    assert check_arguments(TOOL, args) == {"query": "007", "limit": 3, "category": "true"}


def test_errors_point_at_the_field():
    with pytest.raises(ArgumentsError, match=r"argument 'limit': 0 is less than the minimum of 1"):
        check_arguments(TOOL, parse_pairs(["query=x", "limit=0"], []))
    with pytest.raises(ArgumentsError, match=r"argument 'tags'\[1\] \(line 3\): 1 is not of type \"string\""):
        check_arguments(TOOL, parse_body('query: x\n\ntags: ["a", 1]'))
    with pytest.raises(ArgumentsError, match="missing required argument 'query'"):
        check_arguments(TOOL, parse_pairs([], []))
    with pytest.raises(
        ArgumentsError, match=r"(?s)unknown argument 'limt'.*did you mean 'limit'.*nothing was sent"
    ):
        check_arguments(TOOL, parse_pairs(["query=x", "limt=2"], []))  # like every other refusal


def test_a_required_argument_with_a_default_gets_it_when_left_out():
    """zod's ``.default()`` gives a schema that requires the field and says its default (Playwright
    MCP's screenshot ``scale``): the server fills it in, so a person need not type it."""
    shot = ToolInfo(
        server="pw",
        name="shot",
        input_schema={
            "type": "object",
            "properties": {
                "scale": {"type": "string", "enum": ["css", "device"], "default": "css"},
                "clip": {"type": "object", "default": {"x": 0}},
                "name": {"type": "string"},
            },
            "required": ["scale", "clip", "name"],
            "additionalProperties": False,
        },
    )
    assert shot.needed == ["name"] and signature(shot) == "shot(scale: string, clip: object, name*: string)"
    sent = check_arguments(shot, parse_pairs(["name=a"], []))
    assert sent == {"name": "a", "scale": "css", "clip": {"x": 0}}
    sent["clip"]["x"] = 9  # a copy: the next call still gets the schema's own default
    assert check_arguments(shot, {"name": "b", "scale": "device"})["clip"] == {"x": 0}
    with pytest.raises(ArgumentsError, match="missing required argument 'name'"):  # no default: still asked
        check_arguments(shot, {})


def test_one_plain_value_for_a_list_or_an_object_says_how_to_write_one():
    """``files=b.txt`` for mcp-server-git's ``git_add`` said only 'is not of type "array"'."""
    tool = ToolInfo(
        server="s",
        name="t",
        input_schema={
            "type": "object",
            "properties": {"tags": {"type": "array"}, "ids": {"type": "array"}, "where": {"type": "object"}},
        },
    )
    cases = [  # what was typed, what the error says to write, and that written
        (
            parse_pairs(["tags=b.txt,a.txt"], []),
            "tags=[b.txt,a.txt]",
            parse_pairs(["tags=[b.txt,a.txt]"], []),
        ),
        (parse_pairs(["ids=7"], []), "ids=[7]", parse_pairs(["ids=[7]"], [])),
        (parse_body("tags: b.txt"), "tags: [b.txt]", parse_body("tags: [b.txt]")),
    ]
    for typed, hint, written in cases:
        with pytest.raises(ArgumentsError) as caught:
            check_arguments(tool, typed)
        assert f'is not of type "array"; a list is written in brackets: {hint}' in str(caught.value)
        assert all(isinstance(v, list) for v in check_arguments(tool, written).values())
    with pytest.raises(ArgumentsError, match=r"an object is written in braces: where=\{name: value\}"):
        check_arguments(tool, parse_pairs(["where=Oslo"], []))
    with pytest.raises(ArgumentsError) as caught:  # code gets the plain message: no magic syntax
        check_arguments(tool, {"tags": "b.txt"})
    assert "brackets" not in str(caught.value)


def test_a_notebooks_numpy_and_pandas_values_go_as_json():
    """``files={{n}}`` with ``n = df["x"].sum()`` (an ``np.int64``) was "not of type 'integer'"."""
    import numpy as np
    import pandas as pd

    from mcpnb.client.arguments import native

    frame = pd.DataFrame({"k": ["a", "b"], "v": np.array([1, 2])})
    sent = check_arguments(
        TOOL, {"query": np.str_("x"), "limit": np.int64(3), "tags": np.array(["a", "b"]), "category": None}
    )
    assert sent == {"query": "x", "limit": 3, "tags": ["a", "b"], "category": None}
    assert [type(v) for v in sent.values()] == [str, int, list, type(None)]
    assert native({"rows": frame, "col": frame["v"], "pair": (np.float64(0.5), np.bool_(True))}) == {
        "rows": [{"k": "a", "v": 1}, {"k": "b", "v": 2}],
        "col": [1, 2],
        "pair": [0.5, True],
    }
    free = ToolInfo(
        server="s", name="t", input_schema={"type": "object", "properties": {"d": {"type": "object"}}}
    )
    inner = check_arguments(free, {"d": {"x": np.int64(1)}})["d"]["x"]  # a free-form object too
    assert inner == 1 and type(inner) is int
    plain = {"a": [1, {"b": "c"}], "d": None}
    assert native(plain) is plain  # nothing to turn: no copy
    with pytest.raises(ArgumentsError, match=r"argument 'limit': 0 is less than the minimum of 1"):
        check_arguments(TOOL, {"query": "x", "limit": np.int64(0)})  # turned, then checked as any


def test_a_value_the_compiled_check_cannot_read_is_worded_by_jsonschema():
    import datetime

    with pytest.raises(
        ArgumentsError, match=r"argument 'limit': datetime\.date\(2024, 1, 1\) is not of type"
    ):
        check_arguments(TOOL, {"query": "x", "limit": datetime.date(2024, 1, 1)})


def test_wrong_arguments_are_worded_without_importing_jsonschema():
    """Its first import takes seconds where rfc3987-syntax is installed; a typo must not wait for it."""
    code = """if True:
        import sys
        from mcpnb.client.arguments import check_arguments
        from mcpnb.client.errors import ArgumentsError
        from mcpnb.client.toolinfo import ToolInfo
        schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
        tool = ToolInfo(server="s", name="t", input_schema=schema)
        for bad in ({"n": "abc"}, {}):
            try:
                check_arguments(tool, bad)
            except ArgumentsError as exc:
                print(str(exc).splitlines()[0])
        print("jsonschema" in sys.modules)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines() == [
        's.t: argument \'n\': "abc" is not of type "integer"',
        "s.t: missing required argument 'n'",
        "False",
    ], out.stderr[-2000:]


def test_schemas_that_allow_anything():
    schema = {"type": "object", "additionalProperties": True}
    open_tool = ToolInfo(server="s", name="any", input_schema=schema)
    assert check_arguments(open_tool, parse_pairs(["x=1"], [])) == {"x": 1}
    broken = ToolInfo(server="s", name="b", input_schema={"type": "not-a-type", "properties": {"a": {}}})
    assert check_arguments(broken, parse_pairs(["a=1"], [])) == {"a": 1}  # the server judges


def test_an_object_json_cannot_carry_is_refused_before_sending():
    import datetime

    from mcpnb.client.results import ToolResult

    tool = ToolInfo(server="s", name="note", input_schema={"type": "object", "properties": {"text": {}}})
    with pytest.raises(ArgumentsError, match=r"argument 'text' is a ToolResult, which JSON cannot carry"):
        check_arguments(tool, {"text": ToolResult("s", "t", [])})
    with pytest.raises(ArgumentsError, match=r"argument 'text' is a lock, which JSON cannot carry"):
        check_arguments(tool, {"text": __import__("threading").Lock()})
    when = datetime.date(2026, 12, 5)
    assert check_arguments(tool, {"text": when}) == {"text": when}  # the SDK writes a date as JSON


def test_an_unknown_argument_is_not_offered_a_name_already_given():
    """``text=hi extra=1`` was asked "did you mean 'text'?"."""
    tool = ToolInfo(server="s", name="echo", input_schema={"type": "object", "properties": {"text": {}}})
    with pytest.raises(ArgumentsError) as said:
        check_arguments(tool, {"text": "hi", "tex": 1})
    assert "unknown argument 'tex'" in str(said.value) and "did you mean" not in str(said.value)
    with pytest.raises(ArgumentsError, match="did you mean 'text'"):
        check_arguments(tool, {"tex": 1})
