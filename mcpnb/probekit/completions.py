"""Completions as a lesson: ``completion/complete`` suggests values for prompt arguments and
resource-template variables, the way a shell completes a file name.

What is completed, and from where:

* a tool name (``explain_tool``'s ``tool_name``): this server's tools;
* a toolset (``probe://toolsets/{name}``, ``tour_toolset``): the toolset names;
* a catalog category (``probe://catalog/{category}``): the bundled UI catalog's categories;
* a path (``probe://files/{+path}``, ``review_code``'s ``path``): files and folders under the
  server's root, one folder level at a time (folders end in ``/``), never outside it.

Everything else gets an empty list, which the spec allows (the conformance suite asks for
``test_prompt_with_arguments`` and only checks the shape).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import types

from mcpnb.probekit.paths import confine, is_inside
from mcpnb.probekit.responses import ProbeError
from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.toolsets import TOOLSETS

#: The spec caps one answer at 100 values; ``total`` and ``hasMore`` say how many there were.
MAX_VALUES = 100
#: Folders a person never wants to complete into (the same ones the scanners skip).
HIDDEN_DIRS = frozenset({"node_modules", "__pycache__", "venv", "dist", "build"})


def catalog_categories(state: ProbeState) -> list[str]:
    from mcpnb.probekit.tools.ui import load_catalog

    if state.catalog is None:
        state.catalog, state.catalog_checksum = load_catalog()
    return sorted({c["category"] for c in state.catalog["components"]})


def path_values(root: Path, partial: str) -> list[str]:
    """Entries of the folder ``partial`` points into that start with its last part."""
    head, _, stem = partial.replace("\\", "/").rpartition("/")
    try:
        folder = confine(root, head or ".")
    except ProbeError:
        return []  # '..', absolute paths, symlinks out: nothing to suggest
    if not folder.is_dir():
        return []
    out = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if not entry.name.startswith(stem) or (entry.name.startswith(".") and not stem.startswith(".")):
            continue
        if entry.name in HIDDEN_DIRS or not is_inside(root, entry):
            continue
        rel = f"{head}/{entry.name}" if head else entry.name
        out.append(rel + "/" if entry.is_dir() else rel)
    return out


class Completer:
    """The ``completion/complete`` handler of one server."""

    def __init__(self, state: ProbeState) -> None:
        self.state = state
        names: dict[str, Callable[[], list[str]]] = {
            "tool_name": lambda: list(state.tool_names),
            "toolset": lambda: list(TOOLSETS),
            "name": lambda: list(TOOLSETS),
            "category": lambda: catalog_categories(state),
        }
        self._by_argument = names

    def values(self, ref: Any, argument: types.CompletionArgument) -> list[str]:
        name, partial = argument.name, argument.value or ""
        if name == "path":
            return path_values(self.state.root, partial)
        source = self._by_argument.get(name)
        if source is None or not self._known(ref):
            return []
        return [v for v in source() if v.lower().startswith(partial.lower())]

    def _known(self, ref: Any) -> bool:
        """Only probe-kit's own prompts and templates complete; a fixture gets the empty list."""
        if isinstance(ref, types.PromptReference):
            return ref.name in {"explain_tool", "review_code", "tour_toolset"}
        return str(getattr(ref, "uri", "")).startswith("probe://")

    async def __call__(
        self, ref: Any, argument: types.CompletionArgument, context: Any = None
    ) -> types.Completion:
        found = self.values(ref, argument)
        return types.Completion(values=found[:MAX_VALUES], total=len(found), has_more=len(found) > MAX_VALUES)
