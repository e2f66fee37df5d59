"""The outcome of ``require``: the plan, one row per server, and the table a person reads.

The text table is here (terminals, logs); the notebook's HTML lives in
:mod:`mcpnb.notebook.render.requirements_table` and is reached through the client's display door.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from mcpnb.client.printable import columns_text
from mcpnb.client.requirements.plan import Conflict, Plan

COLUMNS = ["name", "requested by", "source", "wanted", "got", "state", "notes"]


@dataclass(frozen=True)
class Row:
    """One server: who asked, whose declaration won, the version wanted and got, how it went."""

    name: str
    requested_by: tuple[str, ...]
    source: str
    version_wanted: str | None
    version_got: str | None
    state: str  # connected | unsatisfied (connected, but a version or tool check failed) | failed | ...
    action: str  # kept (already connected, untouched) | connected | reconnected
    optional: bool
    level: str  # ok | warn | error (a required server that is not ready)
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def cells(self) -> list[str]:
        return [
            self.name,
            ", ".join(self.requested_by),
            self.source,
            self.version_wanted or "",
            self.version_got or "",
            self.state,
            "; ".join(self.notes),
        ]


class Resolution:
    """What ``pool.require`` did: ``.plan`` (the resolver's decisions), ``.rows`` (one per server),
    ``.conflicts``, ``.cycles``, ``.warnings``, ``.failures`` and ``.df``."""

    def __init__(self, plan: Plan, rows: list[Row] | None = None, warnings: list[str] | None = None) -> None:
        self.plan = plan
        self.rows = list(rows or [])
        # Once connected, the servers' real tool lists replace what was declared about them.
        self.warnings = list(warnings or []) if self.rows else list(plan.warnings)

    @property
    def conflicts(self) -> tuple[Conflict, ...]:
        return self.plan.conflicts

    @property
    def cycles(self) -> tuple[tuple[str, ...], ...]:
        return self.plan.cycles

    @property
    def skills(self) -> tuple[str, ...]:
        """The skills loaded, each after the skills it requires."""
        return self.plan.skills

    @property
    def failures(self) -> list[Row]:
        """Required servers that are not ready (optional ones only warn)."""
        return [row for row in self.rows if row.level == "error"]

    @property
    def ok(self) -> bool:
        return self.plan.ok and not self.failures

    def __getitem__(self, name: str) -> Row:
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Any:
        return iter(self.rows)

    @property
    def df(self) -> Any:
        import pandas as pd

        joined = {"requested_by": ", ", "problems": "; ", "notes": "; "}  # text, as the table shows them
        rows = [{k: joined[k].join(v) if k in joined else v for k, v in asdict(r).items()} for r in self.rows]
        return pd.DataFrame(rows, columns=[f.name for f in fields(Row)])

    def footer(self) -> list[str]:
        """Lines under the table: skill order, then conflicts, cycles and warnings (or, when the plan
        stopped, its problems, which include its unresolved conflicts and cycles)."""
        lines = ["skills (in order): " + ", ".join(self.plan.skills)] if self.plan.skills else []
        if self.plan.problems:
            return [*lines, *(f"problem: {p}" for p in self.plan.problems)]
        lines += [f"conflict: {c}" for c in self.plan.conflicts]
        return lines + [f"warning: {w}" for w in self.warnings]

    def __repr__(self) -> str:
        if not self.rows:
            head = "(nothing was connected)" if self.plan.problems else "(no servers required)"
            return "\n".join([head, *self.footer()])
        table = [COLUMNS] + [r.cells() for r in self.rows]
        lines = columns_text(table)
        return "\n".join([*lines, *self.footer()])

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)
