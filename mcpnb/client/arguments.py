"""Check call arguments against the tool's ``inputSchema`` before anything is sent.

A server's own error for a bad argument is often a stack trace or a generic "invalid params"; the
schema knows exactly which field is wrong, so we say it first and send nothing. A compiled check
(``jsonschema-rs``) passes good arguments in microseconds and words what is wrong with bad ones.
It reads the arguments as they will be sent (a datetime as its ISO text), and nothing else judges
them: a second validator running a server's ``pattern`` with Python's backtracking ``re`` could
hold the kernel for minutes on one hostile pattern.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from mcpnb.client.errors import ArgumentsError, did_you_mean_text
from mcpnb.client.schemacheck import failed_keyword, json_path, readable
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


class NotJson(ValueError):
    """A value no JSON can carry, at ``path`` inside what :func:`native` was given; ``why`` says
    what, where it is a key of the object there rather than a value."""

    def __init__(self, leaf: Any, path: tuple[Any, ...] = (), why: str | None = None) -> None:
        super().__init__(why or f"{type(leaf).__name__} at {list(path)}")
        self.leaf, self.path, self.why = leaf, path, why


def native(value: Any) -> Any:
    """``value`` with a notebook's data types turned into JSON's own: numpy scalars and arrays,
    pandas Series (lists) and DataFrames (records), tuples (lists), and what the SDK writes as JSON
    (a datetime, a UUID: their text; a Decimal: its number; NaT: null) as it will write it, so
    that the check reads what the server will (a datetime for a ``date-time`` string was refused
    as "not of type string"). The very same object when there is nothing to turn, so plain
    arguments cost one walk and no copy. :class:`NotJson` for what no JSON carries (a lock, a
    whole result), with where it is: looked for only then, so a good value's walk pays nothing."""
    try:
        return _turned(value)
    except NotJson as exc:
        raise NotJson(exc.leaf, _where_foreign(value), exc.why) from None


def _turned(value: Any) -> Any:
    kind = type(value)
    if kind in _JSON_LEAVES:
        return value
    if kind is dict:
        turned = {k: _turned(v) for k, v in value.items()}
        if not all(type(k) is str for k in turned):
            return _text_keys(turned)
        return value if all(turned[k] is v for k, v in value.items()) else turned
    if kind is list or kind is tuple:
        items = [_turned(v) for v in value]
        return value if kind is list and all(a is b for a, b in zip(items, value, strict=True)) else items
    unpacked = _unpacked(value)
    if unpacked is not value:
        return _turned(unpacked)
    if kind.__name__ == "NaTType":  # a frame's missing date, as its missing number (NaN) is sent: null
        return None
    if isinstance(value, Decimal):  # a NUMERIC column's value is a number (pydantic writes its text)
        return int(value) if value.is_finite() and value == value.to_integral_value() else float(value)
    if kind.__module__.startswith("mcpnb.") or isinstance(value, Iterator):
        raise NotJson(value)  # a result (pydantic would send its every field); a generator, used up once read
    from pydantic_core import to_jsonable_python

    try:
        return to_jsonable_python(value)  # as the SDK will write it
    except (ValueError, TypeError):  # PydanticSerializationError, bytes that are no UTF-8, a NaT-like
        raise NotJson(value) from None


def _text_keys(value: dict[Any, Any]) -> dict[str, Any]:
    """An object's keys as JSON has them, text: a number's or a date's as it is written (a
    ``groupby`` count's ``{2024: 3}`` goes out as ``{"2024": 3}``, as the SDK would write it, so
    that the check reads what the server will). Where two keys would become one (``1`` and
    ``"1"``: the SDK wrote both, and the server kept the last), or a key has no text of its own
    (a tuple, None), :class:`NotJson` says which."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        text = key if type(key) is str else _key_text(key)
        if text in out:
            raise NotJson(
                key, why=f"keys {_shown_key(value, text)} and {key!r}, both written {text!r} in JSON"
            )
        out[text] = item
    return out


def _key_text(key: Any) -> str:
    turned = _turned(key)  # (numpy, a date: as the value would be written)
    if isinstance(turned, str):
        return turned
    if isinstance(turned, bool) or (isinstance(turned, int | float) and turned == turned):
        return json.dumps(turned)  # true, 2024, 1.5: JSON's own words for them
    raise NotJson(key, why=f"a key {key!r} (a {type(key).__name__}), which JSON cannot write as a key")


def _shown_key(value: dict[Any, Any], text: str) -> str:
    """The first key of ``value`` written as ``text``, for a collision's words."""
    return next(repr(k) for k in value if (k if type(k) is str else _key_text(k)) == text)


def _unpacked(value: Any) -> Any:
    """A DataFrame's rows, a numpy value's or a Series' list (what JSON carries of them); else ``value``."""
    if hasattr(value, "columns") and hasattr(value, "to_dict"):
        return value.to_dict("records")
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        return value.tolist()
    return value


def _where_foreign(value: Any) -> tuple[Any, ...]:
    """The keys and indexes down to the first part of ``value`` no JSON carries: each level's
    children walked once more, down one branch (a lock 20 lists deep was placed in 24 s when every
    level walked its child again)."""
    path: list[Any] = []
    while True:
        if type(value) not in (dict, list, tuple):
            value = _unpacked(value)
        items = (
            value.items() if type(value) is dict else enumerate(value) if type(value) in (list, tuple) else ()
        )
        for key, child in items:
            try:
                _turned(child)
            except NotJson:
                path.append(key)
                value = child
                break
        else:
            return tuple(path)


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
    values = _sent(terms, args, _coerce(args, props) if getattr(args, "raw", None) else dict(args))
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


def _sent(terms: Terms, args: Any, values: Any) -> dict[str, Any]:
    """:func:`native` of ``values``, or an :class:`ArgumentsError` for a value no JSON can carry
    (``text={{r}}``, a whole result; a lock; bytes that are no UTF-8), said where it is."""
    try:
        return native(values)
    except NotJson as exc:
        if exc.why and not exc.path:  # among the argument names themselves
            raise ArgumentsError(
                f"{terms.where}: the arguments have {exc.why}\n  {terms.signature}\n  (nothing was sent)"
            ) from None
        key, inside = exc.path[0], exc.path[1:]
        if exc.why:
            where = f" (at {json_path(inside).removeprefix('$')})" if inside else ""
            raise ArgumentsError(
                f"{terms.where}: argument {terms.key(key)!r}{_line(args, key)} has {exc.why}{where}"
                f"\n  {terms.signature}\n  (nothing was sent)"
            ) from None
        kind = type(exc.leaf).__name__
        hint = " (a result's data is r.data, its text r.text)" if kind == "ToolResult" else ""
        where = f"holds a {kind} at {json_path(inside).removeprefix('$')}" if inside else f"is a {kind}"
        raise ArgumentsError(
            f"{terms.where}: argument {terms.key(key)!r}{_line(args, key)} {where}, which JSON "
            f"cannot carry{hint}\n  {terms.signature}\n  (nothing was sent)"
        ) from None


def _passes(tool: Any, values: dict[str, Any]) -> bool:
    """The fast verdict: the tool's compiled check, once per tool list (False: ask :func:`_problems`)."""
    check = tool.argument_check
    try:
        return check is not None and check.is_valid(values)
    except Exception:  # values it cannot read: _problems asks again, and leaves them to the server
        return False


@dataclass(frozen=True)
class _Problem:
    """One complaint of the schema: where, which keyword, what it says."""

    path: list[Any]
    keyword: str
    message: str
    missing: str | None = None  # the absent property, for "required"


def _problems(tool: Any, values: dict[str, Any], schema: dict[str, Any]) -> list[_Problem]:
    """The schema's complaints about ``values``, most useful first; none for a broken schema.

    Valid arguments (the common case: every call) never get here: the tool's compiled check
    (:attr:`~mcpnb.client.toolinfo.ToolInfo.argument_check`) passed them. The same check words the
    errors, values quoted as JSON like the outputSchema warnings.
    """
    if not schema:
        return []
    found = _compiled_problems(tool.argument_check, values)
    if found is None:  # values it cannot read, though JSON carries them: the server judges
        return []
    return sorted(found, key=lambda p: (p.path, p.keyword != "required"))


def _compiled_problems(check: Any, values: dict[str, Any]) -> list[_Problem] | None:
    if check is None:
        return None
    try:
        errors = list(check.iter_errors(values))
    except Exception:  # values it cannot read, though native turned what JSON cannot carry away
        return None
    return [_problem_of(e) for e in errors]


def _problem_of(error: Any) -> _Problem:
    e = readable(error)
    return _Problem(
        list(e.instance_path), failed_keyword(e.schema_path), _said(e), getattr(e.kind, "property", None)
    )


def _said(error: Any) -> str:
    """The compiled check's words, but an ``enum`` lists what it takes ("5 is not one of 1, 2 or 2
    other candidates" hid 3 and 4 from a person, and from a model that must pick again)."""
    options = getattr(error.kind, "options", None)
    if not isinstance(options, list):
        return str(error.message)
    shown = ", ".join(json.dumps(o, ensure_ascii=False, default=str) for o in options[:_ENUM_SHOWN])
    more = f" and {len(options) - _ENUM_SHOWN} more" if len(options) > _ENUM_SHOWN else ""
    return f"{json.dumps(error.instance, ensure_ascii=False, default=str)[:100]} is not one of {shown}{more}"


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
    # pydantic's SecretStr | None: the password format is on a branch of its anyOf
    branches = [b for k in ("anyOf", "oneOf") for b in (spec or {}).get(k) or () if isinstance(b, dict)]
    return (
        looks_secret(key, title, spec)
        or any(looks_secret(key, title, b) for b in branches)
        or any(isinstance(p, str) and looks_secret(p) for p in path[1:])
    )


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
    terms = server_terms(tool)
    _mapping(terms, arguments)
    return _sent(terms, arguments, dict(arguments))


def checked_arguments(tool: Any, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """:func:`check_arguments` for code (``pool.call``): every error also says nothing was sent."""
    try:
        return check_arguments(tool, {} if arguments is None else arguments)
    except ArgumentsError as exc:
        text = str(exc)
        if "nothing was sent" not in text:
            text += "\n  (nothing was sent)"
        raise ArgumentsError(text) from None
