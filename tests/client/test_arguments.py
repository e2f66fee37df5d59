"""Argument checks against an inputSchema: which field, what is wrong, the signature; text coercion."""

from __future__ import annotations

import datetime
import subprocess
import sys
import uuid
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from mcpnb.client.arguments import check_arguments, signature, unchecked_arguments
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


def test_values_are_checked_as_the_sdk_will_write_them():
    """A datetime for a ``date-time`` string was refused as "not of type 'string'" (the check read
    the Python object; the SDK sends its ISO text), and a pandas Timestamp in a frame's rows too."""

    import pandas as pd

    when = datetime.datetime(2026, 12, 6, 20, 0)
    ref = uuid.UUID("12345678-1234-5678-1234-567812345678")
    tool = ToolInfo(
        server="s",
        name="book",
        input_schema={
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time"},
                "ref": {"type": "string"},
                "rows": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"t": {"type": "string"}}},
                },
            },
        },
    )
    frame = pd.DataFrame({"t": [pd.Timestamp(when)]})
    assert check_arguments(tool, {"when": when, "ref": ref, "rows": frame}) == {
        "when": "2026-12-06T20:00:00",
        "ref": "12345678-1234-5678-1234-567812345678",
        "rows": [{"t": "2026-12-06T20:00:00"}],
    }
    with pytest.raises(ArgumentsError, match=r"argument 'limit': \"2024-01-01\" is not of type \"integer\""):
        check_arguments(TOOL, {"query": "x", "limit": datetime.date(2024, 1, 1)})  # as it would be sent


def test_a_servers_pattern_is_never_run_by_pythons_re():
    """Values the compiled check could not read (a datetime) went to ``jsonschema``, which runs a
    server's ``pattern`` with ``re``: ``^(a+)+$`` over 40 a's and a ``!`` would hold the kernel for
    hours. Now nothing but the compiled check (a linear-time engine) judges arguments."""
    code = """if True:
        import datetime, sys
        from mcpnb.client.arguments import check_arguments
        from mcpnb.client.errors import ArgumentsError
        from mcpnb.client.toolinfo import ToolInfo
        props = {"text": {"type": "string", "pattern": "^(a+)+$"}, "when": {"type": "string"}}
        tool = ToolInfo(server="s", name="t", input_schema={"type": "object", "properties": props})
        try:
            check_arguments(tool, {"text": "a" * 40 + "!", "when": datetime.datetime(2026, 1, 1)})
        except ArgumentsError as exc:
            print(str(exc).splitlines()[0])
        print("jsonschema" in sys.modules)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines() == [
        f's.t: argument \'text\': "{"a" * 40}!" does not match "^(a+)+$"',
        "False",
    ], out.stderr[-2000:]


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
    from mcpnb.client.results import ToolResult

    tool = ToolInfo(server="s", name="note", input_schema={"type": "object", "properties": {"text": {}}})
    with pytest.raises(ArgumentsError, match=r"argument 'text' is a ToolResult, which JSON cannot carry"):
        check_arguments(tool, {"text": ToolResult("s", "t", [])})
    with pytest.raises(ArgumentsError, match=r"argument 'text' is a lock, which JSON cannot carry"):
        check_arguments(tool, {"text": __import__("threading").Lock()})
    when = datetime.date(2026, 12, 5)
    assert check_arguments(tool, {"text": when}) == {"text": "2026-12-05"}  # as the SDK writes it
    deep = {"text": [1, {"lock": __import__("threading").Lock()}]}
    with pytest.raises(ArgumentsError, match=r"argument 'text' holds a lock at \[1\]\.lock, which JSON"):
        check_arguments(tool, deep)  # the compiled check passed it (any value goes): the SDK failed
    with pytest.raises(ArgumentsError, match=r"argument 'text' holds a bytes at \[0\], which JSON"):
        unchecked_arguments(tool, {"text": [b"\xff"]})  # no UTF-8: a UnicodeDecodeError escaped


def test_an_unknown_argument_is_not_offered_a_name_already_given():
    """``text=hi extra=1`` was asked "did you mean 'text'?"."""
    tool = ToolInfo(server="s", name="echo", input_schema={"type": "object", "properties": {"text": {}}})
    with pytest.raises(ArgumentsError) as said:
        check_arguments(tool, {"text": "hi", "tex": 1})
    assert "unknown argument 'tex'" in str(said.value) and "did you mean" not in str(said.value)
    with pytest.raises(ArgumentsError, match="did you mean 'text'"):
        check_arguments(tool, {"tex": 1})


class Slot(BaseModel):
    at: datetime.datetime
    room: str


def test_a_frame_of_dates_from_one_call_is_sent_to_the_next(pool):
    """A person passes a result's table on: its datetime column (pandas Timestamps) was refused
    as "not of type 'string'" before anything was sent; the server now reads each as it was."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("rooms", log_level="WARNING")
    start = datetime.datetime(2026, 12, 7, 9, 30, tzinfo=datetime.UTC)

    @server.tool()
    def slots() -> list[Slot]:
        """The free slots."""
        return [Slot(at=start, room="A"), Slot(at=start + datetime.timedelta(hours=1), room="B")]

    @server.tool()
    def book(rows: list[Slot], ref: uuid.UUID) -> str:
        """Book these slots."""
        return " ".join(f"{r.room}@{r.at.isoformat()}" for r in rows) + f" ref={ref}"

    pool.connect("rooms", server=server)
    frame = pool.call("rooms", "slots").df
    ref = uuid.UUID("12345678-1234-5678-1234-567812345678")
    booked = pool.call("rooms", "book", {"rows": frame, "ref": ref})
    assert booked.text == (
        "A@2026-12-07T09:30:00+00:00 B@2026-12-07T10:30:00+00:00 ref=12345678-1234-5678-1234-567812345678"
    )


def test_an_objects_keys_go_as_the_text_json_writes_and_two_that_become_one_are_refused(pool):
    """A ``groupby`` count (``{2024: 3}``, numpy or date keys) passed on to a tool: its keys were
    sent unchecked (the check read numbers where the server reads text, and ``{1: .., "1": ..}``
    went out with the key twice, the server keeping one); a tuple's key went out as "1,2"."""
    import numpy as np
    import pandas as pd
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("tally", log_level="WARNING")

    @server.tool()
    def tally(counts: dict[str, int]) -> str:
        """Sum the counts, saying each key."""
        return " ".join(f"{k}={v}" for k, v in sorted(counts.items())) + f" total={sum(counts.values())}"

    pool.connect("tally", server=server)
    years = pd.DataFrame({"year": [2024, 2024, 2025]}).groupby("year").size().to_dict()
    assert pool.call("tally", "tally", {"counts": years}).text == "2024=2 2025=1 total=3"
    mixed = {np.int64(7): 1, datetime.date(2026, 12, 5): 2, True: 3, 1.5: 4}
    assert pool.call("tally", "tally", {"counts": mixed}).text == "1.5=4 2026-12-05=2 7=1 true=3 total=10"
    with pytest.raises(ArgumentsError) as twice:
        pool.call("tally", "tally", {"counts": {1: 5, "1": 6}})
    assert "argument 'counts' has keys 1 and '1', both written '1' in JSON" in str(twice.value)
    assert "nothing was sent" in str(twice.value)
    with pytest.raises(
        ArgumentsError, match=r"has a key \(1, 2\) \(a tuple\), which JSON cannot write as a key"
    ):
        pool.call("tally", "tally", {"counts": {(1, 2): 5}}, validate=False)  # the server's check, even
    tool = ToolInfo(server="s", name="note", input_schema={"type": "object", "properties": {"rows": {}}})
    with pytest.raises(ArgumentsError, match=r"argument 'rows' has a key None .* \(at \[1\]\)"):
        check_arguments(tool, {"rows": [{}, {None: 1}]})
    with pytest.raises(ArgumentsError, match=r"the arguments have keys 1 and '1', both written '1'"):
        check_arguments(tool, {1: "a", "1": "b"})


def test_an_optional_parameter_of_a_python_server_says_what_it_takes(pool):
    """``int | None`` is ``anyOf: [integer, null]`` in every Python server's schema: a wrong value
    was "not valid under any of the schemas listed in the 'anyOf' keyword". Now the types are said
    (and a list's brackets hinted), or, where one branch took the value's type, its own complaint."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("shop", log_level="WARNING")

    @server.tool()
    def search(
        limit: int | None = None,
        tags: list[str] | None = None,
        page: Annotated[int, Field(ge=1)] | Annotated[str, Field(pattern="^next$")] = 1,
    ) -> str:
        """Search the shop."""
        return "ok"

    pool.connect("shop", server=server)
    tool = pool.find_tool("shop", "search")
    said = []
    for words in (["limit=x"], ["tags=new,sale"], ["tags=[1]"], ["page=0"]):
        with pytest.raises(ArgumentsError) as caught:
            check_arguments(tool, parse_pairs(words, []))
        said.append(str(caught.value).splitlines()[0])
    assert said == [
        'shop.search: argument \'limit\': "x" is not of type "integer" or "null"',
        'shop.search: argument \'tags\': "new,sale" is not of type "array" or "null"; '
        "a list is written in brackets: tags=[new,sale]",
        "shop.search: argument 'tags'[0]: 1 is not of type \"string\"",
        "shop.search: argument 'page': 0 is less than the minimum of 1",
    ]
    assert pool.call("shop", "search", {"limit": 3, "tags": ["new"]}).text == "ok"


def test_the_reviews_values_a_frame_from_a_database_holds():
    """A NUMERIC column's Decimal was sent as its text ("1.5" is not of type "number"); a missing
    date (NaT) escaped as a TypeError from inside mcpnb; a bad value 20 lists deep took 24 s to
    place (each level walked its child again) and a generator's raised an AssertionError."""
    import decimal
    import threading

    import pandas as pd

    tool = ToolInfo(
        server="s",
        name="t",
        input_schema={"type": "object", "properties": {"x": {"type": "number"}, "rows": {"type": "array"}}},
    )
    frame = pd.DataFrame({"t": [pd.Timestamp("2026-01-01"), pd.NaT]})
    assert check_arguments(tool, {"x": decimal.Decimal("1.5"), "rows": frame}) == {
        "x": 1.5,
        "rows": [{"t": "2026-01-01T00:00:00"}, {"t": None}],
    }
    assert check_arguments(tool, {"x": decimal.Decimal("3")})["x"] == 3
    deep: Any = threading.Lock()
    for _ in range(40):
        deep = [deep]
    with pytest.raises(ArgumentsError, match=r"argument 'rows' holds a lock at \[0\]\[0\]"):
        check_arguments(tool, {"rows": deep})
    with pytest.raises(ArgumentsError, match=r"argument 'rows' is a generator, which JSON cannot carry"):
        check_arguments(tool, {"rows": (v for v in [threading.Lock()])})


def test_a_secret_on_a_branch_of_an_optional_parameter_is_hidden():
    """pydantic's ``SecretStr | None`` puts ``format: password`` on a branch of its anyOf: the
    value was quoted in the error."""
    secret = "hunter2xx"
    spec = {
        "anyOf": [
            {"type": "string", "format": "password", "writeOnly": True, "minLength": 10},
            {"type": "null"},
        ]
    }
    tool = ToolInfo(server="s", name="t", input_schema={"type": "object", "properties": {"p": spec}})
    with pytest.raises(ArgumentsError) as error:
        check_arguments(tool, {"p": secret})
    assert secret not in str(error.value) and "is shorter than 10 characters" in str(error.value)
