"""``structuredContent``: a table preview when it has a table's shape, else a collapsible JSON view.

Previews stop at the display limit and say how much is hidden; the whole value stays on the result
(``.data``, ``.df``), so truncation never loses data, only screen space.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping
from typing import Any

from mcpnb.client import texttypes
from mcpnb.client.frames import (
    NotTabularError,
    Table,
    find_table,
    is_tabular,
    path_values,
    record_paths,
    table_keys,
    text_types,
)
from mcpnb.client.printable import width
from mcpnb.client.results import json_head
from mcpnb.notebook.render.html import badge, esc, pre, rtl_dir, truncate

_OPEN_LINES = 40  # short JSON starts unfolded; long JSON starts folded


def schema_badge(result: Any) -> tuple[str, str]:
    """(HTML, text) saying whether the data matches the tool's outputSchema; empty when none declared."""
    valid = result.schema_valid
    if valid is None:
        return "", ""
    if valid:
        return badge("✓ outputSchema", "ok", "structured content matches the tool's outputSchema"), "schema ✓"
    error = result.schema_error or "does not match"
    return badge("⚠ outputSchema", "warn", error), f"schema ⚠ {error}"


def _numeric(column: Any) -> bool:
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    return is_numeric_dtype(column) and not is_bool_dtype(column)


def _whole_with_gaps(column: Any) -> bool:
    """A column of whole numbers that pandas made float only because some rows lack the value
    (``[{"id": 1, "count": 3}, {"id": 2}]``): its numbers are shown as the integers they were."""
    if column.dtype.kind != "f":
        return False
    present = column.dropna()
    return 0 < len(present) < len(column) and bool(((present % 1 == 0) & (present.abs() < 2**53)).all())


def _cell(value: Any, whole: bool = False) -> str:
    if isinstance(value, dict | list):  # a JSON cell (a JSONB column, a list of tags) as JSON
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except ValueError:  # circular: still something to read
            return repr(value)
    try:
        missing = value is None or (isinstance(value, float) and math.isnan(value))
    except TypeError:
        missing = False
    if missing:
        return ""
    return str(int(value)) if whole and isinstance(value, float) else str(value)


#: How much of one cell a table shows (``.df`` has it whole): a column of file contents or page
#: texts would otherwise make each row a page, and the saved notebook megabytes.
_CELL_CHARS = 500  # in HTML, its line breaks kept
_CELL_LINES = 10
_CELL_WIDTH = 80  # in the text view, on one line


def _html_cell(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= _CELL_LINES and len(text) <= _CELL_CHARS:
        return text
    return "\n".join(lines[:_CELL_LINES])[:_CELL_CHARS] + "…"


_ESCAPES = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t"})


def _pad(text: str, columns: int, right: bool = False) -> str:
    """``text`` padded to ``columns`` of :func:`width`, on the left when ``right`` (a number)."""
    fill = " " * max(columns - width(text), 0)
    return fill + text if right else text + fill


def _text_cell(text: str) -> str:
    """One line, as pandas writes a cell: a line break as ``\\n``, a tab as ``\\t`` (it jumped to
    the terminal's next tab stop, out of its column), never cut in half."""
    line = text.translate(_ESCAPES)
    if width(line) <= _CELL_WIDTH:
        return line
    shown, used = "", 0
    for char in text:
        piece = char.translate(_ESCAPES)
        if used + width(piece) >= _CELL_WIDTH:
            break
        shown += piece
        used += width(piece)
    return shown + "…"


#: Columns a table shows, the first and the last half of them, as pandas shows 20: 300 columns
#: made a 40 KB table and a 10 KB line of text (``.df`` has them all).
COLUMNS_SHOWN = 20

#: What stands for the columns not shown, in the header and in each row.
_GAP = "…"


def _shown_columns(df: Any, most: int) -> tuple[Any, int]:
    """``df`` with its first and last ``most // 2`` columns when it has more than ``most``, and how
    many were left out between them."""
    hidden = df.shape[1] - most
    if most <= 0 or hidden <= 0:
        return df, 0
    first = (most + 1) // 2
    return df.iloc[:, [*range(first), *range(df.shape[1] - (most - first), df.shape[1])]], hidden


def frame_table(df: Any, numbers: Collection[Any] = (), most: int = COLUMNS_SHOWN) -> tuple[str, str]:
    """(HTML, text) of a DataFrame: text columns left-aligned, numbers right-aligned, and so are
    ``numbers``, columns of numbers written as text, shown as the server wrote them (``12.50``).
    A long cell shows its start (:data:`_CELL_CHARS`), a cell's line breaks stay in HTML. Of more
    than ``most`` columns the first and last few are shown, a ``…`` column between them.

    Not ``DataFrame.to_html``/``to_string``: they right-align text, which is hard to scan.
    """
    df, hidden = _shown_columns(df, most)
    gap_at = (most + 1) // 2 if hidden else None
    columns = [str(c) for c in df.columns]
    numeric = [c in numbers or _numeric(df.iloc[:, i]) for i, c in enumerate(df.columns)]
    whole = [_whole_with_gaps(df.iloc[:, i]) for i in range(df.shape[1])]
    cells = df.itertuples(index=False, name=None)
    rows = [[_cell(v, w) for v, w in zip(row, whole, strict=True)] for row in cells]
    if gap_at is not None:  # one column standing for the hidden ones, as pandas writes "..."
        for line in [columns, numeric, *rows]:
            line.insert(gap_at, _GAP if line is not numeric else False)

    def td(tag: str, text: str, num: bool) -> str:
        if num:
            return f'<{tag} class="mcpnb-num">{esc(text)}</{tag}>'
        if "\n" in text:
            return f'<{tag} class="mcpnb-lines"{rtl_dir(text)}>{esc(_html_cell(text))}</{tag}>'
        return f"<{tag}{rtl_dir(text)}>{esc(_html_cell(text))}</{tag}>"

    head = "".join(td("th", c, n) for c, n in zip(columns, numeric, strict=True))
    body = "".join(
        "<tr>" + "".join(td("td", v, n) for v, n in zip(row, numeric, strict=True)) + "</tr>" for row in rows
    )
    html = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    columns = [_text_cell(c) for c in columns]
    rows = [[_text_cell(v) for v in row] for row in rows]
    widths = [max([width(c), *(width(r[i]) for r in rows)]) for i, c in enumerate(columns)]
    lines = [
        "  ".join(_pad(v, w, n) for v, w, n in zip(line, widths, numeric, strict=True)).rstrip()
        for line in [columns, *rows]
    ]
    return html, "\n".join(lines)


_FIELDS_SHOWN = 20  # fields beside a table: more are counted, not shown
_FIELD_WIDTH = 120  # characters of one field's value


def _field_rows(pairs: list[tuple[str, str]]) -> tuple[str, str]:
    """(HTML, text) of fields written as ``name  value`` lines, the values as given."""
    most = max(width(k) for k, _ in pairs)
    text = "\n".join(f"{_pad(k, most)}  {v}".rstrip() for k, v in pairs)
    rows = "".join(f"<tr><th{rtl_dir(k)}>{esc(k)}</th><td{rtl_dir(v)}>{esc(v)}</td></tr>" for k, v in pairs)
    return f'<table class="mcpnb-fields">{rows}</table>', text


def _fields(fields: dict[str, Any]) -> tuple[str, str]:
    """(HTML, text) of the fields beside a table: one per line, each value in one line."""
    shown = list(fields.items())[:_FIELDS_SHOWN]
    html, text = _field_rows([(str(k), _one_line(v)) for k, v in shown])
    if len(fields) > len(shown):
        note = f"… {len(fields) - len(shown)} more fields (result.data has them all)"
        html += f'<div class="mcpnb-dim">{esc(note)}</div>'
        text += "\n" + note
    return html, text


def _one_line(value: Any) -> str:
    """A field's value in one line of at most ``_FIELD_WIDTH`` characters (a big value is not
    serialised whole to show its start)."""
    if isinstance(value, str):
        text, cut = value[: _FIELD_WIDTH + 1], len(value) > _FIELD_WIDTH
    else:
        text, cut = json_head(value, _FIELD_WIDTH + 1)
    text = " ".join(text.split())  # a value with line breaks keeps to its row
    return text[:_FIELD_WIDTH] + "…" if cut or len(text) > _FIELD_WIDTH else text


def _grid(
    table: Table, limit: int, where: str, typed: Mapping[Any, str] | None = None
) -> tuple[str, str, str, str]:
    """(HTML, text, caption, note under it) of one table; ``where`` gets all its rows. ``typed``:
    its columns of numbers and times written as text (:func:`mcpnb.client.frames.text_types`),
    shown as written (numbers right-aligned); the note says ``where`` reads them as such."""
    # only the rows on screen become a DataFrame: a 100k-row result costs what the preview shows
    shown, renamed = table.frame_and_notes(limit)
    typed = typed or {}
    names = table.column_names()  # every row's: a column only later rows have counts too
    rows, cols = table.count, max(len(names), shown.shape[1])
    more = rows - len(shown)
    caption = f"{rows} row{'s' if rows != 1 else ''} × {cols} column{'s' if cols != 1 else ''}"
    numbers = [name for name, kind in typed.items() if kind == texttypes.NUMBERS]
    shown, integers = _exact_integers(table, shown)
    table_html, table_text = frame_table(shown, [*numbers, *integers])
    notes = [f"… {more} more row{'s' if more != 1 else ''} ({where} has them all)"] if more else []
    if shown.shape[1] > COLUMNS_SHOWN:
        hidden = shown.shape[1] - COLUMNS_SHOWN
        notes.append(f"… {hidden} more column{'s' if hidden != 1 else ''} ({where} has them all)")
    later = [str(name) for name in names if name not in set(shown.columns)]
    if later:
        notes.append(
            f"… {len(later)} more column{'s' if len(later) != 1 else ''} only later rows have: "
            f"{', '.join(later[:5])}{', …' if len(later) > 5 else ''} ({where} has them all)"
        )
    notes += renamed  # two columns pandas would give one name: both kept, as .df keeps them
    if typed:
        notes.append(f"{where} reads {_read_as(typed)} (the server wrote them as text)")
    text = table_text if shown.shape[1] else ""
    return table_html, text, caption if rows else "no rows", "; ".join(notes)


def _exact_integers(table: Table, shown: Any) -> tuple[Any, list[Any]]:
    """``shown`` with each float column that pandas made of integers and nulls holding those
    integers as sent, and those columns' names: a float keeps 53 bits, so ``9007199254740993``
    showed as ``9007199254740992`` (and ``1`` as ``1.0`` beside it). ``.df`` keeps pandas' types."""
    floats = [name for name, dtype in shown.dtypes.items() if dtype.kind == "f"]
    if not floats or shown.columns.has_duplicates:
        return shown, []
    raw = _raw_columns(table, floats, len(shown))
    exact = [
        name
        for name, values in raw.items()
        if len(values) == len(shown)
        and any(type(v) is int and abs(v) >= 2**53 for v in values)
        and all(v is None or type(v) is int for v in values)
    ]
    if not exact:
        return shown, []
    import pandas as pd

    shown = shown.copy()
    for name in exact:  # (a list of ints and None would be read as floats again)
        shown[name] = pd.Series(raw[name], index=shown.index, dtype=object)
    return shown, exact


def _raw_columns(table: Table, names: list[Any], limit: int) -> dict[Any, list[Any]]:
    """The values as sent of the first ``limit`` rows of ``names`` (``.df``'s names, ``a.b`` too)."""
    if table.shape in ("records", "one row"):
        rows = table.source[:limit] if table.shape == "records" else [table.source]
        paths = record_paths(rows, table.names)
        return {name: path_values(rows, paths[name]) for name in names if name in paths}
    return table.columns(names=names, limit=limit)


def _read_as(typed: Mapping[Any, str]) -> str:
    """``"n, spent as numbers and last as times"``: five names at most, then a count."""
    groups = {  # with a zone or without, times are times to a reader
        "numbers": [str(name) for name, kind in typed.items() if kind == texttypes.NUMBERS],
        "times": [str(name) for name, kind in typed.items() if kind != texttypes.NUMBERS],
    }
    said = []
    for word, names in groups.items():
        if names:
            more = f" and {len(names) - 5} more" if len(names) > 5 else ""
            said.append(f"{', '.join(names[:5])}{more} as {word}")
    return " and ".join(said)


def _table(
    table: Table,
    limit: int,
    title: str = "structured content",
    typed: Mapping[Any, str] | None = None,
    data: str = "result.data",
) -> tuple[str, str]:
    """One table, under the fields beside it when there are any: they are often the answer itself
    (an estimate's numbers next to its factors, a query's row count), so they are shown, and a
    line says where they are, ``data`` (the whole value) and ``df.attrs``: ``.df`` is the rows."""
    table_html, table_text, caption, note = _grid(table, limit, "result.df", typed)
    if table.fields:  # the fields first, then the table under its key
        fields_html, fields_text = _fields(table.fields)
        html = (
            f'<div class="mcpnb-dim">{esc(title)}</div>{fields_html}'
            f'<div class="mcpnb-dim">{esc(table.where)} · {esc(caption)}</div>{table_html}'
        )
        text = f"{title}:\n{fields_text}\n{table.where} ({caption}):\n{table_text}"
        note = "; ".join([*([note] if note else []), _rows_and_fields(data)])
    else:
        html = f'<div class="mcpnb-dim">{esc(title)} · {esc(caption)}</div>' + table_html
        text = f"{title} ({caption}):\n{table_text}"
    if note:
        html += f'<div class="mcpnb-dim">{esc(note)}</div>'
        text += "\n" + note
    return html, text


def _rows_and_fields(data: str) -> str:
    """Where a table's rows and the fields beside them are (``data``: where the whole value is)."""
    return f"result.df holds the rows; the other fields are in {data} and df.attrs"


def _tables(data: dict[str, Any], keys: list[str], limit: int, result: Any) -> tuple[str, str]:
    """An object that holds several tables (a graph's entities and relations): its other fields,
    then each table under its key, as ``result.dfs`` gives them."""
    fields = {k: v for k, v in data.items() if k not in keys}
    html, texts = '<div class="mcpnb-dim">structured content</div>', ["structured content:"]
    if fields:
        fields_html, fields_text = _fields(fields)
        html += fields_html
        texts.append(fields_text)
    for key in keys:
        table = find_table(data[key])
        typed = text_types(table, schema=result.output_schema, at=[*result.data_path, key])
        table_html, table_text, caption, note = _grid(table, limit, f"result.dfs[{key!r}]", typed)
        html += f'<div class="mcpnb-dim">{esc(str(key))} · {esc(caption)}</div>{table_html}'
        texts.append(f"{key} ({caption}):" + (f"\n{table_text}" if table_text else ""))
        if note:
            html += f'<div class="mcpnb-dim">{esc(note)}</div>'
            texts.append(note)
    return html, "\n".join(texts)


def _kind(data: Any) -> str:
    if isinstance(data, dict):
        return f"object, {len(data)} key{'s' if len(data) != 1 else ''}"
    if isinstance(data, list):
        return f"list, {len(data)} item{'s' if len(data) != 1 else ''}"
    return "null" if data is None else type(data).__name__


def _json_view(data: Any, limit: int, json_limit: int) -> tuple[str, str]:
    shown_data = data
    notes = []
    if isinstance(data, list) and len(data) > limit:
        shown_data = data[:limit]
        notes.append(f"… {len(data) - limit} more items (result.data has them all)")
    try:  # no more than is shown: a 100k-row object took a second to write, then was cut
        dumped, cut = json_head(shown_data, json_limit, indent=2)
    except (TypeError, ValueError):  # circular or otherwise undumpable: still show something
        dumped, hidden = truncate(repr(shown_data), json_limit)
        cut = bool(hidden)
    if cut:
        notes.append("… the rest of the JSON is not shown (result.data has it all)")
    is_open = " open" if dumped.count("\n") < _OPEN_LINES else ""
    html = (
        f"<details{is_open}><summary>structured content · {esc(_kind(data))}</summary>{pre(dumped)}"
        + "".join(f'<div class="mcpnb-dim">{esc(n)}</div>' for n in notes)
        + "</details>"
    )
    text = f"structured content ({_kind(data)}):\n{dumped}" + "".join("\n" + n for n in notes)
    return html, text


def writes_lines(data: Any, depth: int = 0) -> bool:
    """An object with a text of several lines at its top, or in an object at its top (a database's
    schema, a file's contents beside its metadata, Vizro's ``df_info.general_info``): JSON would
    show that text as one line of ``\\n``."""
    return (
        isinstance(data, dict)
        and 0 < len(data) <= _FIELDS_SHOWN
        and any(
            (isinstance(v, str) and "\n" in v.strip())
            or (depth < _NESTED_LINES and writes_lines(v, depth + 1))
            for v in data.values()
        )
    )


def shows_lines(data: Any) -> bool:
    """Whether :func:`render_structured` draws ``data`` as its lines (:func:`writes_lines`): no
    table in it to draw instead."""
    return writes_lines(data) and not is_tabular(data) and len(table_keys(data)) <= 1


#: How deep an object holding a text of lines is drawn as its lines (one object down).
_NESTED_LINES = 1


def _lines_view(
    data: dict[str, Any], json_limit: int, title: str = "structured content", where: str = "result.data"
) -> tuple[str, str]:
    """(HTML, text) of such an object, in its order: short values as rows, each text with line
    breaks as the block it was written as, a long list or object as indented JSON; at most
    ``json_limit`` characters of those blocks in all (``where`` has them whole)."""
    html, texts, rows, left = [], [f"{title} ({_kind(data)}):"], [], json_limit

    def flush() -> None:
        if rows:
            rows_html, rows_text = _field_rows(rows)
            html.append(rows_html)
            texts.append(rows_text)
            rows.clear()

    for key, value in data.items():
        if isinstance(value, dict) and writes_lines(value, _NESTED_LINES):  # its own lines, indented
            flush()
            inner_html, inner_text = _lines_view(value, max(left, 0), str(key), f"{where}[{key!r}]")
            left -= len(inner_text)
            html.append(f'<div class="mcpnb-nested">{inner_html}</div>')
            head, *body = inner_text.splitlines()
            texts.append("\n".join([head, *("  " + line for line in body)]))
            continue
        nested = isinstance(value, dict | list)
        row = _one_line(value) if nested else value if isinstance(value, str) else json.dumps(value)
        if isinstance(value, str) and "\n" in value.strip():
            shown, hidden = truncate(value.strip("\n"), max(left, 0))
        elif nested and len(row) >= _FIELD_WIDTH:  # cut to a row's width: shown whole instead
            shown, cut = json_head(value, max(left, 0), indent=2)
            hidden = int(cut)
        else:
            rows.append((str(key), row))
            continue
        flush()
        left -= len(shown)
        html.append(f'<div class="mcpnb-dim">{esc(key)}</div>{pre(shown)}')
        texts.append(f"{key}:\n" + "\n".join("  " + line for line in shown.splitlines()))
        if hidden:
            note = (
                f"… {hidden} more characters ({where}[{key!r}] has them all)"
                if isinstance(value, str)
                else f"… the rest is not shown ({where}[{key!r}] has it all)"
            )
            html.append(f'<div class="mcpnb-dim">{esc(note)}</div>')
            texts.append(note)
    flush()
    body = "".join(html)
    summary = f"{esc(title)} · {esc(_kind(data))}"
    return f"<details open><summary>{summary}</summary>{body}</details>", "\n".join(texts)


def render_text_lines(data: dict[str, Any], json_limit: int) -> tuple[str, str, bool]:
    """An object read from a result's text (``ToolResult.text_data``) that holds a text of lines
    (:func:`writes_lines`), shown as such, as the structured section; the JSON text is folded."""
    html, text = _lines_view(data, json_limit, "the server's text, read as JSON", "result.text_data")
    return f'<div class="mcpnb-block">{html}</div>', text, True


def render_text_table(data: Any, limit: int) -> tuple[str, str, bool]:
    """A table read from a result's text (``ToolResult.text_table``), as the structured section."""
    table = find_table(data)
    html, text = _table(
        table, limit, "the server's text, read as a table", text_types(table), "result.text_data"
    )
    return f'<div class="mcpnb-block">{html}</div>', text, True


def render_structured(result: Any, limit: int, json_limit: int) -> tuple[str, str, bool]:
    """The structured section (HTML, text, drawn as a table?), with a schema warning line above it on
    a mismatch."""
    data = result.data
    warn_html = warn_text = ""
    if result.schema_valid is False:
        msg = f"⚠ does not match the tool's outputSchema: {result.schema_error}"
        warn_html = f'<div class="mcpnb-block"><span class="mcpnb-badge mcpnb-warn">{esc(msg)}</span></div>'
        warn_text = msg + "\n"
    try:
        table: Table | None = find_table(data)
    except NotTabularError:
        table = None
    tables = [] if table else table_keys(data)
    drawn = False
    if table or len(tables) > 1:
        try:
            if table:
                typed = text_types(table, schema=result.output_schema, at=result.data_path)
                html, text = _table(table, limit, typed=typed)
            else:
                html, text = _tables(data, tables, limit, result)
            drawn = True
        except Exception:  # a shape pandas still refuses: the JSON view always works
            pass
    if not drawn:
        lines = writes_lines(data)
        html, text = _lines_view(data, json_limit) if lines else _json_view(data, limit, json_limit)
    return warn_html + f'<div class="mcpnb-block">{html}</div>', warn_text + text, drawn
