"""A tool's ``inputSchema`` as a Python signature: parameters, annotations, defaults, a docstring.

The point is that ``help(f)``, ``f?`` and tab completion in IPython show what the tool takes, in the
words Python people read: ``ui_search(query: str, limit: int = 5, category: str | None = None)``.
Required properties come first without defaults; optional ones carry the schema's ``default`` (else
``None``, meaning "not sent"), and so does a required one that has a default (the check fills it
in). A property whose name is not a Python identifier, or is a keyword (``class``, ``from``),
becomes a keyword-only parameter under a safe alias (``class_``); the original name still works
through ``**{"class": ...}``.
"""

from __future__ import annotations

import inspect
import json
import keyword
import operator
import re
import typing
from dataclasses import dataclass
from functools import reduce
from typing import Any, Literal

from mcpnb.client.schemarefs import Schema, deref, read_through
from mcpnb.client.toolbox.nulls import allows_null

_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


def annotation(spec: Any, root: Schema, depth: int = 0) -> Any:
    """The Python annotation for one property schema (``Any`` when the schema does not say; a
    reference met inside itself is ``Any`` too, and each is read once:
    :func:`~mcpnb.client.schemarefs.read_through`)."""
    return _annotation(spec, root, depth, frozenset(), {})


def _annotation(spec: Any, root: Schema, depth: int, inside: frozenset[str], done: dict[str, Any]) -> Any:
    if depth > 8:
        return Any
    return read_through(
        spec,
        root,
        lambda spec, inside: _read(spec, root, depth, inside, done),
        lambda _ref: Any,
        inside,
        done,
    )


def _read(spec: Any, root: Schema, depth: int, inside: frozenset[str], done: dict[str, Any]) -> Any:
    if not isinstance(spec, dict):
        return Any
    if "const" in spec and _literal_ok([spec["const"]]):
        return Literal[spec["const"]]  # type: ignore[valid-type]
    if isinstance(spec.get("enum"), list) and spec["enum"] and _literal_ok(spec["enum"]):
        return Literal[tuple(spec["enum"])]  # type: ignore[valid-type]
    options = [o for key in ("anyOf", "oneOf") for o in spec.get(key) or [] if isinstance(o, dict)]
    if options:
        return _union([_annotation(o, root, depth + 1, inside, done) for o in options])
    kind = spec.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    found = []
    for name in kinds:
        if name == "array" and isinstance(spec.get("items"), dict):
            item = _annotation(spec["items"], root, depth + 1, inside, done)
            found.append(list if item is Any else list[item])  # type: ignore[valid-type]
        else:
            found.append(_TYPES.get(name, Any))
    return _union(found) if found else Any


def _literal_ok(values: list[Any]) -> bool:
    return all(v is None or isinstance(v, (str, int, float, bool)) for v in values)


def _union(parts: list[Any]) -> Any:
    unique: list[Any] = []
    for part in parts:
        if part is Any:
            return Any
        if part not in unique:
            unique.append(part)
    if not unique:
        return Any
    none = type(None)
    ordered = [p for p in unique if p is not none] + [p for p in unique if p is none]
    return reduce(operator.or_, ordered) if len(ordered) > 1 else ordered[0]


@dataclass(frozen=True)
class Param:
    """One property of the schema as one Python parameter."""

    key: str  # the property name the server expects
    name: str  # the Python parameter name (``key`` itself, or an alias)
    required: bool
    default: Any
    annotation: Any
    description: str
    keyword_only: bool
    nullable: bool  # the schema itself accepts null (so None is sent, not dropped)

    def parameter(self) -> inspect.Parameter:
        kind = (
            inspect.Parameter.KEYWORD_ONLY if self.keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        default = inspect.Parameter.empty if self.required else self.default
        return inspect.Parameter(self.name, kind, default=default, annotation=self.annotation)


def _alias(key: str, taken: set[str]) -> str:
    name = re.sub(r"\W", "_", key) or "_"
    if name[0].isdigit():
        name = "_" + name
    if keyword.iskeyword(name) or name in taken:
        name += "_"
    while name in taken:
        name += "_"
    return name


def params(schema: Schema) -> list[Param]:
    """The parameters in signature order: required ones, optional ones, then keyword-only ones."""
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [k for k in schema.get("required") or [] if isinstance(k, str)]
    keys = list(props) + [k for k in required if k not in props]
    plain = {k for k in keys if k.isidentifier() and not keyword.iskeyword(k)}
    taken = set(plain)
    found: list[Param] = []
    for key in keys:
        spec = deref(props.get(key, {}), schema)
        # required with a default (zod's .default()): the call fills it in when left out (arguments.py)
        is_required = key in required and "default" not in spec
        if key in plain:
            name, keyword_only = key, False
        else:
            name, keyword_only = _alias(key, taken), True
            taken.add(name)
        default = spec.get("default") if not is_required else None
        kind = annotation(spec, schema)
        if not is_required and default is None and not _takes_none(kind):
            kind = kind | None  # ``= None`` is no implicit Optional (PEP 484): say it
        found.append(
            Param(
                key=key,
                name=name,
                required=is_required,
                default=default,
                annotation=kind,
                description=str(spec.get("description") or spec.get("title") or ""),
                keyword_only=keyword_only,
                nullable=allows_null(spec, schema),  # as the argument check reads it (OpenAPI's too)
            )
        )
    # stable: schema order inside each group; keyword-only ones may mix defaults freely
    return sorted(found, key=lambda p: (p.keyword_only, not p.required and not p.keyword_only))


def _takes_none(kind: Any) -> bool:
    """Whether the annotation ``kind`` already admits ``None`` (``Any`` does)."""
    if kind is Any or kind is type(None):
        return True
    args = typing.get_args(kind)
    return type(None) in args or (typing.get_origin(kind) is Literal and None in args)


def signature(found: list[Param], returns: Any) -> inspect.Signature:
    return inspect.Signature([p.parameter() for p in found], return_annotation=returns)


def type_text(value: Any) -> str:
    """An annotation as a person reads it: ``str | None``, ``Literal['a', 'b']``, ``list[str]``."""
    return inspect.formatannotation(value)


def docstring(description: str, found: list[Param], returns: str) -> str:
    """The description, an ``Args:`` section from the property descriptions, then what it returns."""
    lines = [description.strip() or "(the server gives no description)"]
    if found:
        lines += ["", "Args:"]
        for p in found:
            facts = [type_text(p.annotation)]
            if p.keyword_only:
                facts.append("keyword-only")
            if not p.required:
                facts.append("optional")
            head = f"    {p.name} ({', '.join(facts)})"
            text = p.description.strip()
            if p.name != p.key:
                text = f"sent as {p.key!r}. {text}".strip()
            if not p.required and p.default is not None:
                end = "" if not text or text.endswith((".", "!", "?", ":")) else "."  # "…in seconds Defaults"
                text = f"{text}{end} Defaults to {json.dumps(p.default)}.".strip()
            lines.append(f"{head}: {text}" if text else head)
    lines += ["", "Returns:", f"    {returns}"]
    return "\n".join(lines)
