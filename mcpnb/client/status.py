"""The status table: one row per server, safe to show (no secrets ever reach a row)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from mcpnb.client.errors import did_you_mean_text
from mcpnb.client.printable import columns_text, printable


@dataclass(frozen=True)
class ServerStatus:
    """One server as the pool sees it right now."""

    name: str
    transport: str
    state: str
    era: str | None = None
    protocol_version: str | None = None
    server_name: str | None = None
    server_version: str | None = None
    tools: int | None = None
    #: The last round trip of a request that measures the server (a listing, a read, a health
    #: probe), not a tool call's: that is the tool's own work.
    last_latency_ms: float | None = None
    last_error: str | None = None
    since: datetime | None = None
    healthy: bool | None = None
    last_ok: datetime | None = None
    retries: int = 0
    instructions: str | None = None  # the server's own guide to its tools (``initialize``), if it gave one

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        """The row as the status table prints it: ``print(pool.connect(...))`` in a script."""
        return repr(StatusTable([self]))


class StatusTable(list[ServerStatus]):
    """A list of :class:`ServerStatus` that prints as a table (HTML lives in :mod:`mcpnb.notebook.render`)."""

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for row in self:
                if row.name == key:
                    return row
            names = [row.name for row in self]
            raise KeyError(
                f"no row {key!r}{did_you_mean_text(key, names)} (rows: {', '.join(names) or 'none'})"
            )
        return super().__getitem__(key)

    def rows(self) -> list[dict[str, Any]]:
        return [row.as_dict() for row in self]

    @property
    def df(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=[f.name for f in fields(ServerStatus)])

    def __repr__(self) -> str:
        if not self:
            return "(no servers)"
        cols = COLUMNS
        table = [cols] + [_cells(row) for row in self]
        lines = columns_text(table)
        if len(self) == 1 and self[0].instructions:  # a server just connected: what it says of itself
            lines.append(f"instructions: {printable(instructions_preview(self[0].instructions))}")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)


COLUMNS = [
    "name",
    "transport",
    "state",
    "health",
    "era",
    "server",
    "tools",
    "latency",
    "retries",
    "since",
    "last error",
]


def instructions_preview(text: str, limit: int = 100) -> str:
    """The first line of a server's instructions, cut to ``limit``; ``.instructions`` has them all."""
    lines = text.strip().splitlines()
    first = re.sub(r"^#{1,6}\s+", "", lines[0]) if lines else ""  # a Markdown heading's marks say nothing
    cut = len(first) > limit or len(lines) > 1
    return (first[:limit].rstrip() + " …" if cut else first) + (" (.instructions has all)" if cut else "")


def health_text(row: ServerStatus) -> str:
    """``ok`` / ``unhealthy`` from the periodic probes ('' before the first one)."""
    return {True: "ok", False: "unhealthy", None: ""}[row.healthy]


def _cells(row: ServerStatus) -> list[str]:
    """A row of the text table, each cell :func:`printable` before the columns are measured: the
    server's name and version, and an error quoting its stderr, are its words."""
    server = " ".join(p for p in (row.server_name, row.server_version) if p)
    latency = f"{row.last_latency_ms:.1f} ms" if row.last_latency_ms is not None else ""
    since = row.since.strftime("%H:%M:%S") if row.since else ""
    cells = [
        row.name,
        row.transport,
        row.state,
        health_text(row),
        row.era or "",
        server,
        "" if row.tools is None else str(row.tools),
        latency,
        str(row.retries) if row.retries else "",
        since,
        row.last_error or "",
    ]
    return [printable(cell) for cell in cells]
