"""The field model and validation, on the schemas real peers send and on shapes nobody planned for."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, create_model

from mcpnb.client.elicitation import answers
from mcpnb.client.elicitation.fields import MISSING, looks_secret
from mcpnb.notebook.forms import ElicitationForm, fields_from_schema, validate
from tests.client.elicitation.schemas import EVERYTHING, SEP1034, SEP1330


def by_name(schema):
    return {f.name: f for f in fields_from_schema(schema)}


def test_import_is_light():
    """A terminal or headless run must not pay for widgets, pandas or jsonschema."""
    code = (
        "import sys, mcpnb.notebook.forms\n"
        "print(sorted(m for m in ('ipywidgets', 'pandas', 'jsonschema', 'mcp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_everything_13_fields():
    fields = by_name(EVERYTHING)
    assert list(fields) == list(EVERYTHING["properties"])
    kinds = {n: f.kind for n, f in fields.items()}
    assert kinds == {
        "name": "string",
        "check": "boolean",
        "firstLine": "string",
        "email": "string",
        "homepage": "string",
        "birthdate": "string",
        "integer": "integer",
        "number": "number",
        "untitledSingleSelectEnum": "choice",
        "untitledMultipleSelectEnum": "multichoice",
        "titledSingleSelectEnum": "choice",
        "titledMultipleSelectEnum": "multichoice",
        "legacyTitledEnum": "choice",
    }
    assert fields["name"].required and not fields["check"].required
    assert fields["email"].format == "email" and fields["homepage"].format == "uri"
    assert fields["birthdate"].format == "date"
    assert (fields["integer"].minimum, fields["integer"].maximum, fields["integer"].default) == (1, 100, 42)
    assert fields["number"].bounded and fields["number"].default == 3.14
    assert [c.label for c in fields["titledSingleSelectEnum"].choices] == [
        "Superman",
        "Green Lantern",
        "Wonder Woman",
    ]
    assert [c.value for c in fields["titledSingleSelectEnum"].choices] == ["hero-1", "hero-2", "hero-3"]
    assert [c.label for c in fields["legacyTitledEnum"].choices][:2] == ["Cats", "Dogs"]
    multi = fields["untitledMultipleSelectEnum"]
    assert (multi.min_items, multi.max_items, multi.default) == (1, 3, ["Guitar"])
    assert [c.label for c in fields["titledMultipleSelectEnum"].choices] == ["Tuna", "Salmon", "Trout"]
    # the description of "integer" mentions a pin, but only names and titles count
    assert not any(f.secret_like for f in fields.values())


def test_sep1034_defaults_and_sep1330_enums():
    d = by_name(SEP1034)
    assert {n: f.default for n, f in d.items()} == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
    }
    assert d["status"].kind == "choice" and d["age"].kind == "integer" and d["score"].kind == "number"
    e = by_name(SEP1330)
    assert {n: f.kind for n, f in e.items()} == {
        "untitledSingle": "choice",
        "titledSingle": "choice",
        "legacyEnum": "choice",
        "untitledMulti": "multichoice",
        "titledMulti": "multichoice",
    }
    assert [c.label for c in e["legacyEnum"].choices] == ["Option One", "Option Two", "Option Three"]
    assert [c.label for c in e["titledMulti"].choices] == ["First Choice", "Second Choice"]
    assert all(f.default is MISSING for f in e.values())


def test_nullable_and_pydantic_optional():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["integer", "null"]},
            "b": {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}], "default": None},
            "c": {"type": ["string", "integer"]},
        },
    }
    f = by_name(schema)
    assert f["a"].kind == "integer" and f["a"].nullable
    assert f["b"].kind == "string" and f["b"].nullable and f["b"].format == "email" and f["b"].default is None
    assert f["c"].kind == "json"


def test_unsupported_shapes_become_json():
    schema = {
        "type": "object",
        "$defs": {"Level": {"type": "string", "enum": ["lo", "hi"]}},
        "properties": {
            "nested": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "rows": {"type": "array", "items": {"type": "object"}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "missing": {"$ref": "#/$defs/Nope"},
            "remote": {"$ref": "https://example.com/s.json"},
            "level": {"$ref": "#/$defs/Level"},
            "anything": True,
            "untyped": {"description": "no type at all"},
        },
    }
    f = by_name(schema)
    for name in ("nested", "rows", "tags", "missing", "remote", "anything", "untyped"):
        assert f[name].kind == "json", name
        assert f[name].json_reason
    assert f["level"].kind == "choice"  # a local $ref that resolves is used, not hidden
    assert "unresolved" in f["missing"].json_reason


@pytest.mark.parametrize(
    ("name", "title", "secret"),
    [
        ("password", None, True),
        ("apiKey", None, True),
        ("api_key", None, True),
        ("x", "Access Token", True),
        ("GITHUB_TOKEN", None, True),
        ("clientSecret", None, True),
        ("keyboard", None, False),
        ("monkey", None, False),
        ("name", "Your name", False),
        ("one_time_code", None, True),  # neither word alone says so
        ("code", "Security code", True),
        ("timeCode", None, False),
    ],
)
def test_secret_like(name, title, secret):
    assert looks_secret(name, title) is secret


def test_validate_messages():
    schema = {
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "day": {"type": "string", "format": "date"},
            "when": {"type": "string", "format": "date-time"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "n": {"type": "integer", "minimum": 1, "maximum": 10},
            "short": {"type": "string", "maxLength": 3},
            "pick": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 2},
        },
        "required": ["email"],
    }
    good = {
        "email": "ada@example.com",
        "site": "https://example.com/x",
        "day": "2024-02-29",
        "when": "2024-02-29T10:00:00Z",
        "code": "ABC",
        "n": 5,
        "short": "abc",
        "pick": ["a"],
    }
    assert validate(schema, good) == {}
    bad = {
        "email": "not-an-email",
        "site": "example dot com",
        "day": "2023-02-29",
        "when": "yesterday",
        "code": "abc",
        "n": 11,
        "short": "abcd",
        "pick": ["a", "b", "c"],
    }
    errors = validate(schema, bad)
    assert set(errors) == set(bad)
    assert "email" in errors["email"]
    assert "URL" in errors["site"]
    assert "date" in errors["day"]
    assert "pattern" in errors["code"]
    assert errors["n"] == "must be at most 10"
    assert errors["pick"] == "choose at most 2"
    assert validate(schema, {}) == {"email": "required"}


def test_a_choice_that_is_not_offered_names_the_choices():
    """Titled choices (SEP-1330) are oneOf/anyOf lists of consts: say which values exist, as enum does."""
    titled = {"oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}
    schema = {
        "type": "object",
        "properties": {
            "level": {"type": "string", **titled},
            "pick": {"type": "string", "enum": ["x", "y"]},
            "multi": {"type": "array", "items": {"anyOf": titled["oneOf"]}},
            "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
        },
    }
    assert validate(schema, {"level": "c", "pick": "z", "multi": ["a", "d"], "either": "s"}) == {
        "level": '"c" is not one of "a" or "b"',
        "pick": '"z" is not one of "x" or "y"',
        "multi": 'at [1]: "d" is not one of "a" or "b"',
        "either": "not one of the allowed values",
    }


def test_a_value_json_cannot_carry_is_named_not_lost():
    """Answers given in code may hold Python objects; the person reads which field and why."""
    import datetime

    schema = {"type": "object", "properties": {"day": {"type": "string"}, "n": {"type": "integer"}}}
    content = {"day": datetime.date(2024, 2, 29), "n": "3"}
    assert validate(schema, content) == {"day": "expected string, not a date", "n": "expected integer"}
    assert validate(schema, {"n": float("inf")}) == {"n": "expected integer, not a float"}


def test_validate_never_raises_on_broken_schemas():
    assert validate({"type": "object", "properties": {"a": {"type": "wat"}}}, {"a": 1}) == {}
    assert validate({"type": "object", "required": ["a"], "properties": {"a": {"pattern": "("}}}, {}) == {
        "a": "required"
    }
    assert validate("nonsense", {"a": 1}) == {}


# --- hypothesis: any schema-looking thing must give fields and a form without crashing ---------

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=5)
)
_prop = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(
                ["string", "integer", "number", "boolean", "array", "object", "null", ["string", "null"], "x"]
            ),
            "enum": st.lists(_scalars, max_size=4),
            "default": _scalars,
            "minimum": st.one_of(st.integers(-10, 10), st.floats(allow_nan=False)),
            "maximum": st.one_of(st.integers(-10, 10), st.floats(allow_nan=False)),
            "format": st.sampled_from(["email", "uri", "date", "date-time", "weird"]),
            "title": st.text(max_size=10),
            "$ref": st.sampled_from(["#/$defs/A", "#/nope", "x"]),
            "minItems": st.integers(-1, 3),
            "enumNames": st.lists(st.text(max_size=3), max_size=4),
        },
    ),
    lambda children: st.one_of(
        st.fixed_dictionaries({"type": st.just("array"), "items": children}),
        st.fixed_dictionaries({"oneOf": st.lists(children, max_size=3)}),
        st.fixed_dictionaries({"anyOf": st.lists(children, max_size=3)}),
        st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(st.text(max_size=4), children, max_size=3),
            }
        ),
    ),
    max_leaves=6,
)
_schema = st.fixed_dictionaries(
    {
        "type": st.just("object"),
        "properties": st.dictionaries(st.text(min_size=1, max_size=6), _prop, max_size=5),
    },
    optional={
        "required": st.lists(st.text(max_size=6), max_size=3),
        "$defs": st.fixed_dictionaries({"A": _prop}),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schema)
def test_hypothesis_schemas_never_crash(schema):
    fields = fields_from_schema(schema)
    assert [f.name for f in fields] == list(schema["properties"])
    form = ElicitationForm(schema, message="m", server="s", on_done=lambda o: None)
    content = form.collect()
    assert isinstance(validate(schema, content), dict)
    form.submit("accept")
    form.submit("decline")
    assert form.answered


# --- our verdict (jsonschema-rs, our formats) against the reference implementation's ------------

_answers = st.one_of(_scalars, st.lists(_scalars, max_size=3))


def _reference_verdict(schema, content):
    """``jsonschema``'s verdict with our format rules; None for a schema it cannot use."""
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    for name, check in answers._FORMATS.items():
        checker.checks(name)(check)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        return not any(cls(schema, format_checker=checker).iter_errors(content))
    except Exception:
        return None


def _compiles(schema):
    try:
        answers.compiled(answers.schema_key(schema), checkers=answers._CHECKERS)
    except Exception:
        return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schema, st.data())
def test_what_passes_here_passes_the_reference_implementation(schema, data):
    names = st.sampled_from(list(schema["properties"])) if schema["properties"] else st.text(max_size=4)
    content = data.draw(st.dictionaries(names, _answers, max_size=5))
    if _compiles(schema) and validate(schema, content) == {}:
        assert _reference_verdict(schema, content) in (True, None)


_flat_field = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("string")},
        optional={
            "format": st.sampled_from(["email", "uri", "date", "date-time", "color"]),
            "maxLength": st.integers(0, 5),
            "pattern": st.sampled_from(
                ["^a", "[0-9]", "^[a-z]+@"]
            ),  # no '$': Python's matches before a newline
        },
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["integer", "number"])},
        optional={"minimum": st.integers(-3, 3), "maximum": st.integers(-3, 3)},
    ),
    st.fixed_dictionaries({"type": st.just("boolean")}),
    st.fixed_dictionaries(
        {
            "type": st.just("string"),
            "enum": st.lists(st.text(max_size=3), min_size=1, max_size=3, unique=True),
        }
    ),
)
_typed = st.one_of(
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5),
    st.text(max_size=6),
    st.sampled_from(["ada@example.com", "https://example.com/x", "2024-02-29", "2024-02-29T10:00:00Z", "12"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.text(min_size=1, max_size=5), _flat_field, min_size=1, max_size=4), st.data())
def test_a_flat_form_gets_the_reference_implementations_verdict(fields, data):
    """Forms are flat: on them our verdict and ``jsonschema``'s (with our format rules) agree."""
    names = st.sampled_from(list(fields))
    schema = {"type": "object", "properties": fields, "required": data.draw(st.lists(names, unique=True))}
    content = data.draw(st.dictionaries(names, _typed))
    assert (validate(schema, content) == {}) == _reference_verdict(schema, content)


def test_answers_given_in_code_never_import_jsonschema():
    """Its first import can take seconds (rfc3987-syntax compiles a grammar) and would stall the
    runtime loop, every connection with it: answers, valid or not, are checked and worded without it."""
    code = """if True:
        import sys, mcpnb
        pool = mcpnb.Pool()
        pool.connect("probe", server=__import__("mcpnb.probekit", fromlist=["x"]).create_server())
        r = pool.call("probe", "ask_user", {"question": "Name?"}, answers={"answer": "Ada"})
        print(r.data["action"], "jsonschema" in sys.modules)
        choose = {"question": "Age?", "choices": ["1", "2"]}
        r = pool.call("probe", "ask_user", choose, answers={"answer": "3"})
        print(r.data["action"], "jsonschema" in sys.modules)
        pool.close()
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["accept", "False", "decline", "False"], out.stderr[-2000:]


class Style(BaseModel):
    bold: bool | None = None
    font_size: float | None = None


class Link(BaseModel):
    cell: str
    target: str
    tooltip: str | None = None


Wide = create_model("Wide", **{f"a{i}": (int, 0) for i in range(11)})


def test_a_json_field_says_which_keys_it_takes_as_the_sdk_writes_a_pydantic_model():
    """The editor for a nested object or a list is a blank box: its hint names the keys (excel-mcp-
    server's ``format_range`` takes a ``style`` object of 16 optional keys; the SDK writes a
    pydantic model as a ``$ref`` into ``$defs``, a list of models likewise)."""
    server = MCPServer("sheets", log_level="WARNING")

    @server.tool()
    def format_range(
        style: Style,
        links: list[Link],
        rows: list[list[str | int]],
        wide: Wide,
        sheets: list[str] | None = None,
    ) -> str:
        return "ok"

    async def schema() -> dict:
        async with Client(server) as client:
            return (await client.list_tools()).tools[0].input_schema

    f = by_name(anyio.run(schema))
    assert f["style"].kind == "json" and f["style"].json_reason == "a nested object with keys bold, font_size"
    assert f["links"].json_reason == "a list of objects with keys cell*, target*, tooltip (* required)"
    assert f["rows"].json_reason == "a list of lists of values"
    assert f["sheets"].json_reason == "a list of texts" and f["sheets"].nullable
    said = f["wide"].json_reason
    assert said.startswith("a nested object with keys a0, a1,") and said.endswith("a9, … (11 keys)")


@pytest.mark.parametrize(
    ("name", "prop", "lines"),
    [
        ("source", {"type": ["string", "null"]}, True),  # probe-kit's code_review
        ("sql", {"type": "string"}, True),  # Datasette's execute_sql
        ("cell_source", {"type": "string"}, True),  # Jupyter MCP Server's insert_cell
        ("error", {"type": "string", "description": "a traceback to follow"}, True),
        ("note", {"type": "string", "default": "a\nb"}, True),
        ("releaseNotes", {"type": "string"}, True),  # prose: paragraphs
        ("query", {"type": "string"}, False),  # a search: one line
        ("sourceUrl", {"type": "string", "format": "uri"}, False),  # a URL is one line, whatever its name
        ("code", {"type": "string", "maxLength": 6}, False),  # a short code, as a country's
        ("api_code", {"type": "string", "format": "password"}, False),  # a secret stays hidden
        ("body", {"type": "integer"}, False),
        ("q", {"type": "string", "contentMediaType": "application/sql"}, True),  # the schema's own word
        ("q", {"type": "string", "contentMediaType": "text/plain"}, False),
        ("png", {"type": "string", "contentMediaType": "image/png", "contentEncoding": "base64"}, False),
    ],
)
def test_a_text_with_lines_is_known_by_its_name_description_or_default(name, prop, lines):
    (field,) = fields_from_schema({"type": "object", "properties": {name: prop}})
    assert field.takes_lines is lines
