"""Structured content as a pandas DataFrame, when it has a table's shape.

Which shapes count is a small, explicit list (see :func:`to_dataframe`) rather than "whatever pandas
accepts": pandas turns almost anything into *some* frame, and a person should be able to predict
when ``result.df`` works. pandas itself is imported inside the functions so ``import mcpnb`` stays fast.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import chain, repeat
from operator import itemgetter
from typing import Any, Literal

from mcpnb.client import texttypes
from mcpnb.client.errors import McpnbError


class NotTabularError(McpnbError, TypeError, ValueError):
    """The data has no table shape. An :class:`McpnbError` as every error a person may see is, and
    both a ``TypeError`` and a ``ValueError``, so either ``except`` works."""


class FrameWarning(UserWarning):
    """What ``.df`` changed for the table to be one a person can use (two columns that would have
    had one name, half of a character); ``.data`` has the values as sent."""


def _is_records(value: Any) -> bool:
    # (each step at C speed: a 100k-row result is looked at several times on its way to a table)
    return isinstance(value, list) and all(map(isinstance, value, repeat(dict)))


#: JSON's names for what Python reads it as: a person reads JSON, not ``NoneType`` and ``dict``.
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}


def _json_type(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return f"an object with keys {sorted(map(str, value))[:5]}" if value else "an empty object"
    if isinstance(value, list):
        kinds = sorted({_json_type(v) for v in value})
        return f"a list of {', '.join(kinds)}" if value else "an empty list"
    kind = _json_type(value)
    return "null" if value is None else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


_PLAIN = (str, int, float, type(None))  # bool is an int


def _is_scalar(value: Any) -> bool:
    return isinstance(value, _PLAIN)


def _plain(values: Any) -> bool:
    """Whether every value (of a list, or any iterable) is plain."""
    return all(map(_is_scalar, values))


def _distinct_names(names: list[Any]) -> bool:
    """Column names a table can have: texts, none empty, none twice."""
    return all(isinstance(n, str) and n for n in names) and len(set(names)) == len(names)


#: Where a table written as column names and row arrays keeps them, in the order looked for: a SQL
#: server's ``{"columns": [...], "rows": [[...], ...]}`` (the DuckDB/MotherDuck server's answer to a
#: query), pandas' ``to_json(orient="split")`` (``columns`` and ``data``), names given as objects
#: (``"fields": [{"name": "id", "type": "INTEGER"}, ...]``), a Gradio ``Dataframe``'s value as its
#: MCP server sends it (``{"headers": [...], "data": [[...]], "metadata": null}``).
_NAMES_KEYS = ("columns", "fields", "headers")
_ROWS_KEYS = ("rows", "data")


def _column_names(value: Any, *, distinct: bool = True) -> list[str] | None:
    """Column names, from a list of names or of objects with a ``name``; None unless they are
    texts, and (``distinct``) each once. A query's own names may repeat (``SELECT *`` over a join
    gives two ``id``): :func:`_distinct` numbers them."""
    if not isinstance(value, list) or not value:
        return None
    names = [c.get("name") if isinstance(c, dict) else c for c in value]
    if all(isinstance(n, str) for n in names) and (not distinct or len(set(names)) == len(names)):
        return names
    return None


def _names_and_rows_keys(data: Any) -> tuple[str, str] | None:
    """The first key of column names and the first key of rows that ``data`` has, if both."""
    if not isinstance(data, dict):
        return None
    names_key = next((k for k in _NAMES_KEYS if k in data), None)
    rows_key = next((k for k in _ROWS_KEYS if k in data), None)
    return None if names_key is None or rows_key is None else (names_key, rows_key)


def split_keys(data: Any) -> tuple[str, str] | None:
    """The keys of the column names and of the rows when ``data`` is a table written as names and
    row arrays (every row as wide as the names; a name may repeat), else None."""
    keys = _names_and_rows_keys(data)
    if keys is None:
        return None
    names, rows = _column_names(data[keys[0]], distinct=False), data[keys[1]]
    if names is None or not isinstance(rows, list):
        return None
    width = len(names)
    return keys if all(type(r) is list and len(r) == width for r in rows) else None


def _refuse_ragged_rows(data: Any) -> None:
    """Column names beside rows of values where a row is not as wide as the names: which value is
    whose is not known (a short row may have lost any of its cells), so say which row, rather
    than reading the names and the rows as two columns of one table."""
    keys = _names_and_rows_keys(data)
    if keys is None:
        return
    names, rows = _column_names(data[keys[0]], distinct=False), data[keys[1]]
    if names is None or not isinstance(rows, list) or not rows or not all(type(r) is list for r in rows):
        return
    at, row = next((i, r) for i, r in enumerate(rows) if len(r) != len(names))
    raise NotTabularError(
        f"not tabular: row {at} of {keys[1]!r} has {len(row)} value{'s' if len(row) != 1 else ''} but "
        f"{keys[0]!r} names {len(names)} columns, so which value is whose is not known (.data has the "
        "rows as sent)"
    )


def _numbered(name: str, taken: set[Any]) -> str:
    """``name``, else ``name (2)``, ``name (3)``... the first not ``taken``; now taken too."""
    given, n = name, 1
    while given in taken:
        n += 1
        given = f"{name} ({n})"
    taken.add(given)
    return given


def _distinct(names: list[str], where: str) -> tuple[list[str], list[str]]:
    """``names`` with each name once, and a note for each one given again: the first keeps its
    name, the next is ``id (2)`` (pandas gave both one name, and ``df["id"]`` was then two columns)."""
    if len(set(names)) == len(names):
        return names, []
    taken, seen, given, notes = set(names), set(), [], []
    for name in names:
        if name in seen:
            new = _numbered(name, taken)
            notes.append(f"{where} names {name!r} again: that column is {new!r}")
            name = new
        seen.add(name)
        given.append(name)
    return given, notes


#: A Markdown table's second line: ``| --- | :---: |`` (GitHub's tables: MarkItDown's answer for a
#: CSV or a sheet, the fetch server's for a page's table).
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def table_cells(line: str) -> list[str]:
    """The cells of one Markdown table line (its outer pipes optional)."""
    return [cell.strip() for cell in line.strip().removeprefix("|").removesuffix("|").split("|")]


def markdown_rows(text: str) -> list[dict[str, str | None]] | None:
    """The rows of ``text`` when all of it is one Markdown table with distinct column names (a
    short row ends in nulls, as a sheet's does); None for anything else."""
    lines = text.strip().splitlines()
    if len(lines) < 2 or "|" not in lines[0] or not TABLE_RULE.match(lines[1]):
        return None
    names = table_cells(lines[0])
    if not _distinct_names(names) or not all("|" in line for line in lines[2:]):
        return None
    rows = [table_cells(line) for line in lines[2:]]
    return [dict(zip(names, [*row, *[None] * (len(names) - len(row))], strict=False)) for row in rows]


#: The rule under a fixed-width table's header: groups of dashes, a space or more apart.
_RULE = re.compile(r"^ *-{2,}(?: +-{2,})+ *$")
_DASHES = re.compile(r"-+")


def ruled_rows(text: str) -> list[dict[str, str]] | None:
    """The rows of ``text`` when all of it is one fixed-width table, a rule of dashes under distinct
    column names (the ``tabulate`` library's "simple" format: MLflow's MCP server answers so); each
    column is where its dashes are, and what lies between them is blank. None for anything else."""
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    if len(lines) < 2 or not _RULE.match(lines[1]) or not all(lines[2:]):
        return None
    spans = [m.span() for m in _DASHES.finditer(lines[1])]
    starts = [start for start, _ in spans]

    def cells(line: str) -> list[str] | None:
        gaps = zip((end for _, end in spans), [*starts[1:], len(line)], strict=True)
        if any(line[end:start].strip() for end, start in gaps):
            return None  # a cell out of its column: not this kind of table
        return [line[start:end].strip() for start, end in spans]

    names = cells(lines[0])
    if not names or not _distinct_names(names):
        return None
    rows = [cells(line) for line in lines[2:]]
    if any(row is None for row in rows):
        return None
    return [dict(zip(names, row, strict=True)) for row in rows if row is not None]


def _is_grid(value: Any) -> bool:
    """Rows of plain values, each a list (a sheet's cells): not empty, and not a list of records."""
    return isinstance(value, list) and any(value) and all(type(row) is list and _plain(row) for row in value)


def grid_key(data: Any) -> str | None:
    """The key of an object's one list of rows of plain values, beside plain fields (``{"range":
    "A1:C3", "values": [["region", "q1"], ["north", 10]]}``, as spreadsheet servers read a range)."""
    if not isinstance(data, dict):
        return None
    lists = [k for k, v in data.items() if isinstance(v, list)]
    return lists[0] if len(lists) == 1 and _is_grid(data[lists[0]]) else None


def table_keys(data: Any) -> list[str]:
    """The keys of an object whose values are lists of objects: its tables (an empty list beside
    one that has rows is a table with none yet: a graph's ``relations`` before there are any)."""
    if not isinstance(data, dict):
        return []
    keys = [k for k, v in data.items() if isinstance(v, list) and _is_records(v)]
    return keys if any(data[k] for k in keys) else []


Shape = Literal["records", "names and rows", "grid", "columns", "one row", "values"]


@dataclass(frozen=True)
class Table:
    """Where a value keeps its table, read once (see :func:`find_table`).

    Telling a shape walks every row; a display asks for a preview, the row count and the fields
    beside the table, and each used to walk a 100k-row answer again (and build every column of a
    grid just to count it). The rows themselves are built on demand, as many as are asked for.
    """

    shape: Shape
    source: Any  # the records, the row arrays, the grid's rows, the columns, the one object or the values
    key: str | None = None  # where an object keeps the rows (``"rows"`` of ``{"rows": [...], "total": 3}``)
    fields: dict[str, Any] = field(default_factory=dict)  # the object's other fields, shown above the table
    names: list[Any] | None = None  # column names of row arrays and grids (of records, their order)
    start: int = 0  # a grid's first row of data (1 under a header row)
    at: tuple[str | int, ...] = ()  # the keys down to the object that holds it, inside an envelope
    notes: tuple[str, ...] = ()  # what its names needed to be a table's (a name given twice)
    index: list[Any] | None = None  # row labels it was sent with (pandas' ``orient="split"``)

    @property
    def where(self) -> str:
        """Where the rows are, as a person reads a path: ``rows``, ``data.statements[0].rows``."""
        return path_text([*self.at, self.key] if self.key is not None else list(self.at))

    @property
    def count(self) -> int:
        """How many rows :meth:`rows` gives, without building them."""
        if self.shape == "columns":
            return max((len(v) for v in self.source.values()), default=0)
        return 1 if self.shape == "one row" else len(self.source) - self.start

    def rows(self, limit: int | None = None) -> list[dict[str, Any]] | dict[str, list[Any]]:
        """The table as records or as columns, the first ``limit`` rows only when given."""
        end = None if limit is None else self.start + limit
        if self.shape == "names and rows":
            rows = self.source[:end]
            columns = map(list, zip(*rows, strict=True)) if rows else ([] for _ in self.names or ())
            return dict(zip(self.names or (), columns, strict=True))
        if self.shape == "grid":  # short rows (a sheet leaves trailing empty cells out) end in nulls
            return self.columns(limit=limit)
        if self.shape == "columns":
            return self.source if limit is None else {k: v[:limit] for k, v in self.source.items()}
        if self.shape == "one row":
            return [self.source]
        if self.shape == "values":
            return {"value": self.source[:end]}
        return self.source[:end]

    def is_tree(self) -> bool:
        """Whether rows hold rows of their own kind: a cell that is a list of objects sharing a
        key with its row (a directory's entries and their ``children``). A tree reads better as
        the text it came in than as a table of its top level."""
        if self.shape != "records":
            return False
        return any(
            type(cell) is list and cell and type(cell[0]) is dict and not cell[0].keys().isdisjoint(row)
            for row in self.source
            for cell in row.values()
        )

    def columns(self, names: Collection[Any] | None = None, limit: int | None = None) -> dict[Any, list[Any]]:
        """Columns by name, all or ``names``, of the first ``limit`` rows when given (a record
        without the key, or a sheet's short row, holds null)."""
        end = None if limit is None else self.start + limit
        if self.shape == "records":
            rows = self.source[:end]
            wanted = dict.fromkeys(key for row in rows for key in row) if names is None else names
            return {name: [row.get(name) for row in rows] for name in wanted}
        if self.shape in ("names and rows", "grid"):
            body = self.source[self.start : end]
            index = {name: i for i, name in enumerate(self.names or ())}
            wanted = index if names is None else [name for name in names if name in index]
            return {
                name: [row[index[name]] if index[name] < len(row) else None for row in body]
                for name in wanted
            }
        if self.shape == "columns":
            return {k: v[:limit] for k, v in self.source.items() if names is None or k in names}
        if self.shape == "one row":
            return {k: [v] for k, v in self.source.items() if names is None or k in names}
        return {"value": self.source[:limit]} if names is None or "value" in names else {}

    def frame(self, limit: int | None = None) -> Any:
        """The table as a ``pandas.DataFrame``; nested records are flattened into ``a.b`` columns.

        ``limit`` builds only the first rows (a preview of a 100k-row result costs what it shows).
        pandas' own refusals (odd keys, mixed nesting) are :class:`NotTabularError` too.
        """
        return self.frame_and_notes(limit)[0]

    def frame_and_notes(self, limit: int | None = None) -> tuple[Any, list[str]]:
        """:meth:`frame`, and what it had to change to be one table (:func:`_flattened`)."""
        import pandas as pd

        rows = self.rows(limit)
        try:
            if isinstance(rows, dict):
                frame, notes = pd.DataFrame(rows), []
            elif not rows:
                frame, notes = pd.DataFrame(), []
            # flat records (the common case) go straight in: json_normalize is many times slower
            elif _flat(rows):
                frame, notes = pd.DataFrame(rows, columns=self.names or None), []
            else:
                frame, notes = _flattened(rows)
        except Exception as exc:
            raise NotTabularError(f"not tabular: pandas could not build a table ({exc})") from exc
        if self.index is not None:
            frame.index = pd.Index(self.index[: len(frame)])
        return frame, [*self.notes, *notes]

    @cached_property
    def paths(self) -> dict[Any, tuple[Any, ...]]:
        """:func:`record_paths` of records (and of one row): read once for a display, its
        text types and its repr."""
        if self.shape == "records":
            return record_paths(self.source, self.names)
        return record_paths([self.source]) if self.shape == "one row" else {}

    def column_names(self) -> list[Any]:
        """The names of :meth:`frame`'s columns, of every row, without building it: the columns
        that only later rows have count too (a preview's frame does not have them). One pass over
        the rows of records, at C speed when none of them nests an object."""
        if self.shape in ("records", "one row"):
            return list(self.paths)
        return list(self.columns(limit=0))


#: What json_normalize joins nested keys with, before they are joined with dots: a key's own dots
#: (``"a.b"``) stay apart from a nesting (``{"a": {"b": ...}}``), which pandas gave the same name.
_NESTED = "\x1f"


def _flattened(rows: list[dict[str, Any]]) -> tuple[Any, list[str]]:
    """Nested records flattened into ``a.b`` columns, each name once (:func:`_settled`)."""
    import pandas as pd

    frame = pd.json_normalize(rows, sep=_NESTED)
    names, notes = _settled(list(frame.columns), lambda name: bool(frame[name].isna().all()))
    frame = frame.loc[:, [name is not None for name in names]]
    frame.columns = [name for name in names if name is not None]
    return frame, notes


def _settled(columns: list[Any], empty: Callable[[Any], bool]) -> tuple[list[Any], list[str]]:
    """The names json_normalize's ``columns`` (nested keys joined by :data:`_NESTED`) have in
    ``.df``, None for a column left out, and a note for each renamed. pandas wrote both a key
    ``"a.b"`` and ``b`` inside ``a`` to one column ``a.b``, the last one winning, so the nested one
    is ``a.b (2)`` and a note says so. An object some rows lack (an optional nested model, null
    there) left a column of nulls beside its ``addr.city``, ``addr.zip`` (``empty`` says so): it
    is left out."""
    inside = {name.rsplit(_NESTED, 1)[0] for name in columns if _is_nested(name)}
    parents = {p for name in inside for p in _prefixes(name)}
    dropped = {name for name in columns if name in parents and empty(name)}
    taken = {name for name in columns if not _is_nested(name)}  # keys as sent keep their name
    names: list[Any] = []
    notes = []
    for name in columns:
        if name in dropped or not _is_nested(name):
            names.append(None if name in dropped else name)
            continue
        dotted = name.replace(_NESTED, ".")
        given = _numbered(dotted, taken)
        if given != dotted:
            path = " inside ".join(repr(k) for k in reversed(name.split(_NESTED)))
            notes.append(f"{path} is column {given!r} ({dotted!r} is another's name)")
        names.append(given)
    return names, notes


def _is_null(value: Any) -> bool:
    return value is None or (type(value) is float and value != value)


def record_paths(rows: list[dict[Any, Any]], names: list[Any] | None = None) -> dict[Any, tuple[Any, ...]]:
    """The columns ``.df`` makes of ``rows`` (:meth:`Table.frame`), in its order, each with the keys
    down to its values, without pandas: json_normalize puts a row's plain keys first and its
    nested ones after, and :func:`_settled` names them. ``names``: the order a list of column
    names gave flat rows (Datasette's)."""
    if not rows:
        return {}
    values = chain.from_iterable(map(dict.values, rows))  # (each step at C speed)
    if dict not in set(map(type, values)):
        keys = names if names else dict.fromkeys(chain.from_iterable(rows))
        return {key: (key,) for key in keys}
    held: dict[tuple[Any, ...], bool] = {}  # each column, and whether a row holds a value in it

    def seen(path: tuple[Any, ...], value: Any) -> None:
        if not held.get(path, False):
            held[path] = not _is_null(value)

    def walk(path: tuple[Any, ...], inner: dict[Any, Any]) -> None:
        for key, value in inner.items():
            if type(value) is dict:
                walk((*path, str(key)), value)
            else:
                seen((*path, str(key)), value)

    shapes = set()
    for row in rows[:1] if _uniform(rows) else _telling(rows):  # rows of one shape add nothing new
        shape = _shape(row)
        if shape in shapes:
            continue
        shapes.add(shape)
        for key, value in row.items():
            if type(value) is not dict:
                seen((key,), value)
        for key, value in row.items():
            if type(value) is dict:
                walk((str(key),), value)
    raw = {(path[0] if len(path) == 1 else _NESTED.join(path)): path for path in held}
    given, _ = _settled(list(raw), lambda name: not held[raw[name]])
    return {name: path for name, path in zip(given, raw.values(), strict=True) if name is not None}


#: Rows whose shapes :func:`record_paths` reads one by one; past them, only rows with keys none of
#: them had (a nested object first set after them is not seen: ``.df`` has its columns all the same).
SHAPE_ROWS = 1000


def _telling(rows: list[dict[Any, Any]]) -> list[dict[Any, Any]]:
    """The rows whose shapes may name a column: the first :data:`SHAPE_ROWS`, and later ones whose
    keys none of those had (found at C speed). Every row's shape read in Python took 0.3 s a
    display for 100,000 rows whose nested objects are null in some rows."""
    if len(rows) <= SHAPE_ROWS:
        return rows
    keys = list(map(tuple, rows))
    seen = set(keys[:SHAPE_ROWS])
    if set(keys[SHAPE_ROWS:]) <= seen:
        return rows[:SHAPE_ROWS]
    later = (row for row, k in zip(rows[SHAPE_ROWS:], keys[SHAPE_ROWS:], strict=True) if k not in seen)
    return [*rows[:SHAPE_ROWS], *later]


def _uniform(rows: list[dict[Any, Any]]) -> bool:
    """Whether every row has the same keys with values of the same types, their objects alike
    too (a typed tool's rows): the first then says all. Each step at C speed."""
    keys = set(map(tuple, rows))
    types = set(map(tuple, map(map, repeat(type), map(dict.values, rows))))
    if len(keys) != 1 or len(types) != 1:
        return False
    [names], [kinds] = keys, types
    return all(
        _uniform(list(map(itemgetter(k), rows))) for k, kind in zip(names, kinds, strict=True) if kind is dict
    )


def _shape(row: dict[Any, Any]) -> tuple[Any, ...]:
    """A row's keys and its values' types, a nested object's own shape: what :func:`record_paths`
    learns from a row (a float's NaN aside: rows of one shape null in the same places)."""
    types = tuple(map(type, row.values()))
    if dict in types:
        types = tuple(_shape(v) if type(v) is dict else type(v) for v in row.values())
    return (tuple(row), types)


def path_values(rows: list[dict[Any, Any]], path: tuple[Any, ...]) -> list[Any]:
    """The values at ``path`` (:func:`record_paths`) of each row, null where a row has none."""
    if len(path) == 1:
        return [row.get(path[0]) for row in rows]
    found = []
    for row in rows:
        value: Any = row
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        found.append(value)
    return found


def _is_nested(name: Any) -> bool:
    """Whether a column of :func:`_flattened`'s json_normalize is a key inside an object."""
    return isinstance(name, str) and _NESTED in name


def _prefixes(name: str) -> list[str]:
    """Every object on the way to ``name``, itself too: ``a`` and ``a<sep>b`` for ``a<sep>b``."""
    parts = name.split(_NESTED)
    return [_NESTED.join(parts[:i]) for i in range(1, len(parts) + 1)]


def _grid(rows: list[list[Any]], key: str | None = None, fields: dict[str, Any] | None = None) -> Table:
    """A grid's table: its columns named by its first row when that row is distinct texts as wide
    as the grid (a sheet's header), else numbered from 0 as pandas numbers them."""
    width = max(map(len, rows))
    first = rows[0]
    header = (
        len(rows) > 1
        and len(first) == width
        and all(isinstance(cell, str) and cell for cell in first)
        and len(set(first)) == width
    )
    names = list(first) if header else list(range(width))
    return Table("grid", rows, key, fields or {}, names, start=int(header))


def find_table(data: Any, *, one_row: bool = False) -> Table:
    """Where ``data`` keeps its table, or :class:`NotTabularError` ("not tabular: ...") saying why
    it has none.

    Accepted shapes, in order:
    1. a list of objects (records; nested objects are flattened later);
    2. an object with column names and rows of values (``{"columns": ["id", "name"], "rows": [[1,
       "Ann"], ...]}``, as SQL servers answer; see :func:`split_keys`), other keys beside them;
    3. rows of plain values, each a list, alone or as an object's one list (``{"range": "A1:C3",
       "values": [["region", "q1"], ["north", 10]]}``, a spreadsheet's cells; see :func:`grid_key`):
       the first row names the columns when it is distinct texts, else they are numbered;
    4. an object with exactly one list that holds records (``{"rows": [...], "total": 3}``, also
       the SDK's ``{"result": [...]}`` wrapper), other keys beside it, lists of plain values too
       (Datasette's ``{"columns": [...], "rows": [{...}]}``: see :func:`_records_beside`);
    5. an object of equally long lists (columns), or of objects under the same row numbers (pandas'
       ``df.to_dict()``, see :func:`_numbered_columns`);
    6. an envelope: an object with no rows of its own, exactly one of whose objects (or lists
       of one object) holds a table by these rules (an API's ``{"success": true, "data": {...}}``,
       Elasticsearch's ``hits.hits`` beside ``_shards``; see :func:`_envelope`), the values on the
       way beside it; when several do, it is several tables;
    7. with ``one_row`` (what ``result.df`` asks for): a single object without tables in it
       (``{"temperature": 22, "where": {"city": ...}}``) is one row, and a list of plain values
       (a tool's ``list[str]``, unwrapped from the SDK's ``{"result": [...]}``) is one ``value``
       column. Neither is table-*shaped*, so displays still show them as JSON.

    An object that holds several tables is not one table (:func:`several_tables`): ``.dfs`` gives each.
    """
    return _find_table(data, one_row, _ENVELOPES)


#: How many envelopes :func:`find_table` opens, one inside the other (DBHub's answer takes two): a
#: server's 3,000 nested objects must not take it that deep.
_ENVELOPES = 4


def _find_table(data: Any, one_row: bool, envelopes: int) -> Table:
    if _is_records(data):
        return Table("records", data)
    split = split_keys(data)
    if split is not None:
        return _names_and_rows(data, *split)
    _refuse_ragged_rows(data)
    if _is_grid(data):
        return _grid(data)
    key = grid_key(data)
    if key is not None:
        return _grid(data[key], key, {k: v for k, v in data.items() if k != key})
    if isinstance(data, dict) and data:
        by_number = _numbered_columns(data)
        if by_number is not None:
            return Table("columns", by_number)
        inside = _envelope(data, envelopes - 1) if envelopes else None
        if inside is not None:
            return inside
        lists = [k for k, v in data.items() if isinstance(v, list)]
        key = _one_records_key(data, lists)
        if key is not None:
            return _records_beside(data, key)
        if len(lists) == len(data) and not any(v and _is_records(v) for v in data.values()):
            lengths = {len(v) for v in data.values()}
            if len(lengths) == 1:
                return Table("columns", data)
            raise NotTabularError(f"not tabular: the columns have different lengths {sorted(lengths)}")
        tables = table_keys(data)
        if len(tables) > 1:  # say which, and how to get them
            raise several_tables([((key,), Table("records", data[key])) for key in tables])
        if one_row and not tables:
            return Table("one row", data)
    if one_row and isinstance(data, list) and data and _plain(data):
        return Table("values", data)
    raise NotTabularError(
        f"not tabular: got {_describe(data)}; expected a list of objects, an object with one list of "
        "objects, column names with rows, rows of values, an object of equally long lists, or one "
        "object (use .data for the raw value)"
    )


def _numbered_columns(data: dict[str, Any]) -> dict[str, list[Any]] | None:
    """Columns from pandas' own JSON, ``df.to_dict()`` / ``df.to_json()`` (``{"region": {"0":
    "north", "1": "south"}, "q1": {"0": 10, "1": 7}}``), which Python servers return for a
    DataFrame: every value an object of plain values under the same row numbers. The numbers
    become an ``index`` column unless they are 0, 1, 2... in order."""
    inner = list(data.values())
    if not all(type(v) is dict and v for v in inner):
        return None
    labels = list(inner[0])
    if not all(type(k) is str and k.isdigit() for k in labels) or any(
        v.keys() != inner[0].keys() for v in inner
    ):
        return None
    if not all(_plain(v.values()) for v in inner):
        return None
    columns = {str(name): [v[k] for k in labels] for name, v in data.items()}
    if labels != [str(i) for i in range(len(labels))] and "index" not in columns:
        columns = {"index": [int(k) for k in labels], **columns}
    return columns


def _names_and_rows(data: dict[str, Any], names_key: str, rows_key: str) -> Table:
    """A table written as column names and rows (:func:`split_keys`), a name given twice numbered
    (:func:`_distinct`), the other keys beside it; pandas' ``orient="split"`` row labels (its
    ``index`` beside ``columns`` and ``data``) are the frame's index, as ``pandas.read_json`` reads them."""
    rows = data[rows_key]
    names, notes = _distinct(_column_names(data[names_key], distinct=False) or [], names_key)
    beside = {k: v for k, v in data.items() if k not in (names_key, rows_key)}
    labels = beside.get("index") if (names_key, rows_key) == ("columns", "data") else None
    index = None
    if type(labels) is list and len(labels) == len(rows) and _plain(labels):
        del beside["index"]
        index = None if labels == list(range(len(rows))) else labels  # 0, 1, 2...: pandas' own
    return Table("names and rows", rows, rows_key, beside, names, notes=tuple(notes), index=index)


Step = tuple[str | int, ...]


def path_text(path: Sequence[str | int]) -> str:
    """Keys as a person reads a path: ``data.statements[0].rows``."""
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path).lstrip(".")


def several_tables(found: list[tuple[Step, Table]]) -> NotTabularError:
    """The error for several tables in one object, none of them *the* table: its ``found`` has
    each, with the keys down to the value it is the one table of (:func:`nested_tables`). No
    class of its own: it is a :class:`NotTabularError` like any other to a person."""
    wheres = [_full_where(step, table) for step, table in found]
    picks = ", ".join(
        ".data" + "".join(f"[{k!r}]" for k in (*step, *table.at, *_key(table))) for step, table in found
    )
    error = NotTabularError(
        f"not tabular as one table: it holds several tables ({', '.join(wheres)}); use .dfs, a dict "
        f"of DataFrames by where each is (e.g. result.dfs[{wheres[0]!r}]), or one of {picks}"
    )
    error.found = found  # type: ignore[attr-defined]
    return error


def _found(error: NotTabularError) -> list[tuple[Step, Table]] | None:
    """The tables of a :func:`several_tables` error; None for any other."""
    return getattr(error, "found", None)


def _key(table: Table) -> tuple[str, ...]:
    return (table.key,) if table.key is not None else ()


def _full_where(step: Step, table: Table) -> str:
    return path_text([*step, *table.at, *_key(table)])


def _branches(data: dict[str, Any], envelopes: int) -> list[tuple[Step, Table]]:
    """The tables inside the objects among ``data``'s values (an object, or a list of one object),
    each with the keys down to it; several inside one of them are each there."""
    found: list[tuple[Step, Table]] = []
    for key, value in data.items():
        step: Step = (key,)
        if type(value) is list and len(value) == 1 and type(value[0]) is dict:
            step, value = (key, 0), value[0]
        if type(value) is not dict:
            continue
        try:
            table = _find_table(value, False, envelopes)
        except NotTabularError as error:
            found += [((*step, *inner), table) for inner, table in _found(error) or ()]
            continue
        if _opens(table):
            found.append((step, table))
    return found


def _opens(table: Table) -> bool:
    """Whether a table inside an object is one to open it for: not a tree's one node (rows that
    hold rows under the same key, a directory's ``children``), nor one list of anything as
    "columns"."""
    if table.shape == "records" and any(type(row.get(table.key)) is list for row in table.source):
        return False
    return table.shape != "columns" or (len(table.source) > 1 and all(map(_plain, table.source.values())))


def _envelope(data: dict[str, Any], envelopes: int) -> Table | None:
    """The table inside an envelope, with the envelope's other values as its fields (a name both
    use is given its path): DBHub answers a query with ``{"success": true, "data": {"statements":
    [{"sql": ..., "rows": [...], "count": 5}], "source_id": ...}}``, Elasticsearch with
    ``{"took": 3, "_shards": {...}, "hits": {"total": {...}, "hits": [...]}}``, Solr with
    ``{"responseHeader": {...}, "response": {"docs": [...]}}``, Open-Meteo with ``hourly_units``
    beside the ``hourly`` columns; ``.df`` was one row holding it all. ``envelopes`` more may be
    opened inside. Rows of the object's own come first (:func:`_one_records_key`); several tables
    inside are :func:`several_tables`, not one row with the tables in its cells."""
    found = _branches(data, envelopes)
    if not found:
        return None
    opened = {step[0] for step, _ in found}
    if any(k not in opened and type(v) is list and v and _is_records(v) for k, v in data.items()):
        return None
    if len(found) > 1:
        raise several_tables(found)
    [(step, table)] = found
    fields = {k: v for k, v in data.items() if k != step[0]}
    for name, v in table.fields.items():
        fields[name if name not in fields else ".".join(map(str, [*step, *table.at, name]))] = v
    return replace(table, fields=fields, at=(*step, *table.at))


def _one_records_key(data: dict[str, Any], lists: list[str]) -> str | None:
    """The key of an object's one list of records when its other lists hold plain values (a
    query's ``columns`` beside its ``rows``, a ``warnings`` list): those are fields, not tables. An
    empty list beside may be a table with no rows yet (a graph's ``relations``), so it is none."""
    records = [k for k in lists if data[k] and _is_records(data[k])]
    if len(records) != 1:
        return None
    others = (data[k] for k in lists if k != records[0])
    return records[0] if all(v and _plain(v) for v in others) else None


def _records_beside(data: dict[str, Any], key: str) -> Table:
    """The records at ``key`` with the object's other fields; a list of column names that names
    the rows' keys (Datasette's ``{"columns": [...], "rows": [{...}]}``) orders the columns, keeps
    those that no row has a value for, and is not shown as a field."""
    rows = data[key]
    fields = {k: v for k, v in data.items() if k != key}
    for names_key in _NAMES_KEYS:
        names = _column_names(fields.get(names_key))
        if names is not None and all(map(set(names).issuperset, rows)):
            del fields[names_key]
            return Table("records", rows, key, fields, names)
    return Table("records", rows, key, fields)


def is_one_table(data: Any) -> bool:
    """Whether ``data`` is one table (see :func:`find_table`) and no tree (:meth:`Table.is_tree`)."""
    try:
        return not find_table(data).is_tree()
    except NotTabularError:
        return False


def nested_tables(data: Any) -> list[tuple[str, Step]]:
    """The tables deeper inside an object that has none at its top (:func:`table_keys`), each as
    where it is (``data.items``) and the keys down to the value it is the one table of; one that
    is ``data``'s own table (inside an envelope) has no keys. None for anything else."""
    if not isinstance(data, dict) or table_keys(data):
        return []
    try:
        table = find_table(data)
    except NotTabularError as error:
        return [(_full_where(step, table), step) for step, table in _found(error) or ()]
    return [(table.where, ())] if table.at else []


def _value_at(data: Any, keys: Step) -> Any:
    for key in keys:
        data = data[key]
    return data


def to_dataframes(data: Any, *, schema: Any = None, at: Sequence[str | int] = ()) -> dict[str, Any]:
    """Every table inside an object, by key, as DataFrames (what ``result.dfs`` gives); tables
    deeper in (``{"data": {"items": [...]}, "meta": {...}}``) by where they are (``data.items``)."""
    tables = table_keys(data)
    if tables:
        return {key: to_dataframe(data[key], schema=schema, at=[*at, key]) for key in tables}
    nested = nested_tables(data)
    if not nested:
        raise NotTabularError(f"no tables in it: got {_describe(data)}; use .df (or .data for the raw value)")
    return {
        where: to_dataframe(_value_at(data, keys), schema=schema, at=[*at, *keys]) for where, keys in nested
    }


def to_dataframe(data: Any, *, limit: int | None = None, schema: Any = None, at: Sequence[str] = ()) -> Any:
    """``data`` as a ``pandas.DataFrame`` (see :func:`find_table` and :meth:`Table.frame`), its
    numbers and times written as text read as such (:func:`text_types`). ``schema``: the JSON
    Schema of the value ``data`` is at the keys ``at`` of (a tool's outputSchema).

    The plain fields beside the rows (``{"mean": 1.5, "by_group": [...]}``) are the frame's
    ``attrs``: the table alone dropped them. What had to change for it to be a table a person can
    use and display (a name given twice, half of a character) is a :class:`FrameWarning`."""
    table = find_table(data, one_row=True)
    frame, notes = table.frame_and_notes(limit)
    if table.count == 0 and not len(frame.columns) and schema is not None:
        frame = _declared_columns(texttypes.column_schemas(schema, _schema_path(table, at)), frame)
    typed = text_types(table, schema=schema, at=at)
    if typed:
        frame = texttypes.read(frame, typed)
    if mend_halves(frame):
        notes.append(f"it held half of a character (an unpaired UTF-16 surrogate), now \ufffd; {_AS_SENT}")
    if notes:
        warnings.warn(f"result.df: {'; '.join(notes)}", FrameWarning, stacklevel=_callers_level())
    frame.attrs.update((k, v) for k, v in table.fields.items() if _small_plain(v))
    return frame


def _declared_columns(declared: dict[str, Any], frame: Any) -> Any:
    """An empty table with the columns its rows' schema declares, in its order (a nested object's
    keys as ``a.b``, as rows would give them): ``[]`` from a tool ``-> list[Row]`` was a frame of
    no columns, and ``df["id"]`` a KeyError for a query that found nothing."""
    import pandas as pd

    parents = {other[:i] for other in declared for i, c in enumerate(other) if c == "."}  # "a" of "a.b"
    names = [name for name in declared if name not in parents]
    return pd.DataFrame(columns=names) if names else frame


#: How many values an object beside the rows may hold and still be one of the frame's ``attrs``:
#: pandas copies ``attrs`` into every frame it derives from this one.
_ATTR_VALUES = 100


def _small_plain(value: Any) -> bool:
    """A plain value, or a small object of them (a ``meta`` of page numbers, Elasticsearch's
    ``_shards``): what ``df.attrs`` keeps of the fields beside the rows. Lists stay in ``.data``."""
    if _is_scalar(value):
        return True
    if type(value) is not dict:
        return False
    stack, count = [value], 0
    while stack:
        for inner in stack.pop().values():
            count += 1
            if count > _ATTR_VALUES or not (_is_scalar(inner) or type(inner) is dict):
                return False
            if type(inner) is dict:
                stack.append(inner)
    return True


_AS_SENT = "result.data has the values as sent"

#: mcpnb's own folder: a warning points past the frames in it, at the line that asked for the table.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _callers_level() -> int:
    """The ``stacklevel`` that makes a warning raised by the function calling this point at the
    first caller outside mcpnb: ``result.df``, ``result.dfs`` (through ``to_dataframes`` and,
    before Python 3.12, its comprehension's frame) and ``to_dataframe`` called directly all
    reach the user's line by different depths, so no fixed number is right for all."""
    frame, level = sys._getframe(2), 2  # the caller of the function that warns
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def mend_halves(frame: Any) -> bool:
    """Put U+FFFD for each half of a character (an unpaired UTF-16 surrogate, a cut emoji) in the
    texts and column names of ``frame``, and say whether there was one: no notebook can show one
    (UTF-8 has none), and a DataFrame that cannot be displayed is a trap. Only columns of text are
    looked at, each at C speed (an ASCII column of 100k rows in a few ms)."""
    import pandas as pd
    from pandas.api.types import is_object_dtype

    from mcpnb.client.results import displayable

    found = False
    names = [displayable(n)[0] if type(n) is str else n for n in frame.columns]
    if names != list(frame.columns):
        frame.columns, found = names, True
    for i, dtype in enumerate(frame.dtypes):
        if not (is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype)):  # numbers, times: no text
            continue
        values = frame.iloc[:, i].to_numpy(dtype=object)
        if _has_halves(values):
            mended = [displayable(v)[0] if type(v) is str else v for v in values]
            frame.isetitem(i, pd.Series(mended, index=frame.index, dtype=dtype))
            found = True
    return found


def _has_halves(values: Any) -> bool:
    """Whether a column's texts hold half of a character: all ASCII (the common case) answers at C
    speed; else the texts are joined and encoded once."""
    try:
        if all(map(str.isascii, values)):
            return False
    except TypeError:  # a null or a number among the texts
        pass
    joined = "".join([v for v in values if type(v) is str])
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_SAMPLE = 50  # rows read to find the columns that may be numbers or times written as text


def _schema_path(table: Table, at: Sequence[str | int]) -> list[str | int]:
    """The keys from the value a schema describes down to ``table``'s rows."""
    return [*at, *table.at, *_key(table)]


def text_types(table: Table, *, schema: Any = None, at: Sequence[str | int] = ()) -> dict[Any, str]:
    """The columns of ``table`` that ``.df`` reads as numbers and times (:mod:`mcpnb.client.texttypes`),
    a nested object's (``a.when``) too; ``schema`` (see :func:`to_dataframe`) may give a column's
    text a form of its own.

    The first rows say which columns may be: those that are such texts there, and those they
    have no value of (a column only later rows have, or null at first). Only those are read
    whole: a display of 100k rows of numbers or names builds no column to find none."""
    declared = texttypes.column_schemas(schema, _schema_path(table, at)) if schema is not None else None
    if table.shape in ("records", "one row"):
        rows = table.source if table.shape == "records" else [table.source]
        paths = table.paths
        head = {name: path_values(rows[:_SAMPLE], path) for name, path in paths.items()}
        maybe = _maybe_typed(head, declared)
        columns = {name: path_values(rows, paths[name]) for name in maybe}
    else:
        maybe = _maybe_typed(table.columns(limit=_SAMPLE), declared)
        columns = table.columns(names=maybe) if maybe else {}
    return texttypes.kinds(columns, declared) if columns else {}


def _maybe_typed(head: dict[Any, list[Any]], declared: dict[str, Any] | None) -> list[Any]:
    """The columns whose first values are numbers or times written as text, or all null."""
    typed = texttypes.kinds(head, declared)
    return [name for name, values in head.items() if name in typed or all(v is None for v in values)]


def _flat(rows: list[dict[str, Any]]) -> bool:
    return not any(type(value) is dict for row in rows for value in row.values())


def row_count(data: Any) -> int:
    """How many rows :func:`to_dataframe` would give, without building them."""
    return find_table(data, one_row=True).count


def is_tabular(data: Any) -> bool:
    """Cheap shape check without importing pandas."""
    try:
        find_table(data)
    except NotTabularError:
        return False
    return True
