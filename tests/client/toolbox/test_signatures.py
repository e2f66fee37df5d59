"""Every tool of probe-kit and server-everything (and the shapes server) as a Python function: a real
signature from its inputSchema, annotations from the JSON types, a docstring with an Args section."""

from __future__ import annotations

import asyncio
import inspect
import pydoc
import typing
from typing import Any, Literal

import pytest

from mcpnb.client.errors import ArgumentsError
from mcpnb.client.results import ToolResult

SIMPLE = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}


def _functions(toolbox, *servers):
    return [f for f in toolbox.values() if f.server in servers]


def _props(f):
    schema = f.tool.input_schema
    return schema.get("properties") or {}, set(schema.get("required") or [])


@pytest.mark.parametrize("server", ["probe", "everything", "shapes"])
def test_every_tool_has_a_real_signature_from_its_schema(toolbox, server):
    functions = _functions(toolbox, server)
    assert functions
    for f in functions:
        props, required = _props(f)
        sig = inspect.signature(f)
        assert sig.return_annotation is ToolResult
        assert f.__name__.isidentifier()
        by_key = {p.key: p for p in f.params}
        assert sorted(by_key) == sorted([*props, *(k for k in required if k not in props)])
        kinds = [param.kind for param in sig.parameters.values()]
        assert kinds == sorted(kinds)  # positional-or-keyword before keyword-only
        seen_default = False
        for key, spec in props.items():
            param = sig.parameters[by_key[key].name]
            if key in required:
                assert param.default is inspect.Parameter.empty, (f.__name__, key)
                if param.kind is param.POSITIONAL_OR_KEYWORD:
                    assert not seen_default, f"{f.__name__}: required {key} after an optional one"
            else:
                assert param.default == spec.get("default"), (f.__name__, key)  # the schema's, else None
                seen_default = seen_default or param.kind is param.POSITIONAL_OR_KEYWORD
            kind = spec.get("type")
            annotation = _bare(param.annotation, key not in required and spec.get("default") is None)
            if isinstance(kind, str) and kind in SIMPLE and "enum" not in spec:
                assert annotation is SIMPLE[kind], (f.__name__, key, param.annotation)
            if kind == "array":
                assert annotation is list or annotation.__origin__ is list
            if "enum" in spec and all(isinstance(v, str) for v in spec["enum"]):
                assert annotation == Literal[tuple(spec["enum"])]


def _bare(annotation, defaults_to_none):
    """The annotation without the ``| None`` a parameter whose default is None carries (PEP 484
    allows no implicit Optional: ``x: str = None`` is an error to type checkers)."""
    if not defaults_to_none or annotation is Any:
        return annotation
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is Literal:
        assert None in args, annotation
        return annotation
    assert type(None) in args, f"{annotation} defaults to None but does not say it takes None"
    rest = [a for a in args if a is not type(None)]
    return rest[0] if len(rest) == 1 else annotation


@pytest.mark.parametrize("server", ["probe", "everything"])
def test_every_tool_has_a_docstring_with_its_description_args_and_returns(toolbox, server):
    for f in _functions(toolbox, server):
        doc = f.__doc__
        description = (f.tool.description or f.tool.title or "").strip()
        assert doc.startswith(description or "(the server gives no description)")
        props, _ = _props(f)
        if props:
            args = doc.split("\nArgs:\n", 1)[1].split("\nReturns:\n", 1)[0]
            for param in f.params:
                line = next(x for x in args.splitlines() if x.startswith(f"    {param.name} ("))
                wanted = (props[param.key].get("description") or props[param.key].get("title") or "").strip()
                assert wanted in line, (f.__name__, param.key, line)
        assert "\nReturns:\n    ToolResult:" in doc
        assert inspect.signature(f.acall) == inspect.signature(f)
        assert inspect.iscoroutinefunction(f.acall)


def sig(toolbox, name):
    return str(inspect.signature(toolbox[name])).split(" -> ")[0]


def test_signatures_people_read(toolbox):
    assert (
        sig(toolbox, "mcp__probe__ui_search") == "(query: str, limit: int = 5, category: str | None = None)"
    )
    assert sig(toolbox, "mcp__probe__genui") == (
        "(component: str, framework: Literal['html', 'react', 'vue'] = 'html', props: dict | None = None)"
    )
    assert sig(toolbox, "mcp__probe__ask_user") == "(question: str, choices: list[str] | None = None)"
    assert sig(toolbox, "mcp__probe__slow_task") == (
        "(steps: int = 5, block: int = 1000, delay: float = 0.05, confirm: bool = False, "
        "fail_at: int | None = None)"
    )
    assert sig(toolbox, "mcp__everything__get-sum") == "(a: float, b: float)"
    assert sig(toolbox, "mcp__everything__get-annotated-message") == (
        "(messageType: Literal['error', 'success', 'debug'], includeImage: bool = False)"
    )
    assert sig(toolbox, "mcp__everything__trigger-url-elicitation").startswith("(url: str, message: str = ")
    assert toolbox["mcp__everything__get-sum"].__name__ == "get_sum"


def test_a_required_parameter_with_a_default_is_optional_in_python():
    """Playwright MCP's screenshot requires ``scale`` and says its default: the call fills it in, so
    the function need not be given it."""
    from mcpnb.client.toolbox.signatures import params, signature

    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "scale": {"enum": ["css", "device"], "default": "css"}},
        "required": ["scale", "path"],
    }
    found = params(schema)
    assert str(signature(found, None)) == "(path: str, scale: Literal['css', 'device'] = 'css') -> None"
    assert [p.required for p in found] == [True, False]


def test_nested_objects_refs_enums_nullable_and_names_python_cannot_spell(toolbox):
    book = toolbox["mcp__shapes__book_trip"]
    assert sig(toolbox, "mcp__shapes__book_trip") == (
        "(traveller: dict, origin: dict, stops: list[dict] | None = None, "
        "seat: Literal['window', 'aisle', None] = None, budget: float = 1000, notes: str | None = None, "
        "*, class_: Literal['economy', 'business'] = 'economy', max_stops: int | None = None, "
        "filter_id_: str | None = None)"
    )
    assert "class_ (Literal['economy', 'business'], keyword-only, optional): sent as 'class'." in book.__doc__
    assert "origin (dict): Where the trip starts" in book.__doc__  # the $ref's own description
    # server-everything's descriptions end without a full stop: the default is a sentence of its own
    slow = toolbox["mcp__everything__trigger-long-running-operation"].__doc__
    assert "duration (float, optional): Duration of the operation in seconds. Defaults to 10." in slow
    assert sig(toolbox, "mcp__shapes__combined") == "(a: int | None = None)"  # its allOf parts merged: a type
    assert sig(toolbox, "mcp__shapes__tree") == "(root: dict)"


def test_arguments_are_bound_like_python_and_checked_like_percent_mcp_call(toolbox):
    book = toolbox["mcp__shapes__book_trip"]
    sent = book.arguments({"name": "Ada"}, {"city": "Lyon"}, class_="business", filter_id_="abc", notes=None)
    assert sent == {
        "traveller": {"name": "Ada"},
        "origin": {"city": "Lyon"},
        "class": "business",
        "filter[id]": "abc",
        "notes": None,
    }  # fmt: skip  (notes takes null: kept)
    assert (
        book.arguments({"name": "A"}, {"city": "L"}, **{"class": "economy", "max-stops": 2})["max-stops"] == 2
    )
    assert "stops" not in book.arguments({"name": "A"}, {"city": "L"}, stops=None)  # None: not sent
    with pytest.raises(ArgumentsError, match=r"'class'.*is not one of"):
        book.arguments({"name": "A"}, {"city": "L"}, class_="first")
    with pytest.raises(ArgumentsError, match="missing required argument 'origin'"):
        book.arguments({"name": "A"})
    with pytest.raises(ArgumentsError, match="unknown argument 'budjet'; did you mean 'budget'"):
        book.arguments({"name": "A"}, {"city": "L"}, budjet=3)
    with pytest.raises(TypeError, match="takes 6 positional arguments but 7 were given"):
        book.arguments(1, 2, 3, 4, 5, 6, 7)
    one = r"^get_current_time\(\) takes 1 positional argument but 2 were given$"
    with pytest.raises(TypeError, match=one):
        toolbox["mcp__time__get_current_time"]("UTC", "extra")  # as Python says it
    with pytest.raises(TypeError, match="multiple values for argument 'traveller'"):
        book.arguments({"name": "A"}, traveller={"name": "B"})


def test_calling_sends_checked_arguments_and_returns_the_result(toolbox):
    result = toolbox["mcp__shapes__book_trip"]({"name": "Ada"}, {"city": "Lyon"}, class_="business")
    assert isinstance(result, ToolResult) and not result.is_error
    assert result.data["arguments"] == {
        "traveller": {"name": "Ada"},
        "origin": {"city": "Lyon"},
        "class": "business",
    }
    assert (
        toolbox.short.convert_time("Europe/Paris", "14:30", "Asia/Tokyo").data["time_difference"] == "+8.0h"
    )
    with pytest.raises(ArgumentsError, match="nothing was sent"):
        toolbox.short.get_sum(a="two", b=2)


def test_acall_awaits_the_same_call(toolbox):
    result = asyncio.run(toolbox.short["get-sum"].acall(a=2, b=40))  # from another loop, as a kernel's
    assert "42" in result.text


def test_help_and_short_names(toolbox: Any):
    text = pydoc.render_doc(toolbox.short.ui_search, renderer=pydoc.plaintext)
    assert "ui_search(query: str, limit: int = 5, category: str | None = None)" in text
    assert "Args:" in text and "Returns:" in text
    assert "ui_search" in dir(toolbox.short) and "get_sum" in dir(toolbox.short)
    assert toolbox.short["get-sum"] is toolbox["mcp__everything__get-sum"] is toolbox.short.get_sum
    with pytest.raises(AttributeError, match="did you mean 'ui_search'"):
        toolbox.short.ui_serch  # noqa: B018
    with pytest.raises(KeyError, match="did you mean 'mcp__probe__ui_search'"):
        toolbox["mcp__probe__ui_serch"]
    assert len(toolbox) == len(toolbox.tools) and "mcp__time__convert_time" in toolbox


def test_a_name_two_servers_share_is_not_short(pool):
    from mcpnb.probekit import create_server

    pool.connect("one", server=create_server())
    pool.connect("two", server=create_server())
    toolbox = pool.functions()
    assert "ui_search" not in toolbox.short and len(toolbox.short) == 0
    assert toolbox["mcp__one__ui_search"] is not toolbox["mcp__two__ui_search"]
    assert toolbox["mcp__two__estimate"](task="x").server == "two"


def test_a_tool_asked_of_the_toolbox_itself_says_where_it_is(toolbox):
    """``tools.convert_time`` is a natural first try; Python's bare AttributeError left the person
    guessing. Methods stay methods, and copy/pickle probing still gets a plain AttributeError."""
    with pytest.raises(
        AttributeError, match=r"the tool is \.short\.convert_time \(or \['mcp__time__convert_time'\]\)"
    ):
        _ = toolbox.convert_time
    with pytest.raises(AttributeError, match=r"did you mean \.short\.convert_time\?"):
        _ = toolbox.convert_tme
    with pytest.raises(AttributeError, match=r"tools are under \.short"):
        _ = toolbox.nothing_like_any_tool_here
    assert not hasattr(toolbox, "__deepcopy_hook__") and callable(toolbox.run)


def test_two_tools_one_python_name_get_no_attribute_and_a_keyword_gets_an_underscore(pool):
    """``get-sum`` and ``get_sum`` are both ``get_sum`` in Python: the attribute called whichever
    came last, unseen. A tool named ``class`` was listed by ``dir()`` but only ``getattr`` reached it."""
    from shapes_server import create_server

    plain = {"type": "object", "properties": {"a": {"type": "integer"}}}
    pool.connect("s", server=create_server({"get_sum": plain, "get-sum": plain, "class": plain}))
    short = pool.functions().short
    assert short["get-sum"]().data["tool"] == "get-sum" and short["get_sum"]().data["tool"] == "get_sum"
    with pytest.raises(
        AttributeError,
        match=r"tools 'get_sum' and 'get-sum' are both 'get_sum' in Python: "
        r"use short\['get_sum'\] or short\['get-sum'\]",
    ):
        _ = short.get_sum
    assert "get_sum" not in dir(short)
    assert "class_" in dir(short) and short.class_(a=1).data == {"tool": "class", "arguments": {"a": 1}}
    assert short["class"].__name__ == "class_"
