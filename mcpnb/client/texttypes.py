"""Numbers and times a server wrote as text, read as what they are.

JSON has no decimal, no 64-bit integer and no date, so servers write those as strings:
node-postgres (PostgreSQL's reference server) sends NUMERIC and BIGINT as ``"33285.00"`` and dates
as ISO text, DuckDB's server DECIMAL as ``"3.5"``, pydantic (the SDK, FastMCP) a ``Decimal`` as
``"3.10"`` and a ``datetime`` as ``"2026-12-04T14:00:00Z"``. ``.df`` reads such columns as numbers
and times, as ``pandas.read_json`` does, but only where that changes no value (every value of the
column must read exactly, else it stays the text it was: ``"01234"`` is a code) and the
outputSchema does not give the text a form of its own (a ``pattern``, an ``enum``, a ``format``
other than ``date-time``).

A column the outputSchema declares a plain ``"type": "string"`` is never read as numbers: zip codes
and phone numbers (``"10001"``) were ``int64`` until one of them had a leading zero, so the column's
type hung on the data. Only a schema that says the text is a number is read as one: a number type
beside the string (the SDK's ``MCPServer`` declares a ``Decimal`` as ``anyOf: [number, string]``) or
a number ``format`` (``decimal``, ``int64``, as OpenAPI writes them). FastMCP declares a ``Decimal``
as a plain string, as it does a ``str``: its money stays text in ``.df`` (``pd.to_numeric`` reads it).
Columns no schema declares (no outputSchema, a table read from text) are read as their values are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from mcpnb.client.schemarefs import deref

NUMBERS, TIMES, ZONED_TIMES = "numbers", "times", "times with a zone"

#: A number as JSON writes one, inside a string. No leading zeros: ``"01234"`` is a code, not a number.
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
#: An ISO 8601 date and time (JavaScript's ``Date`` in JSON, Python's ``str(datetime)``), its zone
#: captured; at most microseconds, which pandas and Python both keep.
_TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d{1,6})?)?(Z|[+-]\d\d:?\d\d)?")
_INT64 = 2**63


def kinds(columns: Mapping[Any, Sequence[Any]], declared: Mapping[Any, Any] | None = None) -> dict[Any, str]:
    """The columns that are numbers or times written as text, each with its kind (nulls aside);
    none whose schema in ``declared`` (:func:`column_schemas`) gives its text a form of its own."""
    found = {}
    for name, values in columns.items():
        present = [v for v in values if v is not None]
        if not present or not all(isinstance(v, str) for v in present):
            continue
        schema = declared.get(name, {}) if declared is not None else {}
        if _has_a_form(schema):
            continue
        if _numbers(present):
            if not _says_text(schema) or _says_number(schema):
                found[name] = NUMBERS
            continue
        zoned = _zoned_times(present)
        if zoned is not None:
            found[name] = ZONED_TIMES if zoned else TIMES
    return found


def read(frame: Any, kinds: Mapping[Any, str]) -> Any:
    """``frame`` with the columns of :func:`kinds` read as numbers and times. Times with a zone keep
    their instant, in the offset they were all written with (a server's ``Europe/Paris`` times show
    ``+01:00`` beside the zone it names, not the same instants in UTC); a column that mixes
    offsets is in UTC, the one zone that holds them all."""
    import pandas as pd

    for name, kind in kinds.items():
        if name not in frame.columns:
            continue
        if kind == NUMBERS:
            frame[name] = _numbers_read(frame[name])
        elif kind == ZONED_TIMES:
            times = _times_read(frame[name], zoned=True)
            offsets = frame[name].dropna().str.extract(_OFFSET, expand=False).unique()
            if len(offsets) == 1 and offsets[0] not in ("Z", "+00:00", "+0000", "-00:00"):
                written = pd.Timestamp(frame[name].dropna().iloc[0])  # its offset, as a zone
                times = times.dt.tz_convert(written.tz)
            frame[name] = times
        else:
            frame[name] = _times_read(frame[name], zoned=False)
    return frame


def _numbers_read(texts: Any) -> Any:
    """Integers by ``to_numeric`` (exact); a column with fractions by Python's own float: pandas
    before 3.1 read ``"0.30000000000000004"`` as ``0.3`` (a third of random doubles came back off)."""
    import pandas as pd

    present = texts.dropna()
    if all(v.lstrip("-").isdigit() for v in present):
        return pd.to_numeric(texts)
    return texts.astype(float)


def _times_read(texts: Any, *, zoned: bool) -> Any:
    """ISO times at microseconds on every pandas (3's own resolution for them): pandas 2 parses
    them in nanoseconds, which end in 2262, and a server's "never" (``9999-12-31``) made ``.df``
    raise; such a column is read one time at a time instead. A zoned column is in UTC here (the
    caller shows it in the offset it was written in)."""
    import pandas as pd

    unit = "datetime64[us, UTC]" if zoned else "datetime64[us]"
    try:
        return pd.to_datetime(texts, format="ISO8601", utc=zoned).astype(unit)
    except (pd.errors.OutOfBoundsDatetime, OverflowError):
        pass
    import numpy as np

    def instant(text: Any) -> Any:
        if not isinstance(text, str):
            return np.datetime64("NaT", "us")
        parsed = datetime.fromisoformat(text)  # (:func:`_zoned_times` read each one already)
        local = np.datetime64(parsed.replace(tzinfo=None), "us")
        offset = parsed.utcoffset() if zoned else None  # in numpy: year 1 at +02:00 is year 0 in UTC
        return local - np.timedelta64(offset) if offset else local

    times = pd.Series(np.array([instant(t) for t in texts], dtype="datetime64[us]"), index=texts.index)
    return times.dt.tz_localize("UTC") if zoned else times


#: The UTC offset an ISO time ends with (what :data:`_TIME` captured as its zone).
_OFFSET = r"(Z|[+-]\d\d:?\d\d)$"


def column_schemas(schema: Any, path: Sequence[str | int]) -> dict[str, Any]:
    """The schemas of a table's columns, in its order: ``schema`` describes the whole value, ``path``
    the keys down to the table (``["result"]`` for the SDK's wrapper of a list), an array of
    objects (``$ref`` to the schema's ``$defs`` followed); a nested object's keys as ``a.b``."""
    node = deref(schema, schema)
    for key in path:  # a number is an index into an array (an envelope's list of one object)
        node = deref(
            node.get("items") if isinstance(key, int) else node.get("properties", {}).get(key), schema
        )
    return _properties(deref(node.get("items"), schema), schema)


#: How deep the keys of nested objects are named (``a.b.c``), as ``.df`` flattens them.
_NESTED_DEPTH = 5
#: Columns named at most. A schema whose every level holds P objects, each the next level, names
#: P**5 columns by that depth (10 a level: 1.1 million, seconds; 20: never done), while a column's
#: schema only tells what its text is. The shallowest are named first: a table's own columns always.
COLUMN_LIMIT = 1_000


def _properties(node: dict[str, Any], root: Any) -> dict[str, Any]:
    """An object's properties by name (``$ref`` followed), and those of the objects among them as
    ``a.b``, as ``.df`` names the columns a nested object gives; an optional object (``anyOf``
    with ``null``, pydantic's ``Address | None``) too. Named level by level, at most
    :data:`COLUMN_LIMIT`, and given in the object's order (``a``, ``a.b``, ``c``)."""
    found: dict[tuple[int, ...], tuple[str, Any]] = {}  # where in the object's order -> name, schema
    level: list[tuple[tuple[int, ...], str, dict[str, Any]]] = [((), "", node)]
    for depth in range(_NESTED_DEPTH + 1):
        below = []
        for place, prefix, parent in level:
            properties = parent.get("properties")
            if not isinstance(properties, dict):
                continue
            for index, (key, spec) in enumerate(properties.items()):
                if len(found) >= COLUMN_LIMIT:
                    return _in_order(found)
                column = deref(spec, root)
                found[(*place, index)] = (f"{prefix}{key}", column)
                if depth < _NESTED_DEPTH:
                    below.append(((*place, index), f"{prefix}{key}.", _object_branch(column, root)))
        level = below
    return _in_order(found)


def _in_order(found: dict[tuple[int, ...], tuple[str, Any]]) -> dict[str, Any]:
    """Columns by name, each after its parent and before its parent's next key."""
    return {name: column for _, (name, column) in sorted(found.items())}


def _object_branch(schema: dict[str, Any], root: Any) -> dict[str, Any]:
    """``schema``, or its one branch of an ``anyOf``/``oneOf`` that has properties (an optional model)."""
    if "properties" in schema:
        return schema
    branches = [deref(b, root) for key in ("anyOf", "oneOf") for b in schema.get(key) or ()]
    objects = [b for b in branches if isinstance(b.get("properties"), dict)]
    return objects[0] if len(objects) == 1 else {}


def _has_a_form(schema: dict[str, Any]) -> bool:
    """Whether a column's schema gives its text a form of its own: a ``pattern`` (a code), an
    ``enum`` or ``const``, a ``format`` other than ``date-time`` or a number's (a ``date``, a ``uuid``)."""
    form = schema.get("format")
    return any(key in schema for key in ("pattern", "enum", "const")) or not (
        form is None or form == "date-time" or form in _NUMBER_FORMATS
    )


#: Formats that say a string holds a number (OpenAPI's ``int64`` and ``decimal``, and their kin).
_NUMBER_FORMATS = frozenset(
    {"decimal", "number", "double", "float", "integer", "int32", "int64", "uint32", "uint64", "bigint"}
)


def _types(schema: dict[str, Any]) -> set[str]:
    """The JSON types a column's schema allows: its ``type`` (a name or a list), and those of the
    branches of an ``anyOf`` or ``oneOf`` (an optional value's ``null`` among them)."""
    declared = schema.get("type")
    found = (
        {declared} if isinstance(declared, str) else set(declared) if isinstance(declared, list) else set()
    )
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key) or ():
            if isinstance(branch, dict):
                found |= _types(branch)
    return {t for t in found if isinstance(t, str)}


def _says_text(schema: dict[str, Any]) -> bool:
    """Whether a column's schema declares text: a string (or a string or null), nothing else."""
    types = _types(schema) - {"null"}
    return types == {"string"}


def _says_number(schema: dict[str, Any]) -> bool:
    """Whether a column's schema says its text is a number: a number format, or a number type
    allowed beside the string (pydantic's ``Decimal`` as the SDK's ``MCPServer`` declares it)."""
    return schema.get("format") in _NUMBER_FORMATS or bool(_types(schema) & {"number", "integer"})


def _numbers(values: list[str]) -> bool:
    """Integers within int64, or numbers a float keeps to the last digit written (a column with a
    fraction in it is a float column, so its integers must fit a float too)."""
    if not all(_NUMBER.fullmatch(v) for v in values):
        return False
    if all(v.lstrip("-").isdigit() for v in values):
        return all(-_INT64 <= int(v) < _INT64 for v in values)
    return all(map(_float_keeps, values))


def _float_keeps(text: str) -> bool:
    """Whether a float holds the number ``text`` writes to its last digit: always for 15 digits
    without an exponent (a double keeps any 15 significant digits), else checked (1e400 is inf)."""
    short = len(text) <= 15 and "e" not in text and "E" not in text
    return short or Decimal(text) == Decimal(repr(float(text)))


def _zoned_times(values: list[str]) -> bool | None:
    """For ISO 8601 dates and times that exist (no month 13), all with a zone or all without
    (pandas has no column of both): whether they have one; else None."""
    zones = set()
    for value in values:
        match = _TIME.fullmatch(value)
        if match is None:
            return None
        try:
            datetime.fromisoformat(value)
        except ValueError:
            return None
        zones.add(match.group(1) is not None)
    return zones.pop() if len(zones) == 1 else None
