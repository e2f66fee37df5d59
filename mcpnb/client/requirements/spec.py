"""A requirements spec, ``{"mcpServers": {...}, "skills": [...]}``, and the server entries in it.

A server entry is an ``mcpServers`` entry as in ``.mcp.json`` (validated by the same pipeline, so a
typo gets the same "did you mean") plus three keys of its own: ``version`` (a PEP 440 specifier),
``optional`` and ``tools``. An entry with only those three says "this server, however the
configuration reaches it": another source (``.mcp.json``, a skill) must say how.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from mcpnb.client.errors import ConfigError, did_you_mean
from mcpnb.client.requirements import versions
from mcpnb.client.requirements.model import Declaration, Source

SPEC_KEYS = ("mcpServers", "skills")
REQUIREMENT_KEYS = ("version", "optional", "tools")
_REACHING = frozenset({"command", "url", "type", "transport"})


@dataclass(frozen=True)
class Spec:
    """What one spec declares: its servers, and the skills it names (paths or names, as written)."""

    servers: tuple[Declaration, ...] = ()
    skills: tuple[str, ...] = ()


def parse_spec(data: Any, *, file: str, source: Source, origin: str, objects: bool = False) -> Spec:
    """Check a spec's shape and every entry in it. ``objects``: a spec from code may give in-process
    server objects (``"server": create_server()``)."""
    if data is None:
        return Spec()
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"expected a mapping with 'mcpServers' and/or 'skills', got {_kind(data)}", file=file
        )
    for key in data:
        if key not in SPEC_KEYS:
            raise ConfigError(
                "unknown key", file=file, key=str(key), suggestion=_suggest(str(key), SPEC_KEYS)
            )
    servers = data.get("mcpServers") or {}
    if not isinstance(servers, Mapping):
        raise ConfigError(
            f"expected a mapping of server names to entries, got {_kind(servers)}",
            file=file,
            key="mcpServers",
        )
    skills = skill_list(data.get("skills"), file=file, key="skills")
    entries = tuple(
        server_entry(str(name), entry, file=file, source=source, origin=origin, objects=objects)
        for name, entry in servers.items()
    )
    return Spec(entries, skills)


def skill_list(value: Any, *, file: str, key: str) -> tuple[str, ...]:
    """A list of skill folders or names (one string is a list of one)."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError("expected a list of skill folders or names", file=file, key=key)
    return tuple(v.strip() for v in value)


def server_entry(
    name: str, entry: Any, *, file: str, source: Source, origin: str, objects: bool = False
) -> Declaration:
    """One entry: a :class:`Declaration` with its config validated (or None for a bare reference)."""
    from mcpnb.client.config import ServerConfig
    from mcpnb.client.config.validate import check_name

    check_name(name, file)
    if not isinstance(entry, Mapping):
        raise ConfigError(
            f"expected a mapping with the server's settings, got {_kind(entry)}", file=file, server=name
        )
    settings = dict(entry)
    server = settings.pop("server", None) if objects else None
    allowed = (*_server_keys(), *REQUIREMENT_KEYS)
    for key in settings:
        if key not in allowed:
            hint = _suggest(str(key), allowed)
            raise ConfigError("unknown key", file=file, server=name, key=str(key), suggestion=hint)
    version = _version(settings.pop("version", None), file, name)
    optional = settings.pop("optional", False)
    if not isinstance(optional, bool):
        raise ConfigError(
            f"expected true or false, got {_kind(optional)}", file=file, server=name, key="optional"
        )
    tools = settings.pop("tools", [])
    if not isinstance(tools, list | tuple) or not all(isinstance(t, str) and t for t in tools):
        raise ConfigError("expected a list of tool names", file=file, server=name, key="tools")
    config = None
    if server is not None or _REACHING & settings.keys():
        config = ServerConfig.from_dict(name, settings, source=file, server=server)
    elif settings:
        raise ConfigError(
            f"settings without a way to reach the server ({', '.join(map(str, settings))}): "
            "give 'command' or 'url', or only version/optional/tools to take the server from .mcp.json",
            file=file,
            server=name,
        )
    return Declaration(
        name,
        source,
        origin,
        config=config,
        version=version,
        optional=optional,
        tools=tuple(dict.fromkeys(tools)),
    )


def _version(value: Any, file: str, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        example = ""
        written = getattr(value, "written", None)  # a YAML number's own text (requirements.reading)
        if isinstance(written, str):
            example = f' (write version: ">={written}")'
        elif isinstance(value, int):
            example = f' (write version: ">={value}")'
        elif isinstance(value, float):  # 1.10 was read as 1.1: only the person knows which was meant
            example = (
                f' (write it in quotes as you mean it, e.g. version: ">=1.10"; unquoted it reads as {value})'
            )
        raise ConfigError(
            f"expected a PEP 440 specifier in quotes, got {_kind(value)}{example}",
            file=file,
            server=name,
            key="version",
        )
    try:
        return versions.specifier(value)
    except versions.BadSpecifier as exc:
        raise ConfigError(str(exc), file=file, server=name, key="version") from None


@cache
def _server_keys() -> tuple[str, ...]:
    from mcpnb.client.config import schema

    return tuple(schema()["$defs"]["server"]["properties"])


def _suggest(word: str, choices: Any) -> str | None:
    return did_you_mean(word, choices) or next((c for c in choices if c.lower() == word.lower()), None)


def _kind(value: Any) -> str:
    from mcpnb.client.config.validate import kind

    return kind(value)
