"""After connecting: does each server satisfy its requesters (state, version, tools)? Pure: the
pool's facts come in as arguments, a table row goes out."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from mcpnb.client.requirements import versions
from mcpnb.client.requirements.plan import PlannedServer
from mcpnb.client.requirements.resolution import Row


def row_for(
    server: PlannedServer,
    *,
    state: str,
    version: str | None,
    error: str | None = None,
    tools: Collection[str] | None = None,
    action: str = "connected",
    action_note: str | None = None,
    collisions: Sequence[str] = (),
) -> Row:
    """The table row of one planned server, given what the pool knows about it now.

    A required server that is not connected, reports a version outside ``server.version`` or lacks
    a tool is a failure (level ``error``); an optional one is a warning. A version that cannot be
    checked (none reported, or not PEP 440) is a warning: the server may well be fine.
    """
    problems: list[str] = []
    warnings: list[str] = list(collisions)
    if state != "connected":
        problems.append(error or f"the server is {state}")
    else:
        if server.version:
            ok = versions.satisfies(server.version, version)
            if ok is False:
                problems.append(f"version {version} does not satisfy {server.version}")
            elif ok is None:
                what = "reports no version" if not version else f"reports version {version!r}, not PEP 440"
                warnings.append(f"{what}, so {server.version} was not checked")
        if server.tools:
            if tools is None:
                problems.append("could not list its tools to check them")
            else:
                missing = [t for t in server.tools if t not in tools]
                if missing:
                    problems.append(f"missing tools: {', '.join(missing)}")
    if state == "connected" and problems:
        state = "unsatisfied"
    level = "error" if problems and not server.optional else "warn" if problems or warnings else "ok"
    notes = list(server.notes)
    if problems and server.optional:
        notes = [n for n in notes if n != "optional"]  # said more fully below
        warnings.insert(0, "optional, so the notebook goes on without it")
    return Row(
        name=server.name,
        requested_by=server.requested_by,
        source=server.source,
        version_wanted=server.version,
        version_got=version,
        state=state,
        action=action,
        optional=server.optional,
        level=level,
        problems=tuple(problems),
        notes=(*([action_note] if action_note else []), *notes, *problems, *warnings),
    )
