"""The files inside a result: images, audio and embedded resources, and writing one to disk.

A server that exports a workbook, renders a chart or takes a screenshot sends it base64-encoded in
a content block; decoding ``result.content[1].resource.blob`` by hand is what a person should not
have to know. :meth:`ToolResult.save` and :meth:`ResourceContents.save` call :func:`save`.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from mcpnb.client.contents import pick

__all__ = ["File", "files_in", "save"]


@dataclass(frozen=True)
class File:
    """One block that holds a file: ``index`` in its list, the ``name`` the server gives it (from
    its URI) or one made up from ``stem`` and its type, and its base64 ``blob`` or its ``text``."""

    index: int
    name: str
    mime: str | None
    blob: str | None = None
    text: str | None = None

    def data(self) -> bytes:
        if self.text is not None:
            return self.text.encode("utf-8")
        try:
            return base64.b64decode(self.blob or "", validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"block {self.index} ({self.name}) is not valid base64: {exc}") from None


_UNSAFE = re.compile(r"[^\w.@+-]+")


#: Types this platform's ``mimetypes`` may not know (Python 3.11 has no ``audio/wav``: a WAV a
#: server sent was saved as ``.bin``).
_EXTENSIONS = {"audio/wav": ".wav", "audio/wave": ".wav", "audio/vnd.wave": ".wav", "audio/ogg": ".ogg"}


def _extension(mime: Any) -> str:
    if not isinstance(mime, str):
        return ".bin"
    kind = mime.split(";")[0].strip().lower()
    return _EXTENSIONS.get(kind) or mimetypes.guess_extension(kind) or ".bin"


def _name_from_uri(uri: Any, mime: Any) -> str | None:
    """The last part of a URI's path, safe as a file name (``excel-mcp://workbook//tmp/x.xlsx`` →
    ``x.xlsx``; ``demo://resource/blob/2`` of ``text/plain`` → ``2.txt``); None when it has none."""
    if not isinstance(uri, str):
        return None
    last = PurePosixPath(unquote(urlsplit(uri).path)).name
    name = _UNSAFE.sub("_", last).strip("._")
    if not name:
        return None
    return name if PurePosixPath(name).suffix else name + _extension(mime)


def _made_up(stem: str, index: int, mime: Any) -> str:
    return f"{_UNSAFE.sub('_', stem).strip('._') or 'file'}-{index}{_extension(mime)}"


def files_in(blocks: list[Any], stem: str) -> list[File]:
    """The blocks that hold a file: images, audio and resources, embedded (``{"type": "resource",
    "resource": {...}}``) or as a resource read returns them (``{"uri", "blob"|"text"}``)."""
    found = []
    for index, block in enumerate(blocks):
        kind = pick(block, "type")
        if kind in ("image", "audio"):
            mime = pick(block, "mime_type", "mimeType")
            found.append(File(index, _made_up(stem, index, mime), mime, blob=pick(block, "data")))
            continue
        resource = pick(block, "resource") if kind == "resource" else block if kind is None else None
        if resource is None:
            continue
        blob, text = pick(resource, "blob"), pick(resource, "text")
        if isinstance(blob, str) or isinstance(text, str):
            mime = pick(resource, "mime_type", "mimeType")
            name = _name_from_uri(pick(resource, "uri"), mime) or _made_up(stem, index, mime)
            found.append(File(index, name, mime, blob if isinstance(blob, str) else None, text))
    return found


def save(
    files: list[File], path: str | os.PathLike[str], which: int | None, where: str, *, overwrite: bool = False
) -> Path:
    """Write one of ``files`` to ``path`` (a folder: under the file's own name) and return where.

    ``which`` is the block's index in ``where`` (what the messages call the blocks); it may be left
    out when there is one file. In a folder the *server* names the file, so a file already there
    with other bytes is not replaced unless ``overwrite``: a server's ``notes.ipynb`` must not
    clobber the notebook that saved it. The same bytes again (a cell run twice) are no loss. A file
    path the caller wrote is theirs to replace.
    """
    if not files:
        raise ValueError(f"there is no file to save here: {where} holds no image, audio or resource")
    if which is None:
        if len(files) > 1:
            choices = ", ".join(f"which={f.index} ({f.name})" for f in files)
            raise ValueError(f"{len(files)} files here; say which: {choices}")
        chosen = files[0]
    else:
        chosen = next((f for f in files if f.index == which), None)
        if chosen is None:
            held = ", ".join(str(f.index) for f in files)
            raise ValueError(f"item {which} of {where} is no image, audio or resource (files at: {held})")
    target = Path(path).expanduser()
    data = chosen.data()
    if target.is_dir() or str(path).endswith(("/", os.sep)):
        target = target / chosen.name
        if not overwrite and target.is_file() and target.read_bytes() != data:
            raise FileExistsError(
                f"{target} exists, and the {chosen.name!r} this server sent is different: not replaced. "
                f"Save it under a name of your own (.save('{target.parent / _other_name(chosen.name)}')), "
                "or pass overwrite=True to replace the file"
            )
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def _other_name(name: str) -> str:
    path = PurePosixPath(name)
    return f"{path.stem}-new{path.suffix}"
