"""Per-server state shared by the tools: the allowed root, the toolset, the UI catalog, the clock,
the clients' log levels and resource subscriptions."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpnb.probekit.consents import UrlConsents
from mcpnb.probekit.logs import LogLevels
from mcpnb.probekit.subscriptions import Subscriptions

if TYPE_CHECKING:
    from mcpnb.probekit.pages import PageServer
    from mcpnb.probekit.tasks import TaskManager


@dataclass
class ProbeState:
    """What tools need besides their arguments; one instance per server."""

    root: Path
    toolset: str = "full"
    started: float = field(default_factory=time.time)
    catalog: dict[str, Any] | None = None
    catalog_checksum: str = ""
    tasks: TaskManager | None = None
    tool_names: list[str] = field(default_factory=list)
    #: URL elicitations answered with -32042 and not yet retried, by client: the retry of the
    #: client that was asked counts as "seen it" (nobody else's).
    url_asked: UrlConsents = field(default_factory=UrlConsents)
    #: The level each client chose with ``logging/setLevel`` (2025-11-25 era).
    log_levels: LogLevels = field(default_factory=LogLevels)
    #: Who subscribed to which resource, and the 2026-07-28 event bus.
    subscriptions: Subscriptions = field(default_factory=Subscriptions)
    #: Pages ``open_local_page`` asked consent for, served on 127.0.0.1 (started on first use).
    pages: PageServer | None = None
