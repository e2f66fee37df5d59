"""Imports from the 0.1 layout keep working: ``mcpnb.pool`` is ``mcpnb.client.pool`` now, and so on.

0.2 sorted the package into rooms (``client``, ``notebook``, ``probekit``). Code written against the
old deep paths still imports, with a ``DeprecationWarning`` that names the new path; the README's
"Moved in 0.2" lists every move. The finder sits first on ``sys.meta_path`` (else the path finder
would load a second copy of ``mcpnb.config.model`` from the aliased package's folder) and answers
only for the old names: a dictionary look-up for any other import.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

#: Old module -> new module (longest prefix wins, so ``mcpnb.config.model`` follows ``mcpnb.config``).
MOVED = {
    "mcpnb.asking": "mcpnb.client.asking",
    "mcpnb.auth": "mcpnb.client.auth",
    "mcpnb.cache": "mcpnb.client.cache",
    "mcpnb.catalog": "mcpnb.client.catalog",
    "mcpnb.config": "mcpnb.client.config",
    "mcpnb.connection": "mcpnb.client.connection",
    "mcpnb.errors": "mcpnb.client.errors",
    "mcpnb.events": "mcpnb.client.events",
    "mcpnb.health": "mcpnb.client.health",
    "mcpnb.interaction": "mcpnb.client.interaction",
    "mcpnb.pool": "mcpnb.client.pool",
    "mcpnb.redact": "mcpnb.client.redact",
    "mcpnb.results": "mcpnb.client.results",
    "mcpnb.retry": "mcpnb.client.retry",
    "mcpnb.runtime": "mcpnb.client.runtime",
    "mcpnb.schema": "mcpnb.client.schemacheck",
    "mcpnb.status": "mcpnb.client.status",
    "mcpnb.tasks": "mcpnb.client.tasks",
    "mcpnb.tasks.view": "mcpnb.notebook.taskview",
    "mcpnb.timeouts": "mcpnb.client.timeouts",
    "mcpnb.tools": "mcpnb.client.toolinfo",
    "mcpnb.transcript": "mcpnb.client.transcript",
    "mcpnb.transports": "mcpnb.client.transports",
    "mcpnb.forms": "mcpnb.notebook.forms",
    "mcpnb.forms.schema": "mcpnb.client.elicitation.fields",
    "mcpnb.forms.policy": "mcpnb.client.elicitation.policy",
    "mcpnb.forms.outcome": "mcpnb.client.elicitation.outcome",
    "mcpnb.magics": "mcpnb.notebook.magics",
    "mcpnb.magics.explore": "mcpnb.notebook.magics.offers",
    "mcpnb.magics.validate": "mcpnb.client.arguments",
    "mcpnb.render": "mcpnb.notebook.render",
    "mcpnb.render.tables": "mcpnb.client.frames",
    "mcpnb.render.status": "mcpnb.notebook.render.status_table",
    "mcpnb.render.tools": "mcpnb.notebook.render.tool_list",
    "mcpnb.serve": "mcpnb.notebook.launch",
    "mcpnb.settings": "mcpnb.notebook.settings",
    "mcpnb.probekit.serving": "mcpnb.probekit.http_server",
}


def new_name(old: str) -> str | None:
    """Where an 0.1 module lives now, or None when ``old`` is not an old name."""
    if not old.startswith("mcpnb."):
        return None
    parts = old.split(".")
    for i in range(len(parts), 1, -1):
        target = MOVED.get(".".join(parts[:i]))
        if target is not None:
            return ".".join([target, *parts[i:]])
    return None


class MovedModules:
    """A meta path finder and loader (duck-typed: ``importlib.abc`` costs a few ms to import) that
    answers an old name with the module at its new place, the same module object."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        new = new_name(fullname)
        if new is None:
            return None
        import importlib.util

        if importlib.util.find_spec(new) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> ModuleType:
        import importlib
        import warnings

        new = new_name(spec.name)
        assert new is not None
        warnings.warn(
            f"{spec.name} moved to {new} in mcpnb 0.2; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The module is already executed at its new place."""


def install() -> None:
    if not any(isinstance(f, MovedModules) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedModules())
