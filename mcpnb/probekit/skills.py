"""probe-kit's skills, served as the skills extension says (SEP-2640, ``io.modelcontextprotocol/skills``).

A skill is a folder of instructions for a model: ``SKILL.md`` (YAML frontmatter with its ``name`` and
``description``, then the instructions) and files beside it. probe-kit serves the folders under
``data/skills/``: ``skills/list`` lists each with its frontmatter and, for every file, its URI,
sha256 and size (so a client can check what it reads); ``skills/get`` answers one by the URI of its
``SKILL.md``; the files themselves are resources (``skill://<name>/<path>``), read only when a client
loads the skill. Both answers carry the caching hints of 2026-07-28 (``ttlMs``, ``cacheScope``).
The optional ``resources/directory/read`` (declared as ``directoryRead: true``) lists a skill's
folder, or a folder in it, one level at a time: files as resources, folders as ``inode/directory``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import MCPError, types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Extension, MCPServer, MethodBinding
from mcp_types.jsonrpc import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict

EXTENSION = "io.modelcontextprotocol/skills"
SKILLS_DIR = Path(__file__).resolve().parent / "data" / "skills"
SKILL_FILE = "SKILL.md"
#: How long a client may keep the listing (the skills change only with probe-kit itself).
TTL_MS = 3_600_000


@dataclass(frozen=True)
class SkillFolder:
    """One skill: its frontmatter and its files (URI -> bytes), SKILL.md first."""

    name: str
    frontmatter: dict[str, Any]
    files: dict[str, bytes]

    @property
    def uri(self) -> str:
        return f"skill://{self.name}/{SKILL_FILE}"

    def entry(self) -> dict[str, Any]:
        """The skill as ``skills/list`` and ``skills/get`` give it."""
        resources = [
            {"uri": uri, "digest": "sha256:" + hashlib.sha256(data).hexdigest(), "size": len(data)}
            for uri, data in self.files.items()
        ]
        return {"uri": self.uri, "frontmatter": self.frontmatter, "resources": resources}


def load_folders(root: Path = SKILLS_DIR) -> list[SkillFolder]:
    """Every folder under ``root`` that holds a SKILL.md, by name (its frontmatter names it)."""
    import yaml

    found = []
    for folder in sorted(p for p in root.iterdir() if (p / SKILL_FILE).is_file()):
        text = (folder / SKILL_FILE).read_text(encoding="utf-8")
        head = text.split("---", 2)[1] if text.startswith("---") else ""
        frontmatter = yaml.safe_load(head) or {}
        name = str(frontmatter.get("name", ""))
        if name != folder.name:  # the spec: the last segment of a skill's path is its name
            raise ValueError(f"{folder}: its SKILL.md names it {name!r}, not {folder.name!r}")
        files = {f"skill://{name}/{SKILL_FILE}": text.encode()}
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != SKILL_FILE):
            files[f"skill://{name}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
        found.append(SkillFolder(name, frontmatter, files))
    return found


class _ListParams(types.RequestParams):
    model_config = ConfigDict(extra="allow")
    cursor: str | None = None


class _GetParams(types.RequestParams):
    model_config = ConfigDict(extra="allow")
    uri: str


class _DirectoryParams(types.RequestParams):
    model_config = ConfigDict(extra="allow")
    uri: str
    cursor: str | None = None


#: The mimeType of a folder in a ``resources/directory/read`` listing: a client descends into it.
DIRECTORY = "inode/directory"


class ProbeSkills(Extension):
    """``skills/list`` and ``skills/get`` over the folders (the files: :func:`add_resources`)."""

    identifier = EXTENSION

    def __init__(self, folders: list[SkillFolder]) -> None:
        self.folders = folders

    def settings(self) -> dict[str, Any]:
        return {"directoryRead": True}  # the one optional feature: resources/directory/read

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("skills/list", _ListParams, self._list),
            MethodBinding("skills/get", _GetParams, self._get),
            MethodBinding("resources/directory/read", _DirectoryParams, self._directory),
        ]

    async def _list(self, ctx: ServerRequestContext[Any, Any], params: _ListParams) -> dict[str, Any]:
        return _cacheable(ctx, {"skills": [folder.entry() for folder in self.folders]})  # one page

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: _GetParams) -> dict[str, Any]:
        for folder in self.folders:
            if folder.uri == params.uri:
                return _cacheable(ctx, {"skill": folder.entry()})
        served = ", ".join(f.uri for f in self.folders) or "none"
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"no skill at {params.uri!r}; this server's skills: {served}",
            data={"uri": params.uri},
        )

    async def _directory(
        self, ctx: ServerRequestContext[Any, Any], params: _DirectoryParams
    ) -> dict[str, Any]:
        """The direct children of a skill's folder (``skill://<name>``) or of a folder in it, in
        one page; a URI that names no folder (a file, or nothing served) is invalid params."""
        if params.cursor is not None:  # one page, so no cursor was ever handed out
            raise MCPError(code=INVALID_PARAMS, message=f"unknown cursor {params.cursor!r}")
        folder = params.uri.rstrip("/")
        children: dict[str, dict[str, Any]] = {}
        for skill in self.folders:
            for uri in skill.files:
                if not uri.startswith(folder + "/"):
                    continue
                name, _, deeper = uri[len(folder) + 1 :].partition("/")
                child = f"{folder}/{name}"
                children[child] = (
                    {"uri": child, "name": name, "mimeType": DIRECTORY}
                    if deeper
                    else {"uri": child, "name": name, "mimeType": mime_of(uri)}
                )
        if not children:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"{params.uri!r} is no folder of a skill here: a file is read with resources/read",
                data={"uri": params.uri},
            )
        return {"resources": [children[uri] for uri in sorted(children)]}

    def legacy_middleware(self) -> Callable[..., Any]:
        """Declares the extension in 2025-11-25's ``initialize`` too (the SDK lists extensions in
        2026-07-28's ``server/discover`` only); the methods answer in both eras."""

        async def middleware(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
            result = await call_next(ctx)
            if ctx.method == "initialize" and isinstance(result, dict):
                capabilities = result.setdefault("capabilities", {})
                capabilities.setdefault("extensions", {})[EXTENSION] = self.settings()
            return result

        return middleware


def _cacheable(ctx: ServerRequestContext[Any, Any], result: dict[str, Any]) -> dict[str, Any]:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return {"resultType": "complete", "ttlMs": TTL_MS, "cacheScope": "public", **result}
    return result


def add_resources(server: MCPServer, folders: list[SkillFolder]) -> None:
    """Each skill's files as resources; SKILL.md named and described by its frontmatter."""
    for folder in folders:
        for uri, data in folder.files.items():
            is_skill = uri == folder.uri
            server.resource(
                uri,
                name=folder.name if is_skill else uri.split("/", 3)[3],
                description=str(folder.frontmatter.get("description", "")) if is_skill else None,
                mime_type=mime_of(uri),
            )(_reader(data, uri.endswith(_TEXT)))


#: What probe-kit's skill files are, by extension; text is served as text, the rest as a blob.
_MIME = {"md": "text/markdown", "txt": "text/plain", "png": "image/png"}


def mime_of(uri: str) -> str:
    return _MIME.get(uri.rsplit(".", 1)[-1], "application/octet-stream")


_TEXT = (".md", ".txt")


def _reader(data: bytes, text: bool) -> Any:
    def read() -> str | bytes:
        return data.decode() if text else data

    return read
