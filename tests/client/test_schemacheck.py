"""The lenient outputSchema check: verdicts and messages, formats, no network, large results."""

from __future__ import annotations

import socket
import threading

from mcpnb.client.schemacheck import json_path, schema_problem

ROWS = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "when": {"type": "string", "format": "date-time"}},
                "required": ["id"],
            },
        }
    },
    "required": ["rows"],
}


def test_valid_data_has_no_problem() -> None:
    assert schema_problem({"rows": [{"id": 1, "when": "2026-11-30T12:00:00Z"}]}, ROWS) is None


def test_the_problem_names_where_and_what() -> None:
    problem = schema_problem({"rows": [{"id": 1}, {"id": 2}, {"id": "three"}]}, ROWS)
    assert problem is not None
    assert problem.startswith("at $.rows[2].id: ") and "integer" in problem and "three" in problem


def test_missing_required_key_at_the_top() -> None:
    assert schema_problem({}, ROWS) == 'at $: "rows" is a required property'


def test_formats_are_checked() -> None:
    problem = schema_problem({"rows": [{"id": 1, "when": "yesterday"}]}, ROWS)
    assert problem is not None and "$.rows[0].when" in problem and "date-time" in problem


def test_a_broken_schema_is_reported_not_raised() -> None:
    problem = schema_problem({"a": 1}, {"type": "not-a-type"})
    assert problem is not None and problem.startswith("cannot check against the schema:")


def test_remote_refs_are_never_fetched() -> None:
    hits: list[bytes] = []
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(3)
        port = listener.getsockname()[1]

        def accept() -> None:
            try:
                conn, _ = listener.accept()
                hits.append(conn.recv(100))
                conn.close()
            except OSError:
                pass

        thread = threading.Thread(target=accept)
        thread.start()
        problem = schema_problem({"a": 1}, {"$ref": f"http://127.0.0.1:{port}/schema.json"})
        listener.close()
        thread.join()
    assert hits == []
    assert problem is not None and "not fetched" in problem


def test_a_hundred_thousand_rows_are_checked_whole() -> None:
    rows = [{"id": i, "when": "2026-11-30T12:00:00Z"} for i in range(100_000)]
    assert schema_problem({"rows": rows}, ROWS) is None
    rows[99_999]["id"] = None
    assert schema_problem({"rows": rows}, ROWS).startswith("at $.rows[99999].id:")


def test_json_path() -> None:
    assert json_path([]) == "$"
    assert json_path(["rows", 2, "age"]) == "$.rows[2].age"


def test_a_large_value_is_quoted_short_with_its_size() -> None:
    """The message quoted the whole offending value: one mismatch made a 7 MB warning, repeated in
    the badge's title, the warning line and the saved notebook."""
    rows = [{"id": i, "name": "x" * 50} for i in range(100_000)]
    problem = schema_problem(
        {"result": rows}, {"type": "object", "properties": {"result": {"type": "string"}}}
    )
    assert problem.startswith('at $.result: [{"id":0,"name":"xxx') and len(problem) < 300, len(problem)
    assert problem.endswith('… (an array of 100000 items) is not of type "string"')
    text = schema_problem("y" * 240_000, {"type": "string", "maxLength": 3})
    assert len(text) < 300 and text.endswith("… (a string of 240000 characters) is longer than 3 characters")
    big = {f"k{i}": i for i in range(5000)}
    said = schema_problem(big, {"type": "array"})
    assert len(said) < 300 and said.endswith('… (an object of 5000 keys) is not of type "array"')
    assert schema_problem({"a": "short"}, {"type": "array"}) == 'at $: {"a":"short"} is not of type "array"'


def test_a_value_inside_the_message_is_quoted_short_and_a_long_rest_is_cut_in_the_middle() -> None:
    said = schema_problem([1] * 100_000, {"type": "array", "contains": {"type": "string"}})
    assert said.startswith("at $: None of [1,1,1") and len(said) < 300, len(said)
    assert said.endswith("… (an array of 100000 items) are valid under the given schema")
    wanted = {f"key{i}": i for i in range(5000)}  # the schema's own value, quoted whole
    said = schema_problem("other", {"const": wanted})
    assert said.startswith('at $: {"key0":0') and said.endswith(" was expected") and " … " in said
    assert len(said) < 600, len(said)


def test_an_optional_field_of_a_python_servers_output_says_what_it_takes():
    """``eta: datetime | None`` is ``anyOf: [string, null]`` in pydantic's schema: a result whose
    ``eta`` was a number warned "is not valid under any of the schemas listed in the 'anyOf'
    keyword"; now the types, or the one branch's own complaint."""
    from pydantic import BaseModel, Field, TypeAdapter

    class Order(BaseModel):
        eta: str | None = None
        qty: int | None = Field(default=None, ge=1)

    schema = TypeAdapter(list[Order]).json_schema()
    assert schema_problem([{"eta": 5}], schema) == 'at $[0].eta: 5 is not of type "string" or "null"'
    assert schema_problem([{"qty": 0}], schema) == "at $[0].qty: 0 is less than the minimum of 1"


def test_an_optional_choice_or_a_nested_union_names_every_type_it_takes():
    """The review's: ``Literal["a", "b"] | None`` given 5 said only "string" (its enum beside the
    type counted as taking the type), and a union inside a union lost its ``null``."""
    literal = {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]}
    nested = {"anyOf": [{"anyOf": [{"type": "integer"}, {"type": "boolean"}]}, {"type": "null"}]}
    schema = {"type": "object", "properties": {"x": literal, "y": nested}}
    assert schema_problem({"x": 5}, schema) == 'at $.x: 5 is not of type "string" or "null"'
    assert schema_problem({"x": "c"}, schema) == 'at $.x: "c" is not one of "a" or "b"'
    assert schema_problem({"y": "s"}, schema) == 'at $.y: "s" is not of type "integer" or "boolean" or "null"'
