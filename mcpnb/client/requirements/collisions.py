"""Tool names found on more than one server: which flat names (``mcp__SERVER__TOOL``) tell them apart.

Two servers built from the same package share dozens of names; one line per group of servers
(not per tool) keeps the warning readable, naming the tools and the flat-name pattern to use.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from mcpnb.client.toolinfo import flat_name

#: Tool names shown in one message before "(+N more)".
SHOWN = 4


def shared_tools(tools: Mapping[str, Iterable[str]]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """``[(servers, tool names they all have), ...]``, one entry per group of servers, sorted."""
    owners: dict[str, set[str]] = defaultdict(set)
    for server, names in tools.items():
        for tool in names:
            owners[tool].add(server)
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for tool, on in owners.items():
        if len(on) > 1:
            groups[tuple(sorted(on))].append(tool)
    return sorted((servers, tuple(sorted(names))) for servers, names in groups.items())


def collision_warnings(tools: Mapping[str, Iterable[str]], *, declared: bool = False) -> list[str]:
    """One warning per group of servers sharing tool names, with the flat names to call them by."""
    out = []
    for servers, names in shared_tools(tools):
        where = ", ".join(servers)
        if len(names) == 1:
            (tool,) = names
            verb = "is declared on" if declared else "is on"
            ways = " or ".join(flat_name(s, tool) for s in servers)
            out.append(f"tool {tool!r} {verb} {where}: call it as {ways}")
        else:
            verb = "are declared on" if declared else "are on"
            ways = " or ".join(flat_name(s, "TOOL") for s in servers)
            out.append(f"{len(names)} tool names ({_preview(names)}) {verb} {where}: call them as {ways}")
    return out


def collision_notes(tools: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """Per server, a note for each other server it shares tool names with."""
    notes: dict[str, list[str]] = defaultdict(list)
    for servers, names in shared_tools(tools):
        for server in servers:
            others = ", ".join(s for s in servers if s != server)
            if len(names) == 1:
                notes[server].append(
                    f"tool {names[0]!r} is also on {others}: call it as {flat_name(server, names[0])}"
                )
            else:
                notes[server].append(
                    f"{len(names)} tool names are also on {others} ({_preview(names)}): "
                    f"call them as {flat_name(server, 'TOOL')}"
                )
    return notes


def _preview(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:SHOWN])
    return shown + (f", +{len(names) - SHOWN} more" if len(names) > SHOWN else "")
