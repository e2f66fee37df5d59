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
