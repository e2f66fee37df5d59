"""The resolver: declarations in, a plan out. Pure: no I/O, no IPython, no pool, no clock.

For each server some requester names (the notebook, a skill), it gathers every declaration of that
name, the config layers' too; equal configs become one connection with every requester recorded;
different ones are a conflict the strategy settles (or cannot: then it is a problem and nothing is
connected). Versions from the accepted declarations are combined; incompatible ones are a conflict
of their own. Skill ``requires`` are checked for cycles and put in order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from mcpnb.client.requirements import graph, versions
from mcpnb.client.requirements.collisions import collision_warnings
from mcpnb.client.requirements.model import RANK, Declaration, Declarations
from mcpnb.client.requirements.plan import STRATEGIES, Conflict, Option, Plan, PlannedServer

Side = tuple[str, Declaration, Any]  # (option id, its closest declaration, the version it insists on)
Asking = tuple[Mapping[str, str] | None, str, str | None]  # (choices, who chose, why nobody did)


def resolve(
    declarations: Declarations,
    strategy: str = "priority",
    *,
    choices: Mapping[str, str] | None = None,
    chosen_by: str = "asked",
    nobody: str | None = None,
) -> Plan:
    """The plan for ``declarations`` under ``strategy``.

    ``priority``: the closest source wins (notebook > skill > local > project > user > site; among skills,
    the one fewer ``requires`` steps from the notebook). ``newest``: the declaration that insists on
    the highest version wins (priority breaks a tie). ``error``: any conflict stops. ``ask``: the
    ``choices`` made (by :attr:`Conflict.key` → option id; ``chosen_by`` says who made them); where
    there is no choice, priority decides and the note says why nobody chose (``nobody``).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    problems: list[str] = []
    skills = {s.name: s for s in sorted(declarations.skills, key=lambda s: (s.name, s.path))}
    edges = {name: tuple(sorted(set(s.requires))) for name, s in skills.items()}
    for name, targets in edges.items():
        problems += [
            f"skill {name!r} requires {t!r}, which was not loaded" for t in targets if t not in skills
        ]
    cycles = graph.find_cycles({n: [t for t in ts if t in skills] for n, ts in edges.items()})
    problems += [f"skills require each other in a cycle: {' → '.join(c)}" for c in cycles]
    depth = graph.depths(edges, declarations.roots)
    asked = [*declarations.servers]
    for name, skill in skills.items():
        asked += [replace(d, depth=depth.get(name, len(skills))) for d in skill.servers]
    named = {d.name for d in asked}
    by_name: dict[str, list[Declaration]] = defaultdict(list)
    for d in [*asked, *(d for d in declarations.layers if d.name in named)]:
        by_name[d.name].append(d)

    servers: list[PlannedServer] = []
    conflicts: list[Conflict] = []
    for name in sorted(by_name):  # by name: the plan is the same whatever order they were declared in
        requesters = tuple(d.origin for d in sorted(asked, key=_rank) if d.name == name)
        planned, found, stops = _server(
            name, by_name[name], requesters, strategy, (choices, chosen_by, nobody)
        )
        conflicts += found
        problems += stops
        if planned is not None:
            servers.append(planned)
    return Plan(
        strategy=strategy,
        servers=tuple(servers),
        skills=tuple(s for s in graph.order(edges) if s in skills),
        conflicts=tuple(conflicts),
        cycles=tuple(cycles),
        warnings=tuple(collision_warnings({s.name: s.tools for s in servers}, declared=True)),
        problems=tuple(problems),
    )


def differences(configs: Sequence[Any]) -> tuple[str, ...]:
    """The settings that differ between configs: field names, and ``env.NAME`` / ``headers.NAME``
    for the entries of those maps (names only: their values may be secrets)."""
    keys: list[str] = []
    if any(c.server is not configs[0].server for c in configs):
        keys.append("server")
    settings = [c.compared() for c in configs]
    for name in settings[0]:
        if name == "name":
            continue
        values = [each[name] for each in settings]
        if all(v == values[0] for v in values):
            continue
        if name in ("env", "headers"):
            entries = sorted({k for v in values for k in v})
            keys += [f"{name}.{k}" for k in entries if len({repr(v.get(k)) for v in values}) > 1]
        else:
            keys.append(name)
    return tuple(keys)


# ---------------------------------------------------------------- one server
def _rank(d: Declaration) -> tuple[int, int, str]:
    return d.rank


def _server(
    name: str,
    decls: list[Declaration],
    requesters: tuple[str, ...],
    strategy: str,
    asking: Asking,
) -> tuple[PlannedServer | None, list[Conflict], list[str]]:
    decls = sorted(decls, key=_rank)
    variants: list[list[Declaration]] = []
    for d in (d for d in decls if d.config is not None):
        same = next((v for v in variants if v[0].config == d.config), None)
        if same is None:
            variants.append([d])
        else:
            same.append(d)
    if not variants:
        return (
            None,
            [],
            [
                f"server {name!r} (asked by {', '.join(requesters)}): nothing says how to start it; "
                "give 'command' or 'url', or define it in .mcp.json"
            ],
        )
    conflicts: list[Conflict] = []
    notes: list[str] = []
    chosen = 0
    if len(variants) > 1:
        keys = differences([v[0].config for v in variants])
        sides = [(v[0].origin, v[0], _newest_floor(v)) for v in variants]
        index, how = _decide(strategy, name, sides, asking)
        options = tuple(
            Option(
                v[0].origin,
                tuple(d.origin for d in v),
                v[0].config.target if v[0].config is not None else "",
                versions.combine(d.version for d in v if d.version),
            )
            for v in variants
        )
        conflicts.append(
            Conflict(name, "config", options, keys, None if index is None else options[index].id, how)
        )
        if index is None:
            return None, conflicts, [str(conflicts[-1])]
        chosen = index
        notes.append(f"conflict ({', '.join(keys)}): {how}")
    accepted = [*variants[chosen], *(d for d in decls if d.config is None)]
    accepted.sort(key=_rank)
    if len(variants[chosen]) > 1:
        notes.append(f"deduplicated: {', '.join(d.origin for d in variants[chosen])} declare the same server")

    version, found, stops = _version(name, accepted, strategy, asking)
    conflicts += found
    if stops:
        return None, conflicts, stops
    if found:
        notes.append(f"versions ({found[0].how})")
    optional = all(d.optional for d in accepted)
    if optional:
        notes.append("optional")
    winner = variants[chosen][0]
    assert winner.config is not None
    planned = PlannedServer(
        name=name,
        config=winner.config,
        source=winner.origin,
        requested_by=requesters,
        version=version,
        optional=optional,
        tools=tuple(sorted({t for d in accepted for t in d.tools})),
        notes=tuple(notes),
    )
    return planned, conflicts, []


def _version(
    name: str,
    accepted: list[Declaration],
    strategy: str,
    asking: Asking,
) -> tuple[str | None, list[Conflict], list[str]]:
    wanting = [d for d in accepted if d.version]
    specs = [d.version for d in wanting if d.version]
    if len(specs) < 2 or versions.compatible(specs):
        return versions.combine(specs), [], []
    sides = [(d.origin, d, versions.floor(d.version)) for d in wanting]
    index, how = _decide(strategy, f"{name}.version", sides, asking)
    options = tuple(Option(d.origin, (d.origin,), d.version or "", d.version) for d in wanting)
    conflict = Conflict(
        name, "version", options, ("version",), None if index is None else options[index].id, how
    )
    if index is None:
        return None, [conflict], [str(conflict)]
    return wanting[index].version, [conflict], []


def _newest_floor(variant: list[Declaration]) -> Any:
    floors = [f for f in (versions.floor(d.version) for d in variant) if f is not None]
    return max(floors) if floors else None


# ---------------------------------------------------------------- strategies


def _decide(
    strategy: str,
    key: str,
    sides: list[Side],
    asking: Asking,
) -> tuple[int | None, str]:
    """Which side wins, and how that was decided (in words); ``None`` when nothing decides."""
    if strategy == "error":
        return None, "strategy 'error' stops at any conflict"
    if strategy == "ask":
        choices, chosen_by, nobody = asking
        picked = (choices or {}).get(key)
        ids = [s[0] for s in sides]
        if picked in ids:
            return ids.index(picked), f"{chosen_by}: {picked} was chosen"
        index, how = _by_priority(sides)
        return index, f"{nobody or 'nobody chose'}, so {how}"
    if strategy == "newest":
        floors = [s[2] for s in sides]
        known = [f for f in floors if f is not None]
        if known and floors.count(max(known)) == 1:
            best = floors.index(max(known))
            return best, f"newest: {sides[best][0]} asks for {max(known)}, the highest"
        index, how = _by_priority(sides)
        return index, f"newest: no version tells them apart, so {how}"
    return _by_priority(sides)


def _by_priority(sides: list[Side]) -> tuple[int | None, str]:
    closeness = [(RANK[d.source], d.depth) for _, d, _ in sides]
    best = min(closeness)
    if closeness.count(best) > 1:
        tied = [s[0] for s, c in zip(sides, closeness, strict=True) if c == best]
        return None, (
            f"priority cannot choose: {' and '.join(tied)} are equally close "
            "(choose with strategy 'ask' or 'newest', or make them agree)"
        )
    index = closeness.index(best)
    others = [s[0] for i, s in enumerate(sides) if i != index]
    return index, f"priority: {sides[index][0]} wins over {', '.join(others)}"
