"""What ``resources/read`` and ``prompts/get`` give back, as data: ``pool.read`` and ``%mcp read``
return a :class:`ResourceContents`, ``pool.prompt`` and ``%mcp prompt`` a :class:`PromptMessages`.

Each is the SDK result's list (contents, messages) with ``.text``, and renders in a notebook as the
magic shows it; the SDK's result is ``.sdk_result``, and its other fields read through.

Also what every content holder shares: reading a block as a model or its wire dict (:func:`pick`,
:func:`wire`), and a tool result's blocks the SDK cannot read kept as text blocks that hold them
(:func:`readable_content`, which :mod:`mcpnb.client.lean` applies before the SDK reads a result).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import McpnbError, json_problem, validation_problem
from mcpnb.client.printable import printable

if TYPE_CHECKING:
    from mcpnb.client.toolbox.prompts import ModelMessages

#: Media types whose bytes are text a person can read (a server may send text as a base64 blob).
TEXTUAL = re.compile(
    r"^(text/[\w.+-]+|application/([\w.-]+\+)?(json|xml|yaml|x-yaml|toml|javascript|x-sh|sql))\s*(;.*)?$",
    re.IGNORECASE,
)
_REPR_TEXT = 2000

#: Where a text block that stands in for a block the SDK could not read keeps that block as sent
#: (in its ``_meta``): ``result.content[i].meta[AS_SENT]``.
AS_SENT = "mcpnb/as-sent"


def blob_text(blob: Any, mime: Any) -> str | None:
    """A textual blob's text, when its bytes are UTF-8 (else it stays summarised, never mangled)."""
    if not (isinstance(blob, str) and isinstance(mime, str) and TEXTUAL.match(mime)):
        return None
    try:
        return base64.b64decode(blob, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def wire(obj: Any) -> Any:
    """An SDK model in its wire shape (camelCase keys, unset fields left out); anything else as is."""
    dump = getattr(obj, "model_dump", None)
    return dump(mode="json", by_alias=True, exclude_none=True) if dump else obj


def pick(obj: Any, *names: str) -> Any:
    """The first of ``names`` that ``obj`` (a model or its dict) has, or None.

    On a model only its declared fields are read when one of ``names`` is one: the wire spelling
    of a field (``mimeType``) is then an alias that FastMCP, once imported, warns about on every
    read (a notebook showed a deprecation warning under each resource)."""
    if isinstance(obj, dict):
        return next((obj[name] for name in names if obj.get(name) is not None), None)
    fields = getattr(type(obj), "model_fields", None)
    if fields and any(name in fields for name in names):
        names = tuple(name for name in names if name in fields)
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return None


class ContentsError(McpnbError, ValueError):
    """A resource's ``.data`` or ``.df`` has no text to read as asked (binary, several contents,
    no JSON). Both an :class:`McpnbError` and a ``ValueError``, as ``json.loads``' own error is."""


#: Media types ``ResourceContents.df`` reads with pandas, and their separators.
_SEPARATORS = {"text/csv": ",", "application/csv": ",", "text/tab-separated-values": "\t"}


class _Listed(list[Any]):
    """A list of an SDK result's items, the result's other fields read through from ``sdk_result``."""

    sdk_result: Any = None

    def __getattr__(self, name: str) -> Any:
        sdk_result = self.__dict__.get("sdk_result")
        if sdk_result is None or name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(sdk_result, name)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)


class ResourceContents(_Listed):
    """The contents of one resource (``server``, ``uri``); ``.sdk_result`` is the SDK's whole
    result, whose other fields (``meta``, ...) read through, so code written for it keeps working."""

    def __init__(self, server: str, uri: str, contents: list[Any], sdk_result: Any = None) -> None:
        super().__init__(contents)
        self.server, self.uri, self.sdk_result = server, uri, sdk_result

    @property
    def contents(self) -> list[Any]:
        return list(self)

    @property
    def text(self) -> str:
        """Every text content, and every blob whose type is text and whose bytes are UTF-8."""
        texts = [pick(c, "text") for c in self]
        texts = [
            blob_text(pick(c, "blob"), pick(c, "mime_type", "mimeType")) if t is None else t
            for c, t in zip(self, texts, strict=True)
        ]
        return "\n\n".join(t for t in texts if isinstance(t, str))

    @property
    def data(self) -> Any:
        """The resource's JSON as Python values (a config, a list of records), as ``json.load``
        reads a ``.json`` file: a data person's next line after ``%mcp read`` was ``json.loads(r.text)``.
        A resource that is no JSON says so (``.text`` has it as sent)."""
        text = self._one_text("data")
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ContentsError(
                f"{self.server} {self.uri}: {json_problem(text, exc)}; .text has it as sent"
            ) from None

    @property
    def df(self) -> Any:
        """The resource as a pandas DataFrame: CSV and TSV (by their type) as pandas reads them,
        JSON as ``result.df`` reads it (records, columns, one object as one row, the plain fields
        beside the rows in ``df.attrs``), or one Markdown table."""
        from mcpnb.client.frames import NotTabularError, markdown_rows, to_dataframe

        text = self._one_text("df")
        mime = str(pick(self[0], "mime_type", "mimeType") or "").split(";")[0].strip().lower()
        separator = _SEPARATORS.get(mime)
        if separator is not None:
            import io

            import pandas as pd

            return pd.read_csv(io.StringIO(text), sep=separator)
        try:
            found = json.loads(text)
        except ValueError:
            found = markdown_rows(text)
        if found is not None:
            return to_dataframe(found)
        said = f"a {mime} resource" if mime else "its text"
        raise NotTabularError(
            f"{self.server} {self.uri}: {said} is neither CSV, JSON nor a Markdown table: .text has it"
        )

    def _one_text(self, what: str) -> str:
        """The text of the one content ``.data`` and ``.df`` read (a blob's whose type is text)."""
        if len(self) != 1:
            raise ContentsError(
                f"{self.server} {self.uri} has {len(self)} contents, and .{what} reads one: "
                "read each one's text (r[i].text)"
            )
        [content] = self
        text = pick(content, "text")
        if not isinstance(text, str):
            text = blob_text(pick(content, "blob"), pick(content, "mime_type", "mimeType"))
        if text is None:
            mime = pick(content, "mime_type", "mimeType") or "no type"
            raise ContentsError(
                f"{self.server} {self.uri} is binary ({mime}), not text: r.save() writes its bytes"
            )
        return text

    def save(
        self, path: str | os.PathLike[str] = ".", *, which: int | None = None, overwrite: bool = False
    ) -> Path:
        """Write the resource to ``path`` (a folder that exists or a text ending in ``/``: under the
        name its URI gives; a different file of that name there is kept unless ``overwrite``) and
        return where it went: its bytes as sent (a blob) or its text as UTF-8. ``which``: the index
        of one of several contents."""
        from mcpnb.client.files import files_in, save

        return save(
            files_in(list(self), self.server), path, which, "the resource's contents", overwrite=overwrite
        )

    def __repr__(self) -> str:
        """Text outside a notebook (``print``); a notebook shows what ``%mcp read`` shows."""
        parts = []
        for c in self:
            blob, mime = pick(c, "blob"), pick(c, "mime_type", "mimeType")
            text = pick(c, "text")
            if text is None and isinstance(blob, str):
                size = len(blob) * 3 // 4 - blob[-2:].count("=")
                text = f"[blob: {mime or 'no type'}, {size:,} bytes]"
                if (decoded := blob_text(blob, mime)) is not None:
                    text += "\n" + decoded
            parts.append(text if isinstance(text, str) else "")
        body = "\n\n".join(parts)
        if len(body) > _REPR_TEXT:
            body = f"{body[:_REPR_TEXT]}… {len(body) - _REPR_TEXT} more characters (.text has all)"
        return printable(f"<ResourceContents {self.server} {self.uri}>\n{body}".rstrip("\n"))


class PromptMessages(_Listed):
    """The messages a prompt template produced (``server``, ``name``, ``description``), role by role."""

    def __init__(self, server: str, name: str, result: Any) -> None:
        super().__init__(pick(result, "messages") or [])
        self.server, self.name, self.sdk_result = server, name, result
        self.description = pick(result, "description")

    @property
    def messages(self) -> list[Any]:
        return list(self)

    @property
    def text(self) -> str:
        """Every message's text, in order (what a model would be sent, without the roles): a
        text block's, and an embedded text resource's (a prompt that quotes a file)."""
        texts = [_message_text(pick(m, "content") or {}) for m in self]
        return "\n\n".join(t for t in texts if isinstance(t, str))

    def for_model(self, fmt: str) -> ModelMessages:
        """The messages as the list ``fmt``'s API takes, named as ``tools.specs(fmt)`` names them:
        ``"openai"`` (Chat Completions ``messages``), ``"openai-responses"`` (``input``),
        ``"anthropic"`` (``messages``), ``"gemini"`` (``contents``). Images and embedded resources
        go in that API's parts, as a tool's result does; what it cannot take is a line of text
        saying so (:mod:`mcpnb.client.toolbox.prompts`). A list: add your own turns to it."""
        from mcpnb.client.toolbox.prompts import model_messages

        return model_messages(self, fmt, source=f"{self.server}.{self.name}")

    def __repr__(self) -> str:
        """Text outside a notebook; a notebook shows what ``%mcp prompt`` shows."""
        head = f"<PromptMessages {self.server}.{self.name}>" + (
            f" {self.description}" if self.description else ""
        )
        lines = [head]
        for m in self:
            content = pick(m, "content") or {}
            text, kind = _message_text(content), pick(content, "type") or "content"
            uri = pick(pick(content, "resource") or {}, "uri") or pick(content, "uri")
            if kind in ("resource", "resource_link"):  # which resource, and its text when it has one
                mime = pick(pick(content, "resource") or content, "mime_type", "mimeType")
                label = f"[{kind.replace('_', ' ')} {uri}" + (f", {mime}]" if mime else "]")
                shown = f"{label}\n{text}" if text is not None else label
            elif kind in ("image", "audio"):  # what it is, as the notebook's own line says it
                data, mime = pick(content, "data"), pick(content, "mime_type", "mimeType") or "no type"
                shown = f"[{media_label(kind, mime, b64_size(data) if isinstance(data, str) else None)}]"
            else:
                shown = text if text is not None else f"[{kind}]"
            lines.append(f"[{pick(m, 'role') or '?'}] {shown}")
        body = "\n".join(lines)
        if len(body) > _REPR_TEXT:
            body = f"{body[:_REPR_TEXT]}… {len(body) - _REPR_TEXT} more characters (.text has all)"
        return printable(body)


def _message_text(content: Any) -> str | None:
    """A prompt message's text: a text block's, or an embedded resource's text, a text file sent as
    base64 too (None for others)."""
    text = pick(content, "text")
    if not isinstance(text, str) and pick(content, "type") == "resource":
        resource = pick(content, "resource") or {}
        text = pick(resource, "text")
        if not isinstance(text, str):
            text = blob_text(pick(resource, "blob"), pick(resource, "mime_type", "mimeType"))
    return text if isinstance(text, str) else None


def readable_content(content: Any, version: str) -> tuple[list[Any] | None, list[str]]:
    """A result's ``content`` as the SDK reads it under the protocol ``version``, and what was
    changed for that, one line each: ``(None, [])`` when every block is one MCP defines, as it
    defines it (nothing changed, nothing copied). Any other block becomes a text block that says
    what it is and holds its JSON (its ``_meta[AS_SENT]`` the block as sent), where it was; a
    ``content`` that is no list becomes one such block."""
    from mcpnb.client.config.validate import kind

    models = _block_models(version)
    if type(content) is not list:
        said = f"result.content is {kind(content)}, not a list of content blocks: kept as one text block"
        return [_stand_in(content, f"content that is {kind(content)}, not a list of blocks")], [said]
    found = [(i, why) for i, block in enumerate(content) if (why := _unreadable(block, models, version))]
    if not found:
        return None, []
    kept, said = list(content), []
    for i, (what, why) in found:
        kept[i] = _stand_in(content[i], what)
        said.append(
            f"result.content[{i}] {why}: kept as a text block that holds its JSON "
            f"(result.content[{i}].meta[{AS_SENT!r}] is the block as sent)"
        )
    return kept, said


def _unreadable(block: Any, models: dict[str, Any], version: str) -> tuple[str, str] | None:
    """(what the stand-in calls it, why the SDK cannot read it), or None for a block it reads."""
    from mcpnb.client.config.validate import kind

    if not isinstance(block, dict):
        return f"a content block that is {kind(block)}", f"is {kind(block)}, not a content block"
    kind = block.get("type")
    model = models.get(kind) if isinstance(kind, str) else None
    if model is None:
        if not isinstance(kind, str):
            return "a content block without a type", "has no type"
        return (
            f"content of unknown type {kind!r}",
            f"is of type {kind!r}, which MCP {version} does not define",
        )
    from pydantic import ValidationError

    try:
        model.model_validate(block, by_name=False)
    except ValidationError as exc:
        first = validation_problem(exc)
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        a = "an" if kind[:1] in tuple("aeiou") else "a"
        return (
            f"{kind} content MCP {version} does not allow ({first}{more})",
            f"is {a} {kind} block that MCP {version} does not allow ({first}{more})",
        )
    return None


def _stand_in(block: Any, what: str) -> dict[str, Any]:
    """A text block in place of one the SDK cannot read: what it is, its JSON, the block as sent."""
    shown = json.dumps(block, ensure_ascii=False, default=str)
    return {"type": "text", "text": f"[{what}, as sent: {shown}]", "_meta": {AS_SENT: block}}


_MODELS: dict[str, dict[str, Any]] = {}


def _block_models(version: str) -> dict[str, Any]:
    """The content block models of ``version``'s ``tools/call`` result, by ``type``: what the SDK
    checks a result's blocks against (the 2025-11-25 ones for a revision it does not know)."""
    found = _MODELS.get(version)
    if found is None:
        found = _MODELS[version] = _models_of(version)
    return found


def _models_of(version: str) -> dict[str, Any]:
    from typing import get_args

    from mcp_types.methods import SERVER_RESULTS

    surface = SERVER_RESULTS.get(("tools/call", version)) or SERVER_RESULTS[("tools/call", "2025-11-25")]
    [result] = [m for m in get_args(surface) or (surface,) if m.__name__ == "CallToolResult"]
    [blocks] = get_args(result.model_fields["content"].annotation)  # list[Union[...]]
    return {get_args(m.model_fields["type"].annotation)[0]: m for m in get_args(blocks)}


def human_size(n: int) -> str:
    """Byte counts people can read at a glance."""
    if n < 1000:
        return f"{n} B"
    if n < 1_000_000:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1_000_000:.1f} MB"


def media_label(kind: str, mime: str, size: int | None) -> str:
    """``image image/png, 70 B``: an image or a sound as every place says it in words (the
    notebook's summary, a prompt's text, the messages a model is handed); ``size`` decoded
    (:func:`b64_size`), None for data that is no base64."""
    return f"{kind} {mime}, {human_size(size) if size is not None else 'invalid base64'}"


def b64_size(data: str) -> int | None:
    """Decoded size of base64 data, or None when it is not valid base64 (then it is never inlined)."""
    raw = b64_bytes(data)
    return None if raw is None else len(raw)


def b64_bytes(data: str) -> bytes | None:
    """The bytes of base64 ``data``, or None when it is not valid base64."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError, TypeError):
        return None


#: How each raster image type begins. A block that says ``image/png`` over bytes that are no image
#: at all showed as a broken-image icon, with nothing to say why (a server author's bug to see).
_SIGNATURES = {
    "PNG": (b"\x89PNG\r\n\x1a\n",),
    "JPEG": (b"\xff\xd8\xff",),
    "GIF": (b"GIF87a", b"GIF89a"),
    "WebP": (b"RIFF",),
}
_RASTER = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/jpg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WebP",
}


def raster_format(head: bytes) -> str | None:
    """The raster type ``head`` (an image's first bytes) begins as (``"PNG"``, ``"JPEG"``, ``"GIF"``,
    ``"WebP"``), told by its bytes and never by what a server says it is; None for anything else
    (an SVG, HTML, no image at all)."""
    found = next((name for name, sigs in _SIGNATURES.items() if any(head.startswith(s) for s in sigs)), None)
    return None if found == "WebP" and head[8:12] != b"WEBP" else found  # RIFF is a WAV's start too


def not_an_image(data: str, mime: str) -> str | None:
    """Why ``data`` (base64) is not the raster image ``mime`` says, or None when it is one (of that
    type or another: a browser reads a JPEG sent as ``image/png``)."""
    expected = _RASTER.get(mime)
    if expected is None:
        return None
    head = base64.b64decode(data[:24] + "=" * (-len(data[:24]) % 4))
    if raster_format(head) is not None:
        return None
    return f"not a {expected} image: its data starts with {head[:8].hex(' ')}"


def media_problems(content: list[Any]) -> list[str]:
    """What is wrong with the images and audio of a result's ``content``, one line each: data that
    is not base64, or a raster type over bytes that are no image. Said with the result as well as
    by its display, so a script (or a model's reply) learns it too, not only a person looking."""
    said = []
    for index, block in enumerate(content):
        kind = pick(block, "type")
        if kind not in ("image", "audio"):
            continue
        data, mime = pick(block, "data"), pick(block, "mime_type", "mimeType")
        wrong = media_problem(kind, data, mime)
        if wrong is not None:
            said.append(f"content[{index}] ({kind} {mime}): {wrong}")
    return said


def media_problem(kind: str, data: Any, mime: Any) -> str | None:
    """Why an image's or a sound's ``data`` cannot be read as what it says: no base64, or a raster
    type over bytes that are no image (None: it can). A result's warnings and an LLM reply's
    fitting (which must not send an API what it refuses whole) ask alike."""
    if not isinstance(data, str) or b64_size(data) is None:
        return "its data is not valid base64"
    if kind == "image" and isinstance(mime, str):
        return not_an_image(data, mime)
    return None
