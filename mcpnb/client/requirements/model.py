"""What a notebook, a skill or a config layer declares it needs: plain frozen data, no I/O.

A :class:`Declaration` is one requester's wish for one server: how to reach it (a validated
:class:`~mcpnb.client.config.ServerConfig`, or ``None`` to take it from another source), which
versions will do, which tools must be there, and whether the notebook can live without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from mcpnb.client.config import ServerConfig

Source = Literal["notebook", "skill", "local", "project", "user", "site"]
#: Closest first: under the ``priority`` strategy the closer source wins.
SOURCES: tuple[Source, ...] = ("notebook", "skill", "local", "project", "user", "site")
RANK = {source: i for i, source in enumerate(SOURCES)}


@dataclass(frozen=True)
class Declaration:
    """One requester's wish for one server."""

    name: str
    source: Source
    origin: str  # who asks, as a person reads it: "notebook", "skill 'notes'", "project (.mcp.json)"
    config: ServerConfig | None = None  # None: only version/tools/optional; another source says how
    version: str | None = None  # a PEP 440 specifier, checked against the server's reported version
    optional: bool = False
    tools: tuple[str, ...] = ()
    depth: int = 0  # skills: 0 when the notebook names the skill, 1 for the skills that one requires, ...

    @property
    def rank(self) -> tuple[int, int, str]:
        """Sort key, closest first; the origin makes it total, so no order depends on input order."""
        return (RANK[self.source], self.depth, self.origin)


@dataclass(frozen=True)
class Skill:
    """A skill folder: its ``SKILL.md`` front matter, as far as MCP servers are concerned."""

    name: str
    description: str
    path: str  # the folder
    file: str  # its SKILL.md, for messages
    servers: tuple[Declaration, ...] = ()
    requires: tuple[str, ...] = ()  # names of the skills it requires


@dataclass(frozen=True)
class Declarations:
    """Everything the resolver gets: the spec's own servers, the skills, and the config layers.

    ``layers`` count only for servers that the spec or a skill names: a project's ``.mcp.json`` says
    how to reach a server the notebook needs; it does not make the notebook need every server in it.
    """

    servers: tuple[Declaration, ...] = ()
    skills: tuple[Skill, ...] = ()
    roots: tuple[str, ...] = ()  # the skills the spec names itself
    layers: tuple[Declaration, ...] = ()
