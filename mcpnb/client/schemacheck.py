"""The lenient ``outputSchema`` check: does a result's structured content match what the tool declared?

It runs on every structured result a person looks at, and results can be large (100,000 rows), so it
uses ``jsonschema-rs``, a compiled validator: about 10 ms for 100k rows where ``jsonschema`` takes
seconds (``python bench/run.py`` measures both). Validators are compiled once per schema and cached;
the result object caches its verdict. Remote ``$ref``s are never fetched: a server's schema must not
make the client call the network. Imported on first use.

A tool's ``inputSchema`` is compiled by the same validator: what it refuses in a schema (a misspelt
``type``) is said in a few words from its own error, and the call is still checked by what is sound
in the schema, without ``jsonschema``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mcpnb.client.schemacost import fans_out
from mcpnb.client.schemarefs import EXPANDED_LIMIT

#: Format checkers that replace the validator's own, as hashable ``(name, check)`` pairs.
Checkers = tuple[tuple[str, Callable[[Any], bool]], ...]


def _refuse(uri: str) -> Any:
    raise ValueError(f"remote schema {uri} is not fetched")


@lru_cache(maxsize=512)
def compiled(schema_json: str, *, formats: bool = True, checkers: Checkers = ()) -> Any:
    """A compiled validator for a schema given as canonical JSON text (cached: tools repeat)."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(
        json.loads(schema_json), validate_formats=formats, formats=dict(checkers) or None, retriever=_refuse
    )


def schema_key(schema: Any) -> str:
    """The cache key of a schema: its canonical JSON."""
    return json.dumps(schema, sort_keys=True, default=str)


def json_path(path: Any) -> str:
    """``$.rows[2].age`` for the instance path ``["rows", 2, "age"]``."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


#: Why a value is not checked against a schema that fans out (:func:`~mcpnb.client.schemacost.fans_out`).
TOO_LARGE = (
    f"it applies past {EXPANDED_LIMIT:,} subschemas at one place of the value once its references "
    "are read, loops back into itself more than once at a level of the value, or names parts of "
    "itself in a way this client does not follow: a check could follow too many paths"
)


def schema_problem(instance: Any, schema: dict[str, Any]) -> str | None:
    """The first validation error as one line (``at $.rows[2].age: "x" is not of type "integer"``).

    A schema that fans out is not checked (``cannot check against the schema: …``): over a value
    that fails it, the validator follows each of its paths (a hostile server's 2**40) holding the
    GIL, and the whole kernel froze with no timeout able to end it."""
    if fans_out(schema):
        return f"cannot check against the schema: {TOO_LARGE}"
    try:
        validator = compiled(schema_key(schema))
        if validator.is_valid(instance):
            return None
        error = next(iter(validator.iter_errors(instance)), None)
    except Exception as exc:  # an invalid or unresolvable schema is itself worth reporting
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"cannot check against the schema: {first}"
    if error is None:
        return None
    error = readable(error)
    return f"at {json_path(error.instance_path)}: {short_message(error.message, error.instance)}"


@dataclass(frozen=True)
class _TypeRefused:
    """What :func:`readable` says of an ``anyOf``/``oneOf`` whose every branch refused the value's
    type, as the validator's own errors read (``schema_path`` ends in the keyword)."""

    instance_path: list[Any]
    schema_path: list[Any]
    message: str
    instance: Any
    types: tuple[str, ...] = ()
    kind: Any = None


def readable(error: Any) -> Any:
    """The error of a ``jsonschema-rs`` check a person should read. An ``anyOf``/``oneOf`` that no
    branch takes says only "is not valid under any of the schemas listed in the 'anyOf' keyword",
    and that is every optional field of a Python server (``int | None`` is ``anyOf: [integer,
    null]``): where each branch refused the value's type, the types they take are said (``"x" is
    not of type "integer" or "null"``); where one branch took its type, that branch's own first
    complaint is (``3 is less than the minimum of 5``). Else ``error`` itself."""
    branches = getattr(error.kind, "context", None)
    if not isinstance(branches, list) or not branches or not all(branches):
        return error
    here = list(error.instance_path)
    refused = [_types_refused(b, here) for b in branches]
    fitting = [b for b, kinds in zip(branches, refused, strict=True) if kinds is None]
    if len(fitting) == 1:
        return readable(fitting[0][0])
    if fitting:
        return error
    kinds = dict.fromkeys(t for types in refused for t in types or ())
    shown = json.dumps(error.instance, separators=(",", ":"), ensure_ascii=False, sort_keys=True, default=str)
    said = " or ".join(f'"{t}"' for t in kinds)
    message = f"{shown} is not of type {said}"
    return _TypeRefused(here, [*error.schema_path, "type"], message, error.instance, tuple(kinds))


def _types_refused(branch: list[Any], here: list[Any]) -> list[str] | None:
    """The types a branch of an ``anyOf`` takes, where it refused the value for its type (a ``type``
    error at the value itself, or an ``anyOf`` there that refused it so: ``Literal | None``'s
    ``enum`` beside its ``type`` still refuses a number by type); None where it took the type."""
    types: list[str] = []
    for e in branch:
        if list(e.instance_path) != here:
            continue
        if failed_keyword(e.schema_path) == "type":
            types += getattr(e.kind, "types", ())
        elif isinstance(inner := readable(e), _TypeRefused):
            types += inner.types
    return types or None


def failed_keyword(schema_path: Any) -> str:
    """The keyword that failed: the last name on the schema path (``properties.a.type`` -> ``type``)."""
    return next((k for k in reversed(list(schema_path)) if isinstance(k, str)), "")


#: Characters of an offending value quoted in a message; and of a whole message, past which its
#: middle goes: a warning is read on one screen, and it is saved with the notebook.
QUOTED_CHARS = 80
MESSAGE_CHARS = 400


def short_message(message: str, instance: Any) -> str:
    """``message`` with the offending value it quotes (the validator quotes it whole: one mismatch
    in a 100,000-row result made a 7 MB warning) cut to its start and its size, and what is still
    long cut in the middle."""
    if len(message) <= MESSAGE_CHARS:
        return message
    for sort_keys in (True, False):  # as the validator quotes it: compact, its keys sorted
        try:
            quoted = json.dumps(instance, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
        except (TypeError, ValueError):
            break
        if len(quoted) > QUOTED_CHARS and quoted in message:
            message = message.replace(quoted, f"{quoted[:QUOTED_CHARS]}… ({_size(instance)})", 1)
            break
    if len(message) > MESSAGE_CHARS:
        half = MESSAGE_CHARS // 2
        message = f"{message[:half]} … {message[-half:]}"
    return message


def _size(value: Any) -> str:
    """``an array of 3 items``: what a cut quote leaves out, in JSON's words."""
    if isinstance(value, list):
        return f"an array of {len(value)} items"
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    return type(value).__name__


#: JSON Schema's types: what a misspelt ``type`` is matched against for a "did you mean".
_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
#: Keywords whose value maps names to subschemas, and those whose value lists subschemas: a broken
#: subschema there is replaced by ``{}`` (anything goes), not removed (see :func:`usable_check`).
_SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
#: Keywords that can name or admit properties ``properties`` does not: with any of them, a
#: ``required`` entry outside ``properties`` may be meant.
_MORE_PROPERTIES = frozenset(
    {"$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas",
     "patternProperties", "unevaluatedProperties"}
)  # fmt: skip
#: Keywords of a schema that breaks its meta-schema left out, at most, before giving up on checking.
_REPAIRS = 20


def compile_problem(exc: BaseException) -> str | None:
    """Why ``jsonschema-rs`` would not compile a schema, in a few words (``properties.n.type:
    'integr' is not valid; did you mean 'integer'?``), from its own error: no second validator is
    imported to say it. None for a remote ``$ref``: not fetched is our rule, not the schema's fault."""
    message = str(getattr(exc, "message", None) or exc).strip()
    first = message.splitlines()[0] if message else type(exc).__name__
    if "is not fetched" in first:
        return None
    path = list(getattr(exc, "instance_path", None) or ())
    kind = getattr(getattr(exc, "kind", None), "name", None)
    if kind in ("anyOf", "oneOf"):  # "… is not valid under any of the schemas listed in the 'anyOf' keyword"
        value = getattr(exc, "instance", None)
        first = f"{value!r} is not valid"
        if path and path[-1] == "type" and isinstance(value, str):
            from mcpnb.client.errors import did_you_mean_text

            first += did_you_mean_text(value, _TYPES)
    if not path and kind == "$ref":  # "Pointer '/defs/x' does not exist": say which keyword it is
        return f"$ref: {first}"
    where = json_path(path).removeprefix("$").removeprefix(".")  # properties.n.type
    return f"{where}: {first}" if path else first


def required_unnamed(schema: dict[str, Any]) -> list[str]:
    """``required`` entries that name no property, where that is a mistake: ``properties`` is given
    and nothing else can admit the name (no ``additionalProperties`` schema, ``patternProperties``,
    ``$ref`` or composition). With ``additionalProperties: false`` no call can ever satisfy it; left
    out, any value would do, which is rarely what a server that lists its properties meant."""
    props, required = schema.get("properties"), schema.get("required")
    extra = schema.get("additionalProperties", True)
    if not isinstance(props, dict) or not isinstance(required, list) or _MORE_PROPERTIES & schema.keys():
        return []
    if not isinstance(extra, bool):  # a schema for the others: they are meant
        return []
    from mcpnb.client.errors import did_you_mean_text

    if extra is False:
        why = "no call can satisfy it (additionalProperties is false)"
    else:
        why = "a call must give it, undescribed"
    return [
        f"required {name!r} is not among its properties, so {why}{did_you_mean_text(name, props)}"
        for name in required
        if isinstance(name, str) and name not in props
    ]


def input_schema_problems(schema: dict[str, Any]) -> list[str]:
    """What is wrong with a tool's ``inputSchema``, one short line each: why it is no valid JSON
    Schema, and ``required`` names it does not define. Empty for a sound schema."""
    try:
        compiled(schema_key(schema), formats=False)
    except Exception as exc:
        said = compile_problem(exc)
        problems = [f"inputSchema is invalid: {said}"] if said else []
    else:
        problems = []
    return problems + [f"inputSchema: {said}" for said in required_unnamed(schema)]


def usable_check(schema: dict[str, Any]) -> Any:
    """A compiled check of a tool's arguments even when its schema is broken: each keyword that
    breaks the JSON Schema meta-schema is left out (``"type": "integr"`` checks no type there), and
    a ``$ref`` that leads nowhere (or to a schema not fetched) checks nothing where it stands, so
    the rest still checks a call, which then goes out for the server to judge. ``jsonschema``, whose
    first import takes seconds, is not asked: it would fail on those same parts."""
    import jsonschema_rs

    current = schema
    for _ in range(_REPAIRS):
        try:
            return compiled(schema_key(current), formats=False)
        except jsonschema_rs.ValidationError as exc:
            path = list(exc.instance_path)
            if path:
                current = _left_out(current, path)
            elif _has_ref(current):  # which $ref failed is not said: none of them checks
                current = _without_refs(current)
            else:
                break
        except Exception:
            break
    return compiled(schema_key({}), formats=False)


def _has_ref(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "$ref" in schema or any(_has_ref(v) for v in schema.values())
    return isinstance(schema, list) and any(_has_ref(v) for v in schema)


def _without_refs(schema: Any) -> Any:
    """``schema`` with every ``$ref`` keyword left out (what it pointed to is then not checked)."""
    if isinstance(schema, dict):
        return {k: _without_refs(v) for k, v in schema.items() if k != "$ref"}
    if isinstance(schema, list):
        return [_without_refs(v) for v in schema]
    return schema


def _left_out(schema: dict[str, Any], path: list[Any]) -> dict[str, Any]:
    """``schema`` without what is at ``path``: a subschema becomes ``{}``, a keyword (or one item of
    its value) goes."""
    import copy

    out = copy.deepcopy(schema)
    parent: Any = out
    for part in path[:-1]:
        parent = parent[part]
    holder = path[-2] if len(path) > 1 else None
    if holder in _SUBSCHEMA_MAPS or holder in _SUBSCHEMA_LISTS:
        parent[path[-1]] = {}
    else:
        del parent[path[-1]]
    return out
