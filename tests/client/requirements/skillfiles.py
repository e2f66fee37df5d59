"""Write skill folders for tests: a SKILL.md with YAML front matter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_skill(
    root: Path,
    folder: str,
    name: str | None = None,
    *,
    servers: dict[str, Any] | None = None,
    requires: list[str] | None = None,
    extra: str = "",
) -> Path:
    """``root/folder/SKILL.md``; ``servers`` and ``requires`` go under ``mcp`` (as JSON, which is YAML)."""
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    mcp: dict[str, Any] = {}
    if servers is not None:
        mcp["servers"] = servers
    if requires is not None:
        mcp["requires"] = requires
    lines = ["---", f"name: {name or folder}", f"description: the {name or folder} skill"]
    if mcp:
        lines.append(f"mcp: {json.dumps(mcp)}")
    lines += [extra, "---", f"# {name or folder}", "", "What the skill does, for a person or an agent."]
    (path / "SKILL.md").write_text("\n".join(line for line in lines if line) + "\n")
    return path
