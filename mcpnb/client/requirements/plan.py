"""What the resolver decides: which config each server gets and why, conflicts, cycles, problems.

Plain frozen data, equal when the decisions are equal (the order-independence tests compare plans).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from mcpnb.client.config import ServerConfig

Strategy = Literal["priority", "newest", "ask", "error"]
STRATEGIES: tuple[Strategy, ...] = ("priority", "newest", "ask", "error")


@dataclass(frozen=True)
class Option:
    """One side of a conflict: what a person would pick."""

    id: str  # the closest requester's origin ("notebook", "skill 'notes'")
    origins: tuple[str, ...]  # every requester that declared exactly this
    summary: str  # how it connects (secrets hidden), or the versions it accepts
    version: str | None = None


@dataclass(frozen=True)
class Conflict:
    """Declarations of one server that disagree on how to reach it (``config``) or on versions."""

    server: str
    kind: Literal["config", "version"]
    options: tuple[Option, ...]
    keys: tuple[str, ...]  # what differs: config keys ("args", "env.API_KEY"), or ("version",)
    chosen: str | None  # the winning option's id; None: unresolved, nothing is connected
    how: str  # how it was decided, in words

    @property
    def key(self) -> str:
        """Its name among the choices a person makes: the server, or ``server.version``."""
        return self.server if self.kind == "config" else f"{self.server}.version"

    def __str__(self) -> str:
        sides = " vs ".join(o.id for o in self.options)
        what = ", ".join(self.keys) if self.kind == "config" else "incompatible versions"
        return f"server {self.server!r}: {sides} differ ({what}); {self.how}"


@dataclass(frozen=True)
class PlannedServer:
    """One server to connect, with everything its requesters asked of it."""

    name: str
    config: ServerConfig
    source: str  # the origin whose config won
    requested_by: tuple[str, ...]
    version: str | None = None  # every accepted requester's specifier together
    optional: bool = False  # True only when every requester can do without it
    tools: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """The resolver's answer. ``problems`` (cycles, unresolved conflicts, servers nobody says how to
    reach) stop everything: nothing is connected while there are any."""

    strategy: str
    servers: tuple[PlannedServer, ...] = ()
    skills: tuple[str, ...] = ()  # each skill after the skills it requires
    conflicts: tuple[Conflict, ...] = ()
    cycles: tuple[tuple[str, ...], ...] = ()
    warnings: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def __getitem__(self, name: str) -> PlannedServer:
        for server in self.servers:
            if server.name == name:
                return server
        raise KeyError(name)
