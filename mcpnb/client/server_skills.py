"""Skills a server offers (SEP-2640, the ``io.modelcontextprotocol/skills`` extension).

A skill is a folder of instructions for a model: a ``SKILL.md`` whose YAML frontmatter names it and
says what it is for, and files beside it. A server that serves skills lists them (``skills/list``:
each entry's ``SKILL.md`` URI, its frontmatter, and every file's URI, sha256 and size) and serves
the files as resources. Listing reads no file: a skill is read only when it is loaded, and a file
only when asked for. Each file is checked against the listing before anything uses it (its size,
its sha256, and for ``SKILL.md`` its frontmatter, field by field); one that differs is refused, and
nothing of it is shown or handed on. (Not to be confused with :mod:`mcpnb.client.requirements.skills`:
skill folders on disk that declare the servers a notebook needs.)
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mcp import types
from pydantic import ConfigDict, Field, field_validator

from mcpnb.client.errors import McpnbError
from mcpnb.client.printable import printable

EXTENSION = "io.modelcontextprotocol/skills"
#: Pages of ``skills/list`` read before giving up on a server that never stops paging.
MAX_PAGES = 100

#: Reads one resource of the skill's server: ``uri -> the resources/read result``.
Reader = Callable[[str], Awaitable[Any]]


class SkillVerificationError(McpnbError):
    """A skill's file is not what its server listed: it is refused, and nothing of it is used."""


class NoSkillsError(McpnbError):
    """The server does not offer skills (it does not declare the extension)."""


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill as the listing describes it."""

    uri: str
    digest: str | None  # "sha256:<hex>"
    size: int | None  # bytes


@dataclass
class ServerSkill:
    """One skill a server lists; :meth:`load` reads and checks its ``SKILL.md``."""

    server: str
    uri: str
    frontmatter: dict[str, Any]
    #: every file of the skill, its SKILL.md included; None where the server says "dynamic"
    files: tuple[SkillFile, ...] | None
    _reader: Reader = field(repr=False, compare=False)  # runs on the loop that holds the session
    _runner: Callable[[Any], Any] = field(repr=False, compare=False)  # onto that loop, from a thread
    _arunner: Callable[[Any], Awaitable[Any]] = field(repr=False, compare=False)  # ... from a loop

    @property
    def name(self) -> str:
        return str(self.frontmatter.get("name", ""))

    @property
    def description(self) -> str:
        return str(self.frontmatter.get("description", ""))

    @property
    def folder(self) -> str:
        """The URI of the skill's folder, ending in ``/``: its files' paths are relative to it."""
        return self.uri.rsplit("/", 1)[0] + "/"

    def entry(self, uri: str) -> SkillFile | None:
        return next((f for f in self.files or () if f.uri == uri), None)

    async def aload(self) -> LoadedSkill:
        """Read ``SKILL.md`` and check it against the listing (size, sha256, frontmatter)."""
        return await self._arunner(self._load())  # type: ignore[no-any-return]

    def load(self) -> LoadedSkill:
        return self._runner(self._load())  # type: ignore[no-any-return]

    async def _load(self) -> LoadedSkill:
        got = await read_checked(self, self.uri)
        try:
            text = got if isinstance(got, str) else got.decode()
        except UnicodeDecodeError:
            raise SkillVerificationError(
                f"{self.uri} on {self.server!r} is not UTF-8 text: refused"
            ) from None
        found = frontmatter_of(text)
        if found != self.frontmatter:
            differ = sorted(
                k for k in set(found) | set(self.frontmatter) if found.get(k) != self.frontmatter.get(k)
            )
            raise SkillVerificationError(
                f"skill {self.name!r} on {self.server!r}: the frontmatter of {self.uri} differs from the "
                f"listing's ({', '.join(differ)}): refused, and nothing of it was used"
            )
        return LoadedSkill(self, text)

    def __repr__(self) -> str:
        count = "dynamic" if self.files is None else f"{len(self.files)} files"
        return printable(f"<ServerSkill {self.server}:{self.name} ({count}): {self.description}>")


@dataclass
class LoadedSkill:
    """A skill whose ``SKILL.md`` was read and checked; its other files are read on demand."""

    skill: ServerSkill
    text: str  # the whole SKILL.md, frontmatter included

    @property
    def body(self) -> str:
        """The instructions, without the frontmatter."""
        return split_frontmatter(self.text)[1]

    async def aread(self, path: str) -> str | bytes:
        """A file of the skill by its path in the skill (``references/FORMS.md``) or its URI, checked."""
        return await self.skill._arunner(read_checked(self.skill, self._uri(path)))  # type: ignore[no-any-return]

    def read(self, path: str) -> str | bytes:
        return self.skill._runner(read_checked(self.skill, self._uri(path)))  # type: ignore[no-any-return]

    def _uri(self, path: str) -> str:
        if "://" in path:
            return path
        return self.skill.folder + path.lstrip("/")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Drawn as ``text/html`` by the notebook room's escaping Markdown renderer, never handed
        to the frontend as ``text/markdown``: JupyterLab runs a trusted output's Markdown as
        markup (an ``<img onerror>``, a ``<script>``) and fetches its images unasked."""
        from mcpnb.client.display import mimebundle

        return mimebundle(self)

    def __repr__(self) -> str:
        """Made :func:`printable`: the body is the server's, and a terminal acts on its escapes
        (OSC 52 writes the clipboard). ``.body`` and ``.text`` keep it as sent."""
        return printable(f"<LoadedSkill {self.skill.server}:{self.skill.name}>\n{self.body}")


# ------------------------------------------------------------------------------------- the wire
class _Page(types.PaginatedResult):
    """One page of ``skills/list``: its entries as the server wrote them (checked by :func:`skill_of`)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    skills: list[Any] = Field(default_factory=list)

    @field_validator("skills", mode="before")
    @classmethod
    def _a_list(cls, value: Any) -> list[Any]:
        return value if isinstance(value, list) else []  # anything else lists nothing


class _ListParams(types.RequestParams):
    model_config = ConfigDict(extra="allow")
    cursor: str | None = None


class _ListRequest(types.Request[_ListParams, str]):
    method: str = "skills/list"
    params: _ListParams
    name_param: ClassVar[str | None] = None


def declares_skills(capabilities: Any) -> bool:
    extensions = getattr(capabilities, "extensions", None) or {}
    return EXTENSION in extensions


async def list_entries(session: Any) -> list[dict[str, Any]]:
    """Every entry of ``skills/list``, page by page (an entry is never split across pages). A server
    that never stops paging is refused, not half read: a skill missing from a listing is unseen."""
    from mcpnb.client.paging import every_page

    async def page(cursor: str | None) -> _Page:
        return await session.send_request(_ListRequest(params=_ListParams(cursor=cursor)), _Page)  # type: ignore[no-any-return]

    def refuse(why: str) -> None:
        raise McpnbError(f"skills/list was left unread: {why}")

    entries = await every_page(page, "skills", max_pages=MAX_PAGES, on_cut=refuse)
    return [e for e in entries if isinstance(e, dict)]


def skill_of(
    server: str,
    entry: dict[str, Any],
    reader: Reader,
    runner: Callable[[Any], Any],
    arunner: Callable[[Any], Awaitable[Any]],
) -> ServerSkill:
    """A listing entry as a :class:`ServerSkill` (what the entry lacks is left empty, not guessed)."""
    raw = entry.get("resources")
    files = None
    if isinstance(raw, list):
        files = tuple(
            SkillFile(str(r.get("uri")), r.get("digest"), r.get("size")) for r in raw if isinstance(r, dict)
        )
    front = entry.get("frontmatter")
    front = dict(front) if isinstance(front, dict) else {}
    return ServerSkill(server, str(entry.get("uri", "")), front, files, reader, runner, arunner)


async def read_checked(skill: ServerSkill, uri: str) -> str | bytes:
    """``uri`` read from the skill's server and checked against its listing entry: text as text, a
    binary file (an image, say) as its bytes. A skill listed as ``dynamic`` publishes no manifest,
    so its files are read as they come, unchecked."""
    listed = skill.entry(uri)
    if listed is None and skill.files is not None:
        raise SkillVerificationError(
            f"skill {skill.name!r} on {skill.server!r} lists no file {uri}: only listed files are read"
        )
    result = await skill._reader(uri)
    contents = list(getattr(result, "contents", None) or [])
    if len(contents) != 1:
        raise SkillVerificationError(f"{uri} came back as {len(contents)} contents, not one file: refused")
    content = contents[0]
    value: str | bytes
    if getattr(content, "text", None) is not None:
        value = content.text
        data = value.encode()
    else:
        value = data = base64.b64decode(getattr(content, "blob", "") or "")
    if listed is not None:
        _check(skill, uri, data, listed)
    return value


def _check(skill: ServerSkill, uri: str, data: bytes, listed: SkillFile) -> None:
    where = f"skill {skill.name!r} on {skill.server!r}: {uri}"
    if listed.size is not None and len(data) != listed.size:
        raise SkillVerificationError(
            f"{where} is {len(data)} bytes where the listing says {listed.size}: refused, and nothing "
            "of it was used"
        )
    if listed.digest is not None:
        algorithm, _, expected = listed.digest.partition(":")
        if algorithm != "sha256" or not expected:
            raise SkillVerificationError(
                f"{where}: the listing's digest {listed.digest!r} is not sha256:<hex>"
            )
        if hashlib.sha256(data).hexdigest() != expected.lower():
            raise SkillVerificationError(
                f"{where} does not match the sha256 the listing gives: refused, and nothing of it was used"
            )


def split_frontmatter(text: str) -> tuple[str, str]:
    """``(frontmatter YAML, body)``; no frontmatter: ``("", text)``."""
    if not text.startswith("---"):
        return "", text
    head, sep, rest = text[3:].partition("\n---")
    if not sep:
        return "", text
    return head.strip("\n"), rest.split("\n", 1)[1] if "\n" in rest else ""


def frontmatter_of(text: str) -> dict[str, Any]:
    import yaml

    head, _ = split_frontmatter(text)
    try:
        found = yaml.safe_load(head) if head else {}
    except yaml.YAMLError:
        found = None
    return found if isinstance(found, dict) else {}
