"""Skill folders: a ``SKILL.md`` whose YAML front matter declares the MCP servers the skill uses.

.. code-block:: markdown

    ---
    name: field-notes
    description: Notes with the time of each entry.
    mcp:
      servers:
        time: {command: python, args: [-m, mcp_server_time], tools: [get_current_time]}
      requires: [../clock, citations]
    ---

``requires`` names other skills by path (relative to this skill's folder) or by name (a sibling
folder of that name, or a sibling whose ``SKILL.md`` carries that name). Loading follows
``requires`` breadth first and reads each folder once, so a cycle loads fine and the resolver
reports it with its path. Every mistake names the file and the key.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcpnb.client.errors import ConfigError, did_you_mean
from mcpnb.client.requirements.model import Skill
from mcpnb.client.requirements.reading import read_text
from mcpnb.client.requirements.spec import server_entry, skill_list

SKILL_FILE = "SKILL.md"
#: The Agent Skills front matter keys, plus ``mcp`` (other keys, as Claude Code's, are left alone).
FRONT_KEYS = ("name", "description", "mcp", "license", "compatibility", "metadata", "allowed-tools")
MCP_KEYS = ("servers", "requires")


def load_skills(refs: Sequence[str], base: Path, *, file: str) -> tuple[tuple[Skill, ...], tuple[str, ...]]:
    """Every skill ``refs`` name and every skill they require, each once; and the names of ``refs``'s.

    ``refs`` are folders relative to ``base`` or names (a folder ``base/NAME`` or ``base/skills/NAME``);
    ``file`` is where they were written, for messages.
    """
    queue: deque[Path] = deque()
    roots: list[Path] = []
    for i, ref in enumerate(refs):
        folder = locate(ref, [base, base / "skills"], file=file, key=f"skills[{i}]")
        roots.append(folder)
        queue.append(folder)
    loaded: dict[Path, tuple[Skill, list[Path]]] = {}
    by_name: dict[str, Path] = {}
    while queue:
        folder = queue.popleft()
        if folder in loaded:
            continue
        skill, required = read_skill(folder)
        if skill.name in by_name:
            raise ConfigError(
                f"two skills are named {skill.name!r}: {by_name[skill.name]} and {folder}",
                file=skill.file,
                key="name",
            )
        by_name[skill.name] = folder
        loaded[folder] = (skill, required)
        queue.extend(required)
    names = {folder: skill.name for folder, (skill, _) in loaded.items()}
    skills = tuple(
        Skill(s.name, s.description, s.path, s.file, s.servers, tuple(names[f] for f in required))
        for s, required in loaded.values()
    )
    return skills, tuple(dict.fromkeys(names[f] for f in roots))


def read_skill(folder: Path) -> tuple[Skill, list[Path]]:
    """One skill (its ``requires`` left empty) and the folders it requires."""
    path = folder / SKILL_FILE
    file = str(path)
    data = front_matter(path)
    for key in map(str, data):
        if key in FRONT_KEYS:
            continue
        if key in MCP_KEYS or _squash(key) == "mcpservers":
            raise ConfigError(
                "mcpnb reads this under 'mcp:' (mcp: {servers: …, requires: […]})", file=file, key=key
            )
        if did_you_mean(key, ["mcp"]):
            raise ConfigError("unknown key", file=file, key=key, suggestion="mcp")
        # any other key (argument-hint, model, version, …) is another tool's: a skill serves many
    name = _text(data, "name", file)
    description = _text(data, "description", file)
    mcp = data.get("mcp") or {}
    if not isinstance(mcp, Mapping):
        raise ConfigError("expected a mapping with 'servers' and/or 'requires'", file=file, key="mcp")
    for key in mcp:
        if key not in MCP_KEYS:
            hint = did_you_mean(str(key), MCP_KEYS)
            raise ConfigError("unknown key", file=file, key=f"mcp.{key}", suggestion=hint and f"mcp.{hint}")
    servers = mcp.get("servers") or {}
    if not isinstance(servers, Mapping):
        raise ConfigError("expected a mapping of server names to entries", file=file, key="mcp.servers")
    origin = f"skill {name!r}"
    entries = tuple(
        server_entry(str(n), entry, file=file, source="skill", origin=origin) for n, entry in servers.items()
    )
    refs = skill_list(mcp.get("requires"), file=file, key="mcp.requires")
    required = [
        locate(ref, [folder.parent], file=file, key=f"mcp.requires[{i}]", at=folder)
        for i, ref in enumerate(refs)
    ]
    return Skill(name, description, str(folder), file, entries), required


def front_matter(path: Path) -> Mapping[str, Any]:
    """The YAML between the first two ``---`` lines of a ``SKILL.md``."""
    file = str(path)
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", file=file) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", file=file) from None
    if not lines or lines[0].strip() != "---":
        raise ConfigError(
            "no front matter: a SKILL.md starts with a '---' line, then YAML, then '---'", file=file
        )
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() in ("---", "...")), None)
    if end is None:
        raise ConfigError("the front matter has no closing '---' line", file=file)
    data = read_text("\n".join(lines[1:end]), file, first_line=2)
    if not isinstance(data, Mapping):
        raise ConfigError("the front matter must be a YAML mapping (name, description, mcp)", file=file)
    return data


def locate(ref: str, places: list[Path], *, file: str, key: str, at: Path | None = None) -> Path:
    """The folder ``ref`` means: a path (relative to ``at``, or the first of ``places``), else a name
    looked up in ``places``. A folder without ``SKILL.md`` is an error, not a skipped skill."""
    written = Path(ref).expanduser()
    start = at if at is not None else places[0]
    candidate = written if written.is_absolute() else start / written
    if candidate.name == SKILL_FILE:
        candidate = candidate.parent
    if candidate.is_dir():
        return _checked(candidate, file, key)
    if any(sep in ref for sep in ("/", "\\")) or ref.startswith((".", "~")) or ref.endswith(SKILL_FILE):
        raise ConfigError(f"no skill folder {ref!r} (looked for {candidate})", file=file, key=key)
    for place in places:
        if (place / ref).is_dir():
            return _checked(place / ref, file, key)
    for place in places:
        for sub in _subfolders(place):
            if (sub / SKILL_FILE).is_file() and _declared_name(sub / SKILL_FILE) == ref:
                return sub.resolve()
    known = [sub.name for place in places for sub in _subfolders(place) if (sub / SKILL_FILE).is_file()]
    where = " or ".join(str(p) for p in places)
    raise ConfigError(
        f"no skill {ref!r}: no folder of that name, and no SKILL.md with that name, in {where}",
        file=file,
        key=key,
        suggestion=did_you_mean(ref, known),
    )


def _checked(folder: Path, file: str, key: str) -> Path:
    if not (folder / SKILL_FILE).is_file():
        raise ConfigError(
            f"the folder {folder} has no {SKILL_FILE}, so it is not a skill", file=file, key=key
        )
    return folder.resolve()


def _subfolders(place: Path) -> list[Path]:
    try:
        return sorted(p for p in place.iterdir() if p.is_dir())
    except OSError:
        return []


def _declared_name(path: Path) -> str | None:
    try:
        name = front_matter(path).get("name")
    except ConfigError:
        return None  # a broken neighbour is reported when it is used, not when it is passed by
    return name if isinstance(name, str) else None


def _squash(key: str) -> str:
    return key.lower().replace("-", "").replace("_", "")


def _text(data: Mapping[str, Any], key: str, file: str) -> str:
    value = data.get(key)
    if value is None:  # missing: perhaps misspelled (desciption), which other keys may be
        typo = next((k for k in map(str, data) if did_you_mean(k, [key]) == key), None)
        if typo is not None:
            raise ConfigError(f"required, and missing: is {typo!r} it, misspelled?", file=file, key=key)
    if not isinstance(value, str) or not value.strip():
        got = "nothing" if value is None else repr(value)
        raise ConfigError(f"expected a non-empty string, got {got}", file=file, key=key)
    return value.strip()
