"""The field model: what a JSON Schema property asks of a person, independent of any UI.

Both the widget form and the text fallback read this model, so a schema shape is interpreted once.
Anything the model cannot represent faithfully becomes kind ``json`` (edited as JSON text and
validated against the schema): a lossy widget would silently send something the server did not ask for.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from mcpnb.client.schemarefs import deref

Kind = Literal["string", "number", "integer", "boolean", "choice", "multichoice", "json"]

#: Words that make a field look like it wants a secret (matched against name/title words).
SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "passcode",
        "token",
        "secret",
        "key",
        "apikey",
        "credential",
        "credentials",
        "pin",
        "otp",
        "totp",
        "cvv",
        "ssn",
        "bearer",
        "cookie",
        "session",
        "privatekey",
        "auth",
    }
)

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
#: Names of parameters whose text has lines, code (``source``, ``sql``, ``diff``) or prose (``notes``,
#: ``description``, ``message``): see ``Field.takes_lines``.
_LINES_WORDS = frozenset(
    {"source", "code", "sql", "script", "content", "contents", "body", "diff", "patch", "snippet",
     "markdown", "html", "yaml", "template", "program", "traceback", "stacktrace", "prompt",
     "description", "message", "notes", "comment", "comments", "details", "feedback", "instructions"}
)  # fmt: skip


class _Missing:
    """Marks "no default": ``None`` is a legitimate default for nullable fields."""

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Choice:
    """One option of a choice field: the value sent to the server and the label a person reads."""

    value: Any
    label: str


@dataclass
class Field:
    """One property of an object schema, as a person would answer it."""

    name: str
    title: str
    kind: Kind
    schema: Any
    description: str | None = None
    required: bool = False
    default: Any = MISSING
    choices: tuple[Choice, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    exclusive_maximum: float | None = None
    multiple_of: float | None = None
    pattern: str | None = None
    format: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    nullable: bool = False
    secret_like: bool = False
    #: Why a field fell back to the JSON editor (shown to the person as a hint).
    json_reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING

    @property
    def clearly_secret(self) -> bool:
        """A credential beyond doubt (:func:`clearly_secret`), not only secret-looking."""
        return self.secret_like and clearly_secret(self.name, self.title, self.schema)

    @property
    def takes_lines(self) -> bool:
        """A text that has lines (source code, SQL, a diff, a traceback): a box that keeps them. A
        browser's one-line input drops the line breaks of a paste, so code reached the server as
        one run-on line. Known by the field's name, its description, or a default with lines."""
        short = self.max_length is not None and self.max_length <= 200
        if self.kind != "string" or self.secret_like or short or self.format is not None:
            return False  # a URL, an e-mail, a date: one line
        words = {w.lower() for w in _WORD.findall(f"{self.name} {self.title}")}
        said = (self.description or "").lower()
        media = self.schema.get("contentMediaType") if isinstance(self.schema, dict) else None
        return (
            bool(words & _LINES_WORDS)
            # JSON Schema's own word for what the text is (``application/sql``); not base64 data
            or (isinstance(media, str) and media != "text/plain" and "contentEncoding" not in self.schema)
            or any(word in said for word in ("traceback", "multi-line", "multiline"))
            or (isinstance(self.default, str) and "\n" in self.default)
        )

    @property
    def bounded(self) -> bool:
        """Both inclusive bounds known and finite: a slider is then an honest widget."""
        return (
            self.minimum is not None
            and self.maximum is not None
            and math.isfinite(self.minimum)
            and math.isfinite(self.maximum)
            and self.maximum >= self.minimum
        )

    def label_for(self, value: Any) -> str:
        """The label of a choice value (or the value itself), for summaries and prompts."""
        for choice in self.choices:
            if _same(choice.value, value):
                return choice.label
        return str(value)


def _same(a: Any, b: Any) -> bool:
    """Equality that keeps ``True`` and ``1`` apart, as JSON does."""
    return type(a) is type(b) and a == b


def looks_secret(name: str, title: str | None = None, schema: Any = None) -> bool:
    """Whether a field probably wants a credential: people should think twice before typing it."""
    if isinstance(schema, dict) and (schema.get("format") == "password" or schema.get("writeOnly") is True):
        return True
    text = f"{name} {title or ''}"
    words = [w.lower() for w in _WORD.findall(text)]
    joined = {a + b for a, b in itertools.pairwise(words)}
    return any(w in SECRET_WORDS for w in words) or bool(joined & _SECRET_PAIRS)


#: Words beside a secret-looking one that make a name no credential: a paging cursor
#: (``next_page_token``), a count or a limit (``token_count``, ``max_tokens``), a key that names
#: where data sits (``sort_key``, ``partition_key``), an id or a kind (``session_id``, ``key_type``).
_NOT_A_CREDENTIAL = frozenset(
    {
        "page", "next", "cursor", "continuation", "count", "max", "min", "limit", "num", "total",
        "sort", "partition", "primary", "foreign", "id", "type", "name", "timeout", "ttl", "length",
        "size", "expiry", "expires",
    }
)  # fmt: skip
#: Secret-looking words that name no credential alone: a Redis ``key``, a tmux ``session``.
_ALONE_NO_CREDENTIAL = frozenset({"key", "session"})


def clearly_secret(name: str, title: str | None = None, schema: Any = None) -> bool:
    """Whether a value is a credential beyond doubt: :func:`looks_secret`, but for names that say
    otherwise (``next_page_token``, ``token_count``, ``sort_key``, ``session_id``, a lone ``key``
    or ``session``). It decides what is hidden from the person who must judge a call (the model's
    approval question) and what the tool explorer empties after a call, where hiding the Redis key
    a call deletes cost more than it saved; ``github_token``, ``encryption_key`` and
    ``session_cookie`` stay hidden."""
    if isinstance(schema, dict) and (schema.get("format") == "password" or schema.get("writeOnly") is True):
        return True
    if not looks_secret(name, title):
        return False
    words = [w.lower() for w in _WORD.findall(name)]
    return not (set(words) & _NOT_A_CREDENTIAL or (len(words) == 1 and words[0] in _ALONE_NO_CREDENTIAL))


#: Two words that name a credential together, neither alone (``one_time_code``, ``security code``,
#: and a payment card's number: ``card_number``, ``creditCard``).
_SECRET_PAIRS = frozenset(
    {
        "apikey",
        "privatekey",
        "accesskey",
        "onetime",
        "securitycode",
        "verificationcode",
        "cardnumber",
        "creditcard",
    }
)


def _resolve_ref(prop: dict[str, Any], root: dict[str, Any]) -> dict[str, Any] | None:
    """Follow a local ``#/...`` reference (:func:`~mcpnb.client.schemarefs.deref`); ``None`` when
    it cannot be resolved, a remote or circular one included (then: JSON editor)."""
    resolved = deref(prop, root)
    return None if "$ref" in resolved else resolved


def _const_options(options: Any) -> tuple[Choice, ...] | None:
    """Titled choices from ``oneOf``/``anyOf`` lists of ``{"const": v, "title": t}``."""
    if not isinstance(options, list) or not options:
        return None
    out = []
    for opt in options:
        if not isinstance(opt, dict) or "const" not in opt:
            return None
        label = opt.get("title")
        out.append(Choice(opt["const"], str(label) if label is not None else str(opt["const"])))
    return tuple(out)


def _enum_choices(prop: dict[str, Any]) -> tuple[Choice, ...] | None:
    enum = prop.get("enum")
    if not isinstance(enum, list) or not enum:
        return None
    names = prop.get("enumNames")
    if isinstance(names, list) and len(names) == len(enum):
        return tuple(Choice(v, str(n)) for v, n in zip(enum, names, strict=True))
    return tuple(Choice(v, v if isinstance(v, str) else json.dumps(v)) for v in enum)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _split_nullable(prop: dict[str, Any]) -> tuple[dict[str, Any], bool] | None:
    """``type: [x, "null"]`` and pydantic's ``anyOf: [{...}, {"type": "null"}]`` → (x-schema, True)."""
    types = prop.get("type")
    if isinstance(types, list):
        rest = [t for t in types if t != "null"]
        if len(rest) == 1:
            return {**prop, "type": rest[0]}, len(rest) < len(types)
        if not rest:
            return None
        return None
    for key in ("anyOf", "oneOf"):
        options = prop.get(key)
        if isinstance(options, list) and len(options) == 2:
            nulls = [o for o in options if isinstance(o, dict) and o.get("type") == "null"]
            if len(nulls) == 1:
                other = next(o for o in options if o is not nulls[0])
                if isinstance(other, dict):
                    base = {k: v for k, v in prop.items() if k != key}
                    return {**other, **base}, True
    return prop, False


def field_from_property(
    name: str, prop: Any, *, required: bool = False, root: dict[str, Any] | None = None
) -> Field:
    """Interpret one property schema; never raises (unknown shapes become the JSON editor)."""
    root = root if isinstance(root, dict) else {}
    original = prop

    def as_json(reason: str, nullable: bool = False) -> Field:
        title = original.get("title") if isinstance(original, dict) else None
        desc = original.get("description") if isinstance(original, dict) else None
        default = original.get("default", MISSING) if isinstance(original, dict) else MISSING
        return Field(
            name=name,
            title=str(title) if title is not None else name,
            kind="json",
            schema=original,
            description=str(desc) if desc is not None else None,
            required=required,
            default=default,
            secret_like=looks_secret(name, str(title) if title else None, original),
            json_reason=reason,
            nullable=nullable,
        )

    if not isinstance(prop, dict):
        return as_json("any JSON value")
    if "$ref" in prop:
        resolved = _resolve_ref(prop, root)
        if resolved is None:
            return as_json(f"unresolved reference {prop['$ref']!r}")
        prop = resolved
    split = _split_nullable(prop)
    if split is None:
        return as_json("several types allowed")
    prop, nullable = split
    if "$ref" in prop:
        resolved = _resolve_ref(prop, root)
        if resolved is None:
            return as_json(f"unresolved reference {prop['$ref']!r}")
        prop = resolved

    title = prop.get("title")
    title = str(title) if title is not None else name
    desc = prop.get("description")
    base: dict[str, Any] = {
        "name": name,
        "title": title,
        "schema": original,
        "description": str(desc) if desc is not None else None,
        "required": required,
        "default": prop.get("default", MISSING),
        "nullable": nullable,
        "secret_like": looks_secret(name, title, prop),
    }
    typ = prop.get("type")
    if not isinstance(typ, str | type(None)):
        return as_json("unsupported type")

    choices = _enum_choices(prop) or _const_options(prop.get("oneOf")) or _const_options(prop.get("anyOf"))
    if choices is not None and typ in (None, "string", "number", "integer", "boolean"):
        return Field(kind="choice", choices=choices, **base)

    if typ == "string":
        fmt = prop.get("format")
        min_len, max_len = _int(prop.get("minLength")), _int(prop.get("maxLength"))
        pattern = prop.get("pattern") if isinstance(prop.get("pattern"), str) else None
        return Field(
            kind="string",
            format=fmt if isinstance(fmt, str) else None,
            min_length=min_len,
            max_length=max_len,
            pattern=pattern,
            **base,
        )
    if typ in ("number", "integer"):
        return Field(
            kind=typ,
            minimum=_number(prop.get("minimum")),
            maximum=_number(prop.get("maximum")),
            exclusive_minimum=_number(prop.get("exclusiveMinimum")),
            exclusive_maximum=_number(prop.get("exclusiveMaximum")),
            multiple_of=_number(prop.get("multipleOf")),
            **base,
        )
    if typ == "boolean":
        return Field(kind="boolean", **base)
    if typ == "array":
        items = prop.get("items")
        if isinstance(items, dict):
            if "$ref" in items:
                items = _resolve_ref(items, root) or items
            item_choices = (
                _enum_choices(items)
                or _const_options(items.get("anyOf"))
                or _const_options(items.get("oneOf"))
            )
            if item_choices is not None:
                return Field(
                    kind="multichoice",
                    choices=item_choices,
                    min_items=_int(prop.get("minItems")),
                    max_items=_int(prop.get("maxItems")),
                    **base,
                )
        return as_json(shape_of(prop, root), nullable)
    if typ == "object":
        return as_json(shape_of(prop, root), nullable)
    return as_json("no simple type", nullable)


_KEYS_SAID = 10  # keys of a nested object a hint names; more are counted
_PLURALS = {
    "string": "texts",
    "number": "numbers",
    "integer": "whole numbers",
    "boolean": "true/false values",
}


def shape_of(prop: dict[str, Any], root: dict[str, Any], depth: int = 0) -> str:
    """What to type into the JSON editor for a list or an object, in words: ``a nested object with
    keys bold, font_size, … (* required)``, ``a list of lists``. The editor is a blank box, and a
    pydantic model's fields were otherwise for the person to guess."""
    said = _shape(prop, root, depth, plural=False)
    return said + " (* required)" if "*" in said else said


def _shape(prop: Any, root: dict[str, Any], depth: int, *, plural: bool) -> str:
    if isinstance(prop, dict) and "$ref" in prop:
        prop = _resolve_ref(prop, root) or {}
    split = _split_nullable(prop) if isinstance(prop, dict) else None
    prop = split[0] if split is not None else {}
    typ = prop.get("type")
    props = prop.get("properties")
    if typ == "object" or isinstance(props, dict):
        noun = "objects" if plural else ("a nested object" if depth == 0 else "an object")
        if not isinstance(props, dict) or not props:
            return noun
        required = prop.get("required") if isinstance(prop.get("required"), list) else []
        names = [str(name) + ("*" if name in required else "") for name in props]
        more = f", … ({len(names)} keys)" if len(names) > _KEYS_SAID else ""
        return f"{noun} with keys {', '.join(names[:_KEYS_SAID])}{more}"
    if typ == "array":
        items = prop.get("items")
        noun = "lists" if plural else "a list"
        if not isinstance(items, dict) or depth >= 2:
            return noun
        return f"{noun} of {_shape(items, root, depth + 1, plural=True)}"
    if plural and isinstance(typ, str) and typ in _PLURALS:
        return _PLURALS[typ]
    return "values" if plural else "a value"


def fields_from_schema(schema: Any) -> list[Field]:
    """Fields of an object schema in declaration order; a non-object schema gives no fields."""
    if not isinstance(schema, dict):
        return []
    props = schema.get("properties")
    if not isinstance(props, dict):
        return []
    required = schema.get("required")
    required_set = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    return [
        field_from_property(str(name), prop, required=name in required_set, root=schema)
        for name, prop in props.items()
    ]


def defaults_of(fields: list[Field]) -> dict[str, Any]:
    """The content a person would send by accepting the pre-filled form untouched."""
    return {f.name: f.default for f in fields if f.has_default}


def mask(
    fields: list[Field], content: dict[str, Any] | None, *, doubtless: bool = False
) -> dict[str, Any] | None:
    """Content for display: secret-looking values replaced, so a screen share never shows them.
    ``doubtless``: only credentials beyond doubt (:func:`clearly_secret`), where the person must
    see the rest to judge (the model's approval question: a Redis ``key`` it deletes)."""
    if content is None:
        return None
    secret = {f.name for f in fields if (f.clearly_secret if doubtless else f.secret_like)}
    judge = clearly_secret if doubtless else looks_secret
    return {
        k: (HIDDEN if k in secret and v not in (None, "") else _masked_inside(v, judge))
        for k, v in content.items()
    }


#: What a secret shows as.
HIDDEN = "••••••"


def _masked_inside(value: Any, judge: Callable[[str], bool] = looks_secret) -> Any:
    """A JSON field's value (an object or a list a person typed, or a default) with what its
    secret-looking keys hold hidden, however deep: ``{"db": {"password": ...}}`` has no field of
    its own to be marked by the schema."""
    if isinstance(value, dict):
        return {
            k: HIDDEN if judge(str(k)) and v not in (None, "") else _masked_inside(v, judge)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_masked_inside(v, judge) for v in value]
    return value


# --- validation -------------------------------------------------------------------------------
