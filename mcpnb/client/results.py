"""ToolResult: what one ``tools/call`` gave back, kept whole.

The SDK validates ``structuredContent`` against the tool's ``outputSchema`` and raises on a mismatch,
dropping the payload. We switch that off and check leniently here instead: the data always reaches
the person, and a mismatch is reported next to it (``schema_error``).

So it goes with MCP's own schema for a result: a content block the SDK cannot read (a type MCP does
not define, a field it requires missing) or a 2025-11-25 ``structuredContent`` that is not an
object made the SDK refuse the whole result, the good blocks with it. :mod:`mcpnb.client.lean`
keeps such a result readable (:func:`~mcpnb.client.contents.readable_content`) and what it changed becomes
``ToolResult.warnings``, shown with the result as a mismatch is.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpnb.client.contents import media_problems, pick, wire
from mcpnb.client.printable import printable

if TYPE_CHECKING:  # for the annotations only (an editor's completion of result.df.<Tab>): no import
    import pandas as pd

#: Said with a failed call whose text quoted a secret of its server's config.
SECRET_IN_ERROR = (
    "the error quoted a secret of this server's settings: shown as *** (result.raw has it as sent)"
)

#: The longest text a display reads as a table (:attr:`ToolResult.text_table`): a display must not
#: parse a huge answer that it shows only the start of. JSON reads in ~0.1 s a MB; rows written as
#: Python writes them take ~1 s a MB (``ast.literal_eval``), so a display reads those up to less.
TEXT_TABLE_LIMIT = 8_000_000
PYTHON_TABLE_LIMIT = 500_000

#: The attribute of the SDK's ``CallToolResult`` that lists what was changed so the SDK could read
#: it (set by :mod:`mcpnb.client.lean`); :meth:`ToolResult.from_sdk` makes it ``warnings``.
REPAIRED = "_mcpnb_repaired"


def _repaired(result: Any) -> Any:
    """What :mod:`mcpnb.client.lean` changed on ``result`` (:data:`REPAIRED`), else None.

    Read from the instance's ``__dict__``, where ``setattr`` puts it: on a pydantic model a missing
    attribute goes through pydantic's ``__getattr__``, which raises inside (µs on every call)."""
    held = getattr(result, "__dict__", None)
    if held is not None and REPAIRED in held:
        return held[REPAIRED]
    if held is not None and hasattr(type(result), "__pydantic_fields__"):
        return None  # a model keeps what was set on it in its __dict__: nothing was
    return getattr(result, REPAIRED, None)


def _media_problems(content: list[Any]) -> list[str]:
    """:func:`media_problems`, looked at only when a block is not text: a result of text blocks
    (nearly every call's) has no image or sound to check, and is not walked block by block."""
    for block in content:
        if getattr(block, "type", None) != "text":  # a dict block too: the full check reads it
            return media_problems(content)
    return []


def _unchecked(schema: Any, structured: Any, is_error: bool) -> list[str]:
    """What is said with a result whose outputSchema fans out (:func:`~mcpnb.client.schemacost.fans_out`):
    it is not checked here, since over data that fails it the validator would follow each of its
    paths (a hostile server's 2**40) holding the GIL, and the kernel froze. The data is shown as
    sent, neither passed nor failed."""
    if schema is None or structured is None or is_error:
        return []
    from mcpnb.client.schemacost import fans_out

    if not fans_out(schema):
        return []
    from mcpnb.client.schemacheck import TOO_LARGE

    return [f"structuredContent not checked against the tool's outputSchema: {TOO_LARGE}; shown as sent"]


@dataclass(eq=False)
class ToolResult:
    """The outcome of a tool call. Rendering lives in :mod:`mcpnb.notebook.render`; this is the data."""

    server: str
    tool: str
    content: list[Any]
    structured: Any = None
    is_error: bool = False
    elapsed: float = 0.0
    output_schema: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    sdk_result: Any = field(default=None, repr=False)
    transcript: Any = field(default=None, repr=False)  # the call's traffic, when it was asked for
    #: The last log notifications of the call: the newest 200, within a size budget (a message's data
    #: past 2,000,000 characters cut, saying how much: :mod:`mcpnb.client.call_logs`).
    logs: list[Any] = field(default_factory=list, repr=False)
    logs_dropped: int = 0  # earlier log notifications that were not kept (by count or by size)
    #: The server's questions answered by a policy or the call's answers, not a person (how and why).
    answered_without_asking: list[str] = field(default_factory=list, repr=False)
    #: The tool's description says its text is Markdown (``ToolInfo.answers_in_markdown``).
    markdown: bool = field(default=False, repr=False)
    #: What the server sent that MCP does not allow, and how it was kept (a block of an unknown
    #: type as a text block holding its JSON, say); and what went wrong around the call that the
    #: result alone does not show (mcpnb's loop held by an in-process tool that blocks,
    #: :mod:`mcpnb.client.stalls`): one line each, shown with the result.
    warnings: list[str] = field(default_factory=list, repr=False)

    @classmethod
    def from_sdk(
        cls,
        server: str,
        tool: str,
        result: Any,
        *,
        elapsed: float,
        output_schema: dict[str, Any] | None,
        markdown: bool = False,
    ) -> ToolResult:
        return cls(
            server=server,
            tool=tool,
            content=list(result.content),
            structured=result.structured_content,
            is_error=bool(result.is_error),
            elapsed=elapsed,
            output_schema=output_schema,
            meta=dict(result.meta) if result.meta else None,
            sdk_result=result,
            markdown=markdown,
            warnings=[
                *(_repaired(result) or ()),
                *_media_problems(result.content),
                *_unchecked(output_schema, result.structured_content, bool(result.is_error)),
            ],
        )

    def hide_in_error(self, safe: Any) -> None:
        """A failed call's text with the secrets of its server's config hidden (``safe``:
        :meth:`Connection.safe <mcpnb.client.connection.Connection.safe>`): a tool's error often
        quotes what it was given (``bad key <the API_KEY it was started with>``), and an error
        shows in the cell and the saved notebook. What a call that worked returns is its data,
        left as sent; ``raw`` keeps the error as sent too."""
        if not self.is_error:
            return
        hidden = [
            b.model_copy(update={"text": safe(b.text)}) if getattr(b, "type", None) == "text" else b
            for b in self.content
        ]
        if any(new.text != old.text for new, old in zip(hidden, self.content, strict=True) if new is not old):
            self.content = hidden
            self.warnings.append(SECRET_IN_ERROR)

    @property
    def label(self) -> str:
        """``server.tool``; the server alone for an attached task's result (its tool is unknown)."""
        return f"{self.server}.{self.tool}" if self.tool else self.server

    @cached_property
    def raw(self) -> dict[str, Any]:
        """The result in its wire shape (camelCase keys), as the SDK's model holds it: fields the
        server left out but the protocol defaults (``isError: false``) appear too. The exact JSON a
        server sent is in a call's transcript (``transcript=True``, ``%mcp call --transcript``)."""
        if self.sdk_result is not None:
            return wire(self.sdk_result)
        out: dict[str, Any] = {"content": [wire(b) for b in self.content], "isError": self.is_error}
        if self.structured is not None:
            out["structuredContent"] = self.structured
        return out

    def json(self) -> dict[str, Any]:
        """The wire JSON, for saving or diffing."""
        return self.raw

    @property
    def text(self) -> str:
        """Every text block, joined by blank lines (what a terminal would print)."""
        return "\n\n".join(b.text for b in self.content if getattr(b, "type", None) == "text")

    @property
    def data(self) -> Any:
        """The structured payload, with the SDK's ``{"result": ...}`` wrapper for lists/primitives removed."""
        return self.structured["result"] if self.data_path else self.structured

    @property
    def data_path(self) -> list[str]:
        """The keys from ``structured`` down to :attr:`data`: ``["result"]`` where the SDK wrapped
        a list or a plain value (and the outputSchema says so, or says nothing), else none."""
        s = self.structured
        if isinstance(s, dict) and set(s) == {"result"}:
            props = (self.output_schema or {}).get("properties")
            if props is None or set(props) == {"result"}:
                return ["result"]
        return []

    @cached_property
    def schema_error(self) -> str | None:
        """Why ``structured`` does not match ``output_schema`` (None when it does or nothing to check).
        What broke MCP's own schema for a result is :attr:`warnings`, not this."""
        if self.output_schema is None or self.is_error:
            return None
        if self.structured is None:
            return "the tool declares an outputSchema but returned no structuredContent"
        if _unchecked(self.output_schema, self.structured, self.is_error):  # said in warnings
            return None
        from mcpnb.client.schemacheck import schema_problem

        return schema_problem(self.structured, self.output_schema)

    @property
    def schema_valid(self) -> bool | None:
        """True/False against the declared ``outputSchema``; None when the tool declares none, or
        one too large to check here (:attr:`warnings` says so)."""
        if self.output_schema is None or self.is_error:
            return None
        if _unchecked(self.output_schema, self.structured, self.is_error):
            return None
        return self.schema_error is None

    @property
    def df(self) -> pd.DataFrame:
        """The structured payload as a pandas DataFrame: records, columns, one object as one row
        (nested keys flattened to ``a.b``), or plain values as one ``value`` column. A payload
        holding several tables says to use ``.dfs``. A tool without ``structuredContent`` whose
        text is one JSON object or array (older servers' way), or a Python list or dict (the
        SQLite reference server's rows), is read from its text. Columns of numbers and times written
        as text (SQL servers' NUMERIC, pydantic's ``Decimal`` and ``datetime``) are numbers and
        times where every value reads exactly, unless the outputSchema declares them plain strings
        (see :mod:`mcpnb.client.texttypes`). The fields beside the rows (an estimate's numbers next
        to its factors) are in ``df.attrs``, their plain values; ``.data`` has them all. A failed
        call (``isError``) has no table: ``.df`` raises, whatever it sent."""
        from mcpnb.client.frames import to_dataframe

        data, schema = self._tabular()
        return to_dataframe(data, schema=schema, at=self.data_path)

    @property
    def dfs(self) -> dict[str, pd.DataFrame]:
        """Each table inside the structured payload (a key whose value is a list of objects), as a
        dict of DataFrames by key."""
        from mcpnb.client.frames import to_dataframes

        data, schema = self._tabular()
        return to_dataframes(data, schema=schema, at=self.data_path)

    @cached_property
    def text_data(self) -> list[Any] | dict[str, Any] | None:
        """The list or object a result's one text block holds, read once for the displays: JSON,
        rows as Python writes them (as SQL servers answer a query) or one Markdown table. None for
        anything else: a result with structured content of its own (not just the text again),
        text over :data:`TEXT_TABLE_LIMIT` characters (``.df`` still reads it)."""
        if self.is_error or len(self.content) != 1 or pick(self.content[0], "type") != "text":
            return None
        if self.structured is not None and self.content_wrapper() is None:
            return None
        text = pick(self.content[0], "text")
        if not isinstance(text, str) or len(text) > TEXT_TABLE_LIMIT:  # odd wire content: no table
            return None
        return _table_in_text(text, python=len(text) <= PYTHON_TABLE_LIMIT)

    @cached_property
    def text_table(self) -> list[Any] | dict[str, Any] | None:
        """:attr:`text_data` when it is one table and no tree (cells may hold JSON, as a SQL row's
        JSONB column does, but not rows of their own, as a directory's ``children`` do): displays
        show it as a table, the text one click away."""
        from mcpnb.client.frames import is_one_table

        found = self.text_data
        return found if found is not None and is_one_table(found) else None

    def content_wrapper(self) -> str | None:
        """The one key of ``structuredContent`` when it only wraps the content blocks (the
        filesystem reference server's ``{"content": <the text>}``, or the blocks themselves): it
        says nothing they do not, so displays, models and ``.df`` take the content instead."""
        data = self.structured
        if self.is_error or not isinstance(data, dict) or len(data) != 1:
            return None
        [(key, value)] = data.items()
        if isinstance(value, str):
            texts = [pick(b, "text") for b in self.content if pick(b, "type") == "text"]
            return key if texts and value in ("\n".join(texts), "".join(texts)) else None
        if isinstance(value, list) and value and len(value) == len(self.content):
            return key if all(map(_is_block, value, map(wire, self.content))) else None
        return None

    def _tabular(self) -> tuple[Any, dict[str, Any] | None]:
        """What ``.df`` reads, and the schema that describes it (the outputSchema for the
        structured payload; none for a table read from text): the structured payload, else
        text that is JSON; else why neither. A payload that only wraps the text (the filesystem
        reference server's ``{"content": <the text>}``) is read as that text: its JSON is the table
        (``directory_tree``'s entries). A table a display already read in the text
        (:attr:`text_table`) is not read again."""
        from mcpnb.client.frames import NotTabularError

        text = self.text.strip()
        if self.is_error:  # what a failed call sent is no table to carry on with, rows or not
            raise NotTabularError(f"{self.label} failed, so there is no table: {self._error_words()}")
        shown = self.__dict__.get("text_table")  # cached_property's own store: set once displayed
        if shown is not None:
            return shown, None
        if self.structured is not None:
            wrapper = self.content_wrapper()
            wrapped = self.structured[wrapper] if wrapper is not None else None
            found = _table_in_text(wrapped) if isinstance(wrapped, str) else None
            return (found, None) if found is not None else (self.data, self.output_schema)
        found = _table_in_text(self.text)  # unstripped: a fixed-width table may start with spaces
        if found is not None:
            return found, None
        if text:
            said = "only text (read .text)"
        elif self.content:  # an image, a resource: its blocks are what it returned
            kinds = sorted({str(getattr(b, "type", "unknown")) for b in self.content})
            said = f"no text either, only {' and '.join(kinds)} content (read .content)"
        else:
            said = "no text either"
        raise NotTabularError(
            f"not tabular: {self.label} returned no structuredContent, {said}; .df reads "
            "structuredContent, or text that is one JSON object or array"
        )

    def _error_words(self) -> str:
        """A failed call's message in one line, and where what it sent is: its text, else the
        ``error`` or ``message`` of its structured content (the rest of it is in ``.structured``)."""
        if self.structured is None:
            return error_words(self.text)
        said = error_words(self.text or json_head(self.structured, _REPR_JSON)[0])
        return f"{said} (it sent structured content too: result.structured, result.data)"

    def save(
        self, path: str | os.PathLike[str] = ".", *, which: int | None = None, overwrite: bool = False
    ) -> Path:
        """Write the file this result holds to ``path`` and return where it went: an embedded
        resource (an exported workbook, a PDF), an image or audio. ``path`` is a file, or a folder
        (one that exists, or a text ending in ``/``) to write it in under the name its URI gives;
        a different file of that name there is kept unless ``overwrite``.
        ``which``: its index in ``content``, when it holds several."""
        from mcpnb.client.files import files_in, save

        found = files_in(self.content, self.label)
        links = [pick(b, "uri") for b in self.content if pick(b, "type") == "resource_link"]
        if not found and links:  # a link points at a file; the file itself is one read away
            raise ValueError(
                f"result.content holds a link to a resource, not the resource: read it, then save "
                f"that: pool.read({self.server!r}, {links[0]!r}).save({os.fspath(path)!r})"
            )
        return save(found, path, which, "result.content", overwrite=overwrite)

    @cached_property
    def mirrored_texts(self) -> frozenset[int]:
        """Indexes in ``content`` of the text blocks that only repeat the structured content as
        JSON, whole or one list item each (the SDK's and FastMCP's copy for old clients): a display
        shows the data once and folds these into a note."""
        if self.structured is None or self.is_error:
            return frozenset()
        data, found, text_index = self.data, set(), 0
        for i, block in enumerate(self.content):
            if pick(block, "type") != "text":
                continue
            item = data[text_index] if isinstance(data, list) and text_index < len(data) else _MISSING
            if repeats_json(pick(block, "text"), (self.structured, data, item)):
                found.add(i)
            text_index += 1
        return frozenset(found)

    def _only_mirrors(self) -> bool:
        """Whether every text block only repeats the structured content (or there is none): the
        text then says nothing the data does not, and a repr leads with the data."""
        if self.content_wrapper() is not None:  # the payload only wraps the text: the text is it
            return False
        texts = [i for i, b in enumerate(self.content) if pick(b, "type") == "text"]
        return set(texts) <= self.mirrored_texts

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)

    def __repr__(self) -> str:
        status = "error" if self.is_error else "ok"
        badge = {None: "", True: ", schema ✓", False: ", schema ⚠"}[self.schema_valid]
        head = f"<ToolResult {self.label} {status} in {self.elapsed * 1000:.0f} ms{badge}>"
        if self.structured is not None and not self.is_error and self._only_mirrors():
            body = data_summary(self.data)  # the data's shape, not its JSON once more
        else:
            body = _clip(self.text, _REPR_TEXT, "result.text") or (
                _data_head(self.structured) if self.structured is not None else ""
            )
        head, halved_head = displayable(head)
        body, halved = displayable(body)
        notes = [*self.warnings, *([HALF_CHARACTERS] if halved or halved_head else [])]
        said = "".join(  # never unseen
            f"\n({'i' if getattr(note, 'accepted', False) else '!'} {note})"
            for note in [*notes, *self.answered_without_asking]
        )
        return printable(head + ("\n" + body if body else "") + said)  # a server's words, printed


#: Characters of text and of structured JSON a repr shows: print(result) of 1M rows stays a glance.
_REPR_TEXT = 2000
_REPR_JSON = 500

#: Half of a character: an unpaired UTF-16 surrogate, as a JavaScript server sends one when it cuts
#: a string in the middle of an emoji (``"party \\ud83c"``). JSON allows the escape and Python
#: reads it, but no UTF-8 holds it, so a display that carries it cannot be sent to the notebook.
_HALF = re.compile("[\ud800-\udfff]")
HALF_CHARACTERS = (
    "this result holds half of a character (an unpaired UTF-16 surrogate: the server cut a string "
    "inside an emoji); shown as \ufffd, as is each in result.df; result.data and result.text keep "
    "them as sent"
)


def displayable(text: str) -> tuple[str, bool]:
    """``text`` with each half of a character (:data:`HALF_CHARACTERS`) as U+FFFD, and whether
    it held one. Costs nothing on ASCII and one encode on other text: displays are bounded."""
    if text.isascii():  # O(1): CPython knows
        return text, False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _HALF.sub("\ufffd", text), True
    return text, False


def error_words(text: str, limit: int = 200) -> str:
    """A failed call's message in one line: the ``error`` or ``message`` of an error written as a
    JSON object (DBHub's ``{"success": false, "error": "no such table: x", "code": ...}``, whose
    first line is ``{``), else the first line of the text; at most ``limit`` characters."""
    first = text.strip().splitlines()[0] if text.strip() else "no message"
    try:
        data = json.loads(text) if first.startswith(("{", "[")) else None
    except ValueError:
        data = None
    if data is not None:
        said = data.get("error", data.get("message")) if isinstance(data, dict) else None
        said = said.get("message") if isinstance(said, dict) else said
        first = said if isinstance(said, str) and said.strip() else json.dumps(data, ensure_ascii=False)
    first = " ".join(first.split())
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _clip(text: str, limit: int, whole: str) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… {len(text) - limit} more characters ({whole} has all)"


def json_head(value: Any, limit: int, indent: int | None = None) -> tuple[str, bool]:
    """The first ``limit`` characters of ``value`` as JSON, and whether there is more, serialising
    no more than that: the pure-Python encoder yields pieces lazily, where ``json.dumps`` would
    write every row of a large result first."""
    pieces, size = [], 0
    for piece in json.JSONEncoder(default=str, ensure_ascii=False, indent=indent).iterencode(value):
        pieces.append(piece)
        size += len(piece)
        if size > limit:
            return "".join(pieces)[:limit], True
    return "".join(pieces), False


#: Rows and column names a repr shows of a table (``.df`` has them all).
_REPR_ROWS = 5
_REPR_NAMES = 12
_REPR_ROW_CHARS = 200


def data_summary(data: Any) -> str:
    """A repr's glance at structured data: a table's rows × columns, its column names and first
    rows, one line each; else the kind of value (an object's keys) and the start of its JSON."""
    from mcpnb.client.frames import NotTabularError, find_table, table_keys

    try:
        table = find_table(data)
    except NotTabularError:
        table = None
    if table is None or table.count == 0 or table.is_tree():
        return _value_summary(data, table_keys(data))
    head = table.columns(limit=_REPR_ROWS)
    names = list(map(str, table.column_names()))  # .df's, in its order: later rows' columns too
    more_names = f", … {len(names) - _REPR_NAMES} more" if len(names) > _REPR_NAMES else ""
    where = f" under {table.where}" if table.where else ""
    beside = f", beside {_names(list(table.fields))}" if table.fields else ""
    lines = [
        f"{_count(table.count, 'row')} × {_count(len(names), 'column')}{where}{beside} (result.df): "
        + ", ".join(names[:_REPR_NAMES])
        + more_names
    ]
    shown = min(table.count, _REPR_ROWS)
    for i in range(shown):
        row = {name: values[i] for name, values in head.items() if i < len(values)}
        line, cut = json_head(row, _REPR_ROW_CHARS)
        lines.append(line + ("…" if cut else ""))
    if table.count > shown:
        lines.append(f"… {table.count - shown} more rows (result.df has them all)")
    return "\n".join(lines)


def _value_summary(data: Any, tables: list[str]) -> str:
    """An object's keys (its tables named, for ``.dfs``) or a list's length, then its JSON's start."""
    if isinstance(data, dict):
        said = f"object, {_count(len(data), 'key')}: {_names(list(data))}"
        if len(tables) > 1:
            said += f"; tables {', '.join(map(str, tables))} (result.dfs)"
    elif isinstance(data, list):
        said = f"list, {_count(len(data), 'item')}"
    else:  # a plain value says what it is
        return _data_head(data)
    return f"{said}\n{_data_head(data)}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _names(keys: list[Any]) -> str:
    """At most :data:`_REPR_NAMES` names, then how many more."""
    more = f", … {len(keys) - _REPR_NAMES} more" if len(keys) > _REPR_NAMES else ""
    return ", ".join(map(str, keys[:_REPR_NAMES])) + more


def _data_head(value: Any) -> str:
    head, cut = json_head(value, _REPR_JSON)
    return head + "… (result.data has all)" if cut else head


_MISSING = object()

#: Text at least this long is first compared as the servers' own serialization, before any parse.
_COMPARE_FROM = 64 * 1024
_CHUNK = 1 << 20


def repeats_json(text: Any, values: tuple[Any, ...]) -> bool:
    """Whether ``text`` is JSON for one of ``values``.

    A large mirror is first compared with the value serialized the way servers write mirrors
    (pydantic's ``to_json``, as MCPServer and FastMCP do, compact or with the text's indent, which
    is also JavaScript's ``JSON.stringify``): equal text is the same JSON, at the cost of one
    serialization. Parsing the text instead would build a second copy of the whole payload (+330 MB
    at 1M rows). Anything else is parsed and compared, as before.
    """
    from pydantic_core import from_json, to_json  # jiter: a few times faster than json on a 10 MB mirror

    if isinstance(text, str) and len(text) >= _COMPARE_FROM and text[:1] in "{[":
        indent = _indent(text)
        for i, value in enumerate(values):
            if value is _MISSING or any(value is seen for seen in values[:i]):
                continue
            try:
                if _same_text(text, to_json(value, indent=indent)):
                    return True
            except ValueError:  # not serializable as JSON: then compare by parsing below
                continue
    try:
        parsed = from_json(text) if isinstance(text, str) else text
    except ValueError:
        parsed = text
    except TypeError:  # half of a character in it (a cut emoji), which jiter refuses; json reads it
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
    return parsed in values


def _indent(text: str) -> int | None:
    """The indent of pretty-printed JSON (``{\n  "a"`` gives 2), None for compact JSON."""
    if text[1:2] != "\n":
        return None
    second = text[2:66]
    return len(second) - len(second.lstrip(" ")) or None


def _same_text(text: str, serialized: bytes) -> bool:
    if not text.isascii():
        return serialized.decode("utf-8", "replace") == text
    if len(serialized) != len(text):
        return False
    return all(
        text[at : at + _CHUNK].encode("ascii") == serialized[at : at + _CHUNK]
        for at in range(0, len(text), _CHUNK)
    )


def _table_in_text(text: str, *, python: bool = True) -> list[Any] | dict[str, Any] | None:
    """A JSON array or object written as text (older servers' way), or (``python``) a list or dict
    written as Python writes one (``str()`` of rows: single quotes, ``None``), how the SQLite
    reference server (``mcp-server-sqlite``) answers a query; ``ast.literal_eval`` reads literals
    only, never runs code. Or a Markdown table (MarkItDown's answer for a CSV or a sheet), or a
    fixed-width one under a rule of dashes (MLflow's). None for anything else, text nested deeper
    than the parsers go included."""
    import ast

    from mcpnb.client.frames import markdown_rows, ruled_rows

    whole, text = text, text.strip()
    if text[:1] not in ("[", "{"):  # (a fixed-width table's first column may start with spaces)
        found = markdown_rows(text)
        return found if found is not None else ruled_rows(whole)
    for read in (json.loads, ast.literal_eval) if python else (json.loads,):
        try:
            found = read(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        return found if isinstance(found, (list, dict)) else None
    return None


def _is_block(item: Any, block: dict[str, Any]) -> bool:
    """Whether ``item`` says what ``block`` (both in their wire shape) holds."""
    return isinstance(item, dict) and all(block.get(k) == v for k, v in item.items())
