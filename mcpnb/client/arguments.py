"""Check call arguments against the tool's ``inputSchema`` before anything is sent.

A server's own error for a bad argument is often a stack trace or a generic "invalid params"; the
schema knows exactly which field is wrong, so we say it first and send nothing. A compiled check
(``jsonschema-rs``) passes good arguments in microseconds and words what is wrong with bad ones;
``jsonschema`` is imported only for a schema or values it cannot take, never when the extension loads.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from mcpnb.client.errors import ArgumentsError, did_you_mean_text
from mcpnb.client.schemacheck import schema_key
from mcpnb.client.schemacost import fans_out
from mcpnb.client.schemarefs import read_through
from mcpnb.client.whole_numbers import whole_numbers

_MAX_ERRORS = 3
#: How many of an ``enum``'s values an error lists.
_ENUM_SHOWN = 20


def signature(tool: Any) -> str:
    """``add(a*: integer, b*: integer)``: what a person needs to fix a call, in one line (worked
    out once per tool list: every call's argument check has it at hand for its error)."""
    return tool.signature


def signature_of(name: str, schema: dict[str, Any], parameters: Iterable[str], needed: Iterable[str]) -> str:
    """:func:`signature` of any schema (a model's renamed one, say): parameters in their order,
    ``*`` for the required ones, each with its JSON types (``$ref``s followed)."""
    props = schema.get("properties") or {}
    required = set(needed)
    parts = []
    for key in parameters:
        spec = props.get(key) if isinstance(props.get(key), dict) else {}
        kind = type_names(spec, schema)
        parts.append(key + ("*" if key in required else "") + (f": {'|'.join(kind)}" if kind else ""))
    return f"{name}({', '.join(parts)})"


def type_names(spec: dict[str, Any], root: dict[str, Any] | None = None) -> list[str]:
    """The JSON types ``spec`` names, through ``type`` lists and ``anyOf``/``oneOf`` options (and,
    given the ``root`` schema, ``$ref``s: pydantic's ``Opts | None`` is ``object|null``; each read
    once, one that loops back into itself adding nothing: :func:`~mcpnb.client.schemarefs.read_through`)."""
    done: dict[str, list[str]] = {}

    def read(spec: dict[str, Any], inside: frozenset[str]) -> list[str]:
        kind = spec.get("type")
        if isinstance(kind, str):
            return [kind]
        if isinstance(kind, list):
            return [str(k) for k in kind]
        found: list[str] = []
        for key in ("anyOf", "oneOf"):
            for option in spec.get(key) or []:
                if isinstance(option, dict):
                    found += [k for k in names(option, inside) if k not in found]
        return found

    def names(spec: dict[str, Any], inside: frozenset[str]) -> list[str]:
        if root is None:
            return read(spec, inside)
        return read_through(spec, root, read, lambda _ref: [], inside, done)

    return names(spec, frozenset())


def _coerce(args: Mapping[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    """Typed ``007`` or ``true`` for a field that only takes text becomes the text that was typed."""
    out = dict(args)
    for key, raw in getattr(args, "raw", {}).items():
        spec = props.get(key)
        if not isinstance(spec, dict):
            continue
        kinds = type_names(spec)
        value = out[key]
        if "string" in kinds and not _matches_any(value, kinds):
            out[key] = raw
    return out


def _matches_any(value: Any, kinds: list[str]) -> bool:
    checks = {
        "null": value is None,
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
        "string": isinstance(value, str),
    }
    return any(checks.get(k, False) for k in kinds)


_JSON_LEAVES = frozenset({str, int, float, bool, type(None)})


def native(value: Any) -> Any:
    """``value`` with a notebook's data types turned into JSON's own: numpy scalars and arrays,
    pandas Series (lists) and DataFrames (records), tuples (lists). The very same object when there
    is nothing to turn, so plain arguments cost one walk and no copy."""
    kind = type(value)
    if kind in _JSON_LEAVES:
        return value
    if kind is dict:
        turned = {k: native(v) for k, v in value.items()}
        return value if all(turned[k] is v for k, v in value.items()) else turned
    if kind is list or kind is tuple:
        items = [native(v) for v in value]
        return value if kind is list and all(a is b for a, b in zip(items, value, strict=True)) else items
    if hasattr(value, "columns") and hasattr(value, "to_dict"):  # a DataFrame: its rows
        return native(value.to_dict("records"))
    if hasattr(value, "dtype") and hasattr(value, "tolist"):  # numpy scalars and arrays, a Series
        return native(value.tolist())
    return value


@dataclass(frozen=True)
class Terms:
    """The names an argument error is written in: the caller's. A person's are the server's
    (``fm.add``, ``add(a*: integer)``); a model's are what its tool spec said (``mcp__fm__add``,
    a key its API renamed, ``city_name_644e2785`` for ``city name``), so that what it reads is
    what it may send."""

    where: str  # the tool, as the caller calls it
    signature: str  # the one line that shows every parameter
    keys: Mapping[str, str] = field(default_factory=dict)  # server key -> the caller's (renamed ones only)

    def key(self, key: str) -> str:
        return self.keys.get(key, key)


def server_terms(tool: Any) -> Terms:
    """The server's own names: ``server.tool`` and :func:`signature`."""
    return Terms(f"{tool.server}.{tool.name}", signature(tool))


def check_arguments(tool: Any, args: Mapping[str, Any], terms: Terms | None = None) -> dict[str, Any]:
    """The arguments to send (typed text coerced where the schema wants text), or an :class:`ArgumentsError`
    that names the field, the problem and the tool's signature, in ``terms`` (the server's names
    when not given). ``args`` and the values returned are under the server's keys."""
    terms = terms or server_terms(tool)
    _mapping(terms, args)
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    # numpy, pandas: turned first, always (the compiled check takes an np.int64 inside a free-form
    # object, which the SDK would then fail to send)
    values = native(_coerce(args, props) if getattr(args, "raw", None) else dict(args))
    values = whole_numbers(values, schema)  # 30.0 as 30 where the schema wants an integer
    for name, default in tool.required_defaults.items():  # Playwright MCP's screenshot "scale"
        if name not in values:
            values[name] = copy.deepcopy(default)  # a copy: the next call gets the schema's own
    if props and not schema.get("additionalProperties"):
        # a key ``required`` names but ``properties`` does not (a server's slip) is known all the same
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        for key in values:
            if key not in props and key not in required:
                # not one given already ("text=hi extra=1")
                free = [terms.key(p) for p in props if p not in values]
                raise ArgumentsError(
                    f"{terms.where}: unknown argument {key!r}{_line(args, key)}"
                    f"{did_you_mean_text(key, free)}\n  {terms.signature}\n  (nothing was sent)"
                )
    for key, value in values.items():
        if type(value) not in _JSON_LEAVES and not isinstance(value, dict | list):
            _sendable(terms, args, key, value)
    if fans_out(schema):  # its check would walk each of too many paths (2**40): the server judges
        return values
    if _passes(tool, values):
        return values
    problems = _problems(tool, values, schema)
    if problems:
        lines = [
            f"{terms.where}: {_describe(_unquoted(e, values, props), args, terms)}"
            f"{_how_to_write(e, args, values, props)}"
            for e in problems[:_MAX_ERRORS]
        ]
        if len(problems) > _MAX_ERRORS:
            lines.append(f"… and {len(problems) - _MAX_ERRORS} more")
        raise ArgumentsError("\n".join([*lines, f"  {terms.signature}", "  (nothing was sent)"]))
    return values


def _sendable(terms: Terms, args: Any, key: str, value: Any) -> None:
    """An :class:`ArgumentsError` for a value no JSON can carry (``text={{r}}``, a whole result:
    pydantic would send its every field); what the SDK writes as JSON (a datetime, a UUID) goes."""
    from pydantic_core import PydanticSerializationError, to_jsonable_python

    if not type(value).__module__.startswith("mcpnb."):  # a result, a resource: its data is meant
        try:
            to_jsonable_python(value)
            return
        except PydanticSerializationError:
            pass
    kind = type(value).__name__
    hint = " (a result's data is r.data, its text r.text)" if kind == "ToolResult" else ""
    raise ArgumentsError(
        f"{terms.where}: argument {terms.key(key)!r}{_line(args, key)} is a {kind}, which JSON "
        f"cannot carry{hint}\n  {terms.signature}\n  (nothing was sent)"
    )


def _passes(tool: Any, values: dict[str, Any]) -> bool:
    """The fast verdict: the tool's compiled check, once per tool list (False: ask :func:`_problems`)."""
    check = tool.argument_check
    try:
        return check is not None and check.is_valid(values)
    except Exception:  # values it cannot read (a datetime, say): jsonschema decides
        return False


@dataclass(frozen=True)
class _Problem:
    """One complaint of the schema, from either validator: where, which keyword, what it says."""

    path: list[Any]
    keyword: str
    message: str
    missing: str | None = None  # the absent property, for "required"


def _problems(tool: Any, values: dict[str, Any], schema: dict[str, Any]) -> list[_Problem]:
    """The schema's complaints about ``values``, most useful first; none for a broken schema.

    Valid arguments (the common case: every call) never get here: the tool's compiled check
    (:attr:`~mcpnb.client.toolinfo.ToolInfo.argument_check`) passed them. The same check words the
    errors, values quoted as JSON like the outputSchema warnings; ``jsonschema`` (whose first import
    takes seconds where ``rfc3987-syntax`` is installed) only for what ``jsonschema-rs`` cannot take.
    """
    if not schema:
        return []
    found = _compiled_problems(tool.argument_check, values)
    if found is None:
        from mcpnb.client.nullable import openapi_nulls

        found = _jsonschema_problems(values, openapi_nulls(schema))  # as the compiled check reads it
    return sorted(found, key=lambda p: (p.path, p.keyword != "required"))


def _compiled_problems(check: Any, values: dict[str, Any]) -> list[_Problem] | None:
    if check is None:
        return None
    try:
        errors = list(check.iter_errors(values))
    except Exception:  # values it cannot read (a datetime, say): jsonschema says what is wrong
        return None
    return [
        _Problem(list(e.instance_path), _keyword(e.schema_path), _said(e), getattr(e.kind, "property", None))
        for e in errors
    ]


def _said(error: Any) -> str:
    """The compiled check's words, but an ``enum`` lists what it takes ("5 is not one of 1, 2 or 2
    other candidates" hid 3 and 4 from a person, and from a model that must pick again)."""
    options = getattr(error.kind, "options", None)
    if not isinstance(options, list):
        return str(error.message)
    shown = ", ".join(json.dumps(o, ensure_ascii=False, default=str) for o in options[:_ENUM_SHOWN])
    more = f" and {len(options) - _ENUM_SHOWN} more" if len(options) > _ENUM_SHOWN else ""
    return f"{json.dumps(error.instance, ensure_ascii=False, default=str)[:100]} is not one of {shown}{more}"


def _keyword(schema_path: Any) -> str:
    """The keyword that failed: the last name on the schema path (``properties.a.type`` -> ``type``)."""
    return next((k for k in reversed(list(schema_path)) if isinstance(k, str)), "")


def _jsonschema_problems(values: dict[str, Any], schema: dict[str, Any]) -> list[_Problem]:
    try:
        errors = list(_validator(schema_key(schema)).iter_errors(values))
    except Exception:  # a broken schema is the server's problem: let the server judge the call
        return []
    return [
        _Problem(
            list(e.absolute_path),
            str(e.validator),
            e.message,
            _absent(e) if e.validator == "required" else None,
        )
        for e in errors
    ]


def _absent(error: Any) -> str | None:
    instance = error.instance if isinstance(error.instance, dict) else {}
    return next((k for k in error.validator_value if k not in instance), None)


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    import jsonschema

    schema = json.loads(schema_json)
    return jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)(schema)


def _is_secret(path: list[Any], props: dict[str, Any]) -> bool:
    """Whether the value at ``path`` is (or is inside) a secret: the parameter is one by its schema
    (``format: password``, ``writeOnly``) or its name, or a key on the way looks like one, as forms
    and the approval question judge it (:func:`~mcpnb.client.elicitation.fields.looks_secret`)."""
    from mcpnb.client.elicitation.fields import looks_secret

    if not path:
        return False
    key = str(path[0])
    spec = props.get(key) if isinstance(props.get(key), dict) else None
    title = spec.get("title") if spec is not None and isinstance(spec.get("title"), str) else None
    return looks_secret(key, title, spec) or any(isinstance(p, str) and looks_secret(p) for p in path[1:])


def _at(values: Any, path: list[Any]) -> Any:
    for step in path:
        try:
            values = values[step]
        except (KeyError, IndexError, TypeError):
            return None
    return values


def _kind_of(value: Any) -> str:
    """What a hidden value is, in JSON's words: a person who passed a dict learns that much."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    return f"a {type(value).__name__}"


def _leaves(value: Any) -> list[str]:
    """Every string and number inside ``value``, as a message could quote it."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [] if value is None or isinstance(value, bool) else [str(value)]


def _secret_leaves(value: Any) -> list[str]:
    """What the secret-looking keys inside ``value`` hold, however deep (``{"host": "a",
    "password": "..."}`` failing ``maxProperties`` is quoted whole by the validator)."""
    from mcpnb.client.elicitation.fields import looks_secret

    if isinstance(value, dict):
        return [
            leaf
            for k, v in value.items()
            for leaf in (_leaves(v) if looks_secret(str(k)) else _secret_leaves(v))
        ]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _secret_leaves(v)]
    return []


def _unquoted(problem: _Problem, values: dict[str, Any], props: dict[str, Any]) -> _Problem:
    """``problem`` without the value it quotes, where that value is a secret: a validator says
    ``{"v":"hunter2"} is not of type "string"``, and the error reached the cell's output (and a
    model's context). The rest of the words stay, the value written as ``••••••``; a message that
    still quotes a piece of it (cut short, say) is replaced by one that names only the keyword."""
    from mcpnb.client.elicitation.fields import HIDDEN
    from mcpnb.client.redact import hide_typed

    def hidden(message: str, shown: str) -> str:  # a short one where it stands alone: not in 12345
        return hide_typed(message, shown, HIDDEN, shortest=3)

    if problem.keyword == "required":
        return problem
    value = _at(values, problem.path)
    if not _is_secret(problem.path, props):  # a secret may still sit inside the value quoted
        inside = [leaf for leaf in _secret_leaves(value) if len(leaf) >= 3 and leaf in problem.message]
        if not inside:
            return problem
        message = problem.message
        for leaf in sorted(inside, key=len, reverse=True):
            message = hidden(message, leaf)
        return _Problem(problem.path, problem.keyword, message, problem.missing)
    forms = {repr(value), str(value)}
    for ascii_only in (True, False):
        forms.add(json.dumps(value, ensure_ascii=ascii_only, default=str))
        forms.add(json.dumps(value, ensure_ascii=ascii_only, default=str, separators=(",", ":")))
    message = problem.message
    for shown in sorted(forms - {"", "None"}, key=len, reverse=True):
        if message.startswith(shown + " "):  # "<value> is not of type ...": the usual shape
            message = f"{HIDDEN} ({_kind_of(value)})" + message[len(shown) :]
        message = hidden(message, shown)  # shorter than 3, it could be a bound's digits ("of 10")
    if any(len(leaf) >= 3 and hidden(message, leaf) != message for leaf in _leaves(value)):
        message = f"{HIDDEN} (a secret: not shown) fails the schema's {problem.keyword!r}"
    return _Problem(problem.path, problem.keyword, message, problem.missing)


def _line(args: Mapping[str, Any], key: str, *inside: Any) -> str:
    """Which cell body line ``key`` (or the deepest of ``key`` then ``inside`` written on a line of
    its own: a nested YAML block's) is on, for the message."""
    lines = getattr(args, "lines", {})
    path = (key, *inside)
    line = next((lines[path[:n]] for n in range(len(path), 1, -1) if path[:n] in lines), lines.get(key))
    return f" (line {line})" if line else ""


def _describe(problem: _Problem, args: Mapping[str, Any], terms: Terms) -> str:
    path = problem.path
    if problem.keyword == "required" and not path and problem.missing is not None:
        return f"missing required argument {terms.key(problem.missing)!r}"
    if not path:
        return problem.message
    key = str(path[0])
    sub = "".join(f"[{json.dumps(p)}]" for p in path[1:])
    message = problem.message if len(problem.message) <= 200 else problem.message[:199] + "…"
    return f"argument {terms.key(key)!r}{sub}{_line(args, key, *path[1:])}: {message}"


def _how_to_write(
    problem: _Problem, args: Mapping[str, Any], values: dict[str, Any], props: dict[str, Any]
) -> str:
    """For a typed (magic) argument that wants a list or an object and got one plain value: how to
    write the one it wants. ``files=b.txt`` for an array said only 'is not of type "array"'."""
    if problem.keyword != "type" or len(problem.path) != 1 or not hasattr(args, "raw"):
        return ""
    key = str(problem.path[0])
    spec = props.get(key)
    value = values.get(key)
    if not isinstance(spec, dict) or isinstance(value, list | dict):
        return ""
    kinds = type_names(spec)
    typed = args.raw.get(key, value if isinstance(value, str) else json.dumps(value, default=str))
    if _is_secret(problem.path, props):
        from mcpnb.client.elicitation.fields import HIDDEN

        typed = HIDDEN  # how to write it, not what the secret was
    body = key in getattr(args, "lines", {})
    if "array" in kinds:
        return f"; a list is written in brackets: {key}{': ' if body else '='}[{typed}]"
    if "object" in kinds:
        return f"; an object is written in braces: {key}{': ' if body else '='}{{name: value}}"
    return ""


def _mapping(terms: Terms, args: Any) -> None:
    if not hasattr(args, "keys"):  # "query=x" from code: dict("query=x") says only "length 1; 2 is required"
        raise ArgumentsError(
            f"{terms.where}: the arguments must be a dict of the tool's parameters "
            f"(a pandas row will do), not a {type(args).__name__}\n  {terms.signature}\n  (nothing was sent)"
        )


def unchecked_arguments(tool: Any, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments as JSON's types, not checked against the schema (``pool.call(validate=False)``
    leaves that to the server; a pandas row or a numpy value is still no JSON the SDK could send)."""
    if arguments is None:
        return {}
    _mapping(server_terms(tool), arguments)
    return native(dict(arguments))


def checked_arguments(tool: Any, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """:func:`check_arguments` for code (``pool.call``): every error also says nothing was sent."""
    try:
        return check_arguments(tool, {} if arguments is None else arguments)
    except ArgumentsError as exc:
        text = str(exc)
        if "nothing was sent" not in text:
            text += "\n  (nothing was sent)"
        raise ArgumentsError(text) from None
