"""Small builders for declarations: what a notebook, a skill or a config layer would declare."""

from __future__ import annotations

from typing import Any

from mcpnb.client.config import ServerConfig
from mcpnb.client.requirements import Declaration, Declarations, Skill


def cfg(name: str, *args: str, command: str = "srv", **options: Any) -> ServerConfig:
    return ServerConfig.build(name, command=command, args=list(args), **options)


def decl(
    name: str, source: str = "notebook", *args: str, origin: str | None = None, **extra: Any
) -> Declaration:
    """A declaration with a stdio config ``srv ARGS`` (``args=None``-like: pass ``config=None``)."""
    config = extra.pop("config", cfg(name, *args))
    return Declaration(name, source, origin or _origin(source), config=config, **extra)  # type: ignore[arg-type]


def skill(name: str, *servers: Declaration, requires: tuple[str, ...] = ()) -> Skill:
    from dataclasses import replace

    own = tuple(replace(d, source="skill", origin=f"skill {name!r}") for d in servers)
    return Skill(name, f"the {name} skill", f"/skills/{name}", f"/skills/{name}/SKILL.md", own, requires)


def decls(
    *servers: Declaration,
    skills: tuple[Skill, ...] = (),
    roots: tuple[str, ...] | None = None,
    layers: tuple[Declaration, ...] = (),
) -> Declarations:
    return Declarations(servers, skills, tuple(s.name for s in skills) if roots is None else roots, layers)


def _origin(source: str) -> str:
    return {
        "project": "project (.mcp.json)",
        "local": "local (.mcp.local.json)",
        "user": "user (mcp.json)",
    }.get(source, source)
