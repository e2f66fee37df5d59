"""probe-kit's tools, one module per family; :func:`all_tools` is the single registration table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpnb.probekit.state import ProbeState


def all_tools(state: ProbeState) -> list[Callable[..., Any]]:
    """Every tool function, in a stable order; the server filters by toolset on ``__name__``."""
    from mcpnb.probekit.tools import (
        apps,
        code,
        conformance,
        demo,
        git,
        people,
        project,
        rounds,
        tasksuite,
        ui,
        workflows,
    )

    out: list[Callable[..., Any]] = []
    for family in (people, project, code, git, ui, workflows, demo, apps, conformance, rounds, tasksuite):
        out.extend(family.tools(state))
    return out
