"""Files a page hands the person (MCP Apps ``ui/download-file``).

A page runs in a sandbox where it cannot download anything itself, so it asks the host, with the
file as MCP resource contents: embedded (``text`` or a base64 ``blob``) or a ``resource_link`` the
host fetches. The extension says a host SHOULD ask the person first; here the file is offered as a
link under the page, which downloads only when the person clicks it, and it is kept for Python
(``view.downloads[-1].data``), which in a notebook is often where the file was wanted.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urlparse

from mcpnb.client.contents import human_size

#: Larger files are kept for Python but not offered as a link: the link carries the file itself
#: (a ``data:`` URL) in the widget's state, which the frontend receives whole at every change.
LINK_LIMIT = 8 * 1024 * 1024


_MIME = re.compile(r"^[\w.+-]+/[\w.+-]+$")


class BadFile(ValueError):
    """The contents of a ``ui/download-file`` are not a file (the page's mistake: -32602)."""


@dataclass(frozen=True)
class Download:
    """A file a page offered: its name (from the URI), type, bytes and where it came from."""

    name: str
    mime_type: str
    data: bytes
    uri: str

    def text(self, encoding: str = "utf-8") -> str:
        return self.data.decode(encoding)

    @property
    def data_url(self) -> str | None:
        """The file as a link's target, or None when it is too large to offer as one."""
        if len(self.data) > LINK_LIMIT:
            return None
        return f"data:{self.mime_type};base64,{base64.b64encode(self.data).decode()}"

    def __repr__(self) -> str:
        return f"<Download {self.name} {self.mime_type}, {human_size(len(self.data))}>"


def embedded(item: Any) -> Download:
    """An ``EmbeddedResource`` of the request as a file; ``BadFile`` if it is none."""
    resource = item.get("resource") if isinstance(item, dict) else None
    if not isinstance(resource, dict) or not isinstance(resource.get("uri"), str):
        raise BadFile("an embedded file needs a resource with a uri")
    return from_contents(resource)


def from_contents(resource: dict[str, Any]) -> Download:
    """Resource contents (``uri``, ``mimeType``, and ``text`` or base64 ``blob``) as a file."""
    uri, mime = resource["uri"], resource.get("mimeType")
    if isinstance(resource.get("text"), str):
        data = resource["text"].encode("utf-8")
    elif isinstance(resource.get("blob"), str):
        try:
            data = base64.b64decode(resource["blob"], validate=True)
        except (binascii.Error, ValueError):
            raise BadFile(f"the blob of {uri} is not base64") from None
    else:
        raise BadFile(f"{uri} has neither text nor blob")
    # a plain type/subtype only: the type goes into the link's data: URL as written
    mime = mime if isinstance(mime, str) and _MIME.match(mime) else "application/octet-stream"
    return Download(file_name(uri), mime, data, uri)


def file_name(uri: str) -> str:
    """A safe file name from a URI's last path segment (``file:///export.json`` → ``export.json``)."""
    name = PurePosixPath(unquote(urlparse(uri).path)).name
    name = re.sub(r"[^\w.\- ]", "_", name).strip(" .")
    return name or "download"
