"""Tab completion for ``%mcp`` / ``%%mcp``: subcommands, options, server names, ``NAME.TOOL``, ``key=``.

Completion runs while a person types, so it only uses what the pool already knows (the cached tool
lists) and swallows every error: a completer that raises or hangs is worse than none.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcpnb.notebook.magics.commands import COMMANDS

#: ``result = `` before a line magic, as IPython allows.
_ASSIGNED = re.compile(r"^\s*[A-Za-z_][\w.]*\s*=\s*(?=%)")
_SERVER_ARG = {"tools", "resources", "prompts", "disconnect", "reconnect", "logs", "read"}
_LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
_CHOICES = {"--era": ["auto", "legacy", "modern"], "--log-level": _LOG_LEVELS}
#: The longest a tab press waits for a server's completion/complete answer.
SERVER_COMPLETION_TIMEOUT = 1.0


def candidates(pool: Any, text_until_cursor: str) -> list[str]:
    """Completions for the word under the cursor, given the line up to the cursor (``r = %mcp …``
    too: the result captured into a variable)."""
    words = _ASSIGNED.sub("", text_until_cursor).split()
    if not words or not words[0].lstrip("%").startswith("mcp"):
        return []
    if text_until_cursor[-1:].isspace():
        words.append("")
    words = words[1:]
    if not words:
        return []
    if len(words) == 1:
        return [*COMMANDS, "--verbose"]
    sub, current, previous = words[0], words[-1], words[-2]
    command = COMMANDS.get(sub)
    if command is None:
        return []
    if previous in _CHOICES:
        return _CHOICES[previous]
    if previous == "--toolset":
        from mcpnb.probekit.toolsets import TOOLSETS

        return list(TOOLSETS)
    if previous == "--stop":
        return list(pool.names)
    if current.startswith("-"):
        return [*command.parser.option_strings(), "--verbose"]
    positional = [w for w in words[1:-1] if not w.startswith("-")]
    first = not positional
    if sub == "call":
        return _tool_names(pool) if first else _parameters(pool, positional[0], words)
    if sub == "prompt":
        return _prompt_names(pool) if first else _prompt_arguments(pool, positional[0], current, words)
    if sub in ("subscribe", "unsubscribe") and first:
        return list(pool.names)
    if sub == "serve" and first:
        return ["probe-kit"]
    if sub == "help" and first:
        return list(COMMANDS)
    if previous == "--input":
        return _input_ids(words)
    if sub == "config":  # %mcp config [PATH] [NAME ...]
        names = [*pool.names, *(n for n in _configured_names() if n not in pool.names)]
        return _paths(current) + names if first else names
    if previous == "--config":
        return _paths(current) + (_configured_names() if sub == "connect" else [])
    if sub == "connect" and "--config" in words:
        return _configured_names()
    if sub == "tools" and first:  # a server, or one tool in full
        return [*pool.names, *(_tool_names(pool) if "." in current else [])]
    if sub == "prompts" and first:  # a server, or one prompt in full
        return [*pool.names, *(_prompt_names(pool) if "." in current else [])]
    if sub in _SERVER_ARG and first:
        return list(pool.names)
    if sub == "skills":  # a server, then one of its skills
        return (
            list(pool.names) if first else _skill_names(pool, positional[0]) if len(positional) == 1 else []
        )
    return []


def _tool_names(pool: Any) -> list[str]:
    out: list[str] = []
    for server in pool.names:
        try:
            out += [f"{server}.{t.name}" for t in pool.tools(server)]
        except Exception:
            out.append(f"{server}.")
    return out


def _parameters(pool: Any, target: str, words: list[str]) -> list[str]:
    server, _, name = target.partition(".")
    try:
        tool = next(t for t in pool.tools(server) if t.name == name)
    except Exception:
        return []
    given = {w.split("=", 1)[0] for w in words if "=" in w}
    return [f"{p}=" for p in tool.parameters if p not in given]


def _prompt_names(pool: Any) -> list[str]:
    out: list[str] = []
    for server in pool.names:
        try:
            out += [f"{server}.{p.name}" for p in pool.prompts(server)]
        except Exception:
            continue
    return out


def _skill_names(pool: Any, server: str) -> list[str]:
    """The skills ``server`` lists (listing reads none of their files)."""
    try:
        return [skill.name for skill in pool.skills(server)]
    except Exception:
        return []


def _prompt_arguments(pool: Any, target: str, current: str, words: list[str]) -> list[str]:
    """``key=`` for the arguments not given yet; after ``key=``, the server's suggestions for it
    (``completion/complete``, with the arguments already typed as context). IPython splits words at
    ``=``, so a value is offered bare, matching the part after the ``=``."""
    server, _, name = target.partition(".")
    given = dict(w.split("=", 1) for w in words[1:-1] if "=" in w and not w.startswith("-"))
    if "=" in current:
        key, _, partial = current.partition("=")
        context = {k: v for k, v in given.items() if k != key} or None
        return pool.complete(server, name, key, partial, context, timeout=SERVER_COMPLETION_TIMEOUT)
    try:
        prompt = next(p for p in pool.prompts(server) if p.name == name)
    except Exception:
        return []
    return [f"{a.name}=" for a in (prompt.arguments or []) if a.name not in given]


def _paths(current: str, limit: int = 200) -> list[str]:
    """Folders and config files (``.json``, Codex's ``.toml``) where the word typed so far points, by
    name: IPython completes the part after the last ``/`` (``.vscode/`` then offers ``mcp.json``)."""
    folder, slash, _ = current.rpartition("/")
    where = Path(folder or "/").expanduser() if slash else Path()
    found = []
    for entry in sorted(where.iterdir())[:limit]:
        if entry.is_dir():
            found.append(entry.name + "/")
        elif entry.suffix in (".json", ".toml"):
            found.append(entry.name)
    return found


def _input_ids(words: list[str]) -> list[str]:
    """``ID=`` for each input the line's VS Code file declares and the line does not give yet."""
    from mcpnb.client.config.layers import vscode_variables

    after = words[words.index("--config") + 1 :] if "--config" in words else []
    path = next((w for w in after if w.endswith(".json")), None)
    variables = vscode_variables(path) if path else None
    if variables is None:
        return []
    given = {w.partition("=")[0] for prev, w in itertools.pairwise(words) if prev == "--input"}
    return [f"{i}=" for i in variables.declared if i not in given]


def _configured_names() -> list[str]:
    """Server names in the default ``.mcp.json`` files, read as plain JSON (no validation, no imports)."""
    names: list[str] = []
    for path in default_config_files():
        try:
            servers = json.loads(path.read_text(encoding="utf-8-sig")).get("mcpServers") or {}
            names += [n for n in servers if n not in names]
        except Exception:
            continue
    return names


def default_config_files() -> list[Path]:
    """The user, project and local files a bare ``%mcp connect --config`` would read (those that exist)."""
    from mcpnb.client.config import LOCAL_FILE, find_project_config, user_config_path

    found = [user_config_path()]
    project = find_project_config(Path.cwd())
    if project is not None:
        found += [project, project.parent / LOCAL_FILE]
    return [p for p in found if p.is_file()]


def make_hook(get_pool: Callable[[], Any]) -> Callable[[Any, Any], list[str]]:
    """An IPython ``complete_command`` hook (IPython filters the list by the word typed so far)."""

    def hook(_shell: Any, event: Any) -> list[str]:
        try:
            return candidates(get_pool(), event.text_until_cursor)
        except Exception:
            return []

    return hook


def make_matcher(get_pool: Callable[[], Any]) -> Any:
    """An IPython completion matcher (its API v2) for ``%mcp`` lines, which speaks for the whole
    line: the ``complete_command`` hook's names came after Jedi's, so Tab after ``%mcp call `` put
    Python's ``and``, ``if``, ``in`` first (and Enter took ``and``). Past the magic's name nothing
    else is offered; each name says what it is (tool, parameter, option, server or subcommand)."""
    from IPython.core.completer import SimpleCompletion, context_matcher

    @context_matcher()  # type: ignore[misc]
    def mcp_matcher(context: Any) -> dict[str, Any]:
        line = context.text_until_cursor
        words = _ASSIGNED.sub("", line).split()
        if not words or words[0] not in ("%mcp", "%%mcp") or (len(words) == 1 and not line[-1:].isspace()):
            return {"completions": [], "suppress": False}  # not ours, or the magic's own name
        try:
            found = candidates(get_pool(), line)
        except Exception:
            found = []
        token = context.token
        sub = words[1] if len(words) > 2 or (line[-1:].isspace() and len(words) == 2) else None
        servers = set(getattr(get_pool(), "names", ()))
        chosen = [
            SimpleCompletion(c, type=_kind(c, sub, servers))
            for c in dict.fromkeys(found)
            if c.startswith(token)
        ]
        return {"completions": chosen, "suppress": True, "ordered": True}

    return mcp_matcher


def _kind(candidate: str, sub: str | None, servers: set[str]) -> str:
    """What a completion is, for the editor's list (JupyterLab shows it beside the name)."""
    if sub is None:
        return "subcommand"
    if candidate.startswith("-"):
        return "option"
    if candidate.endswith("="):
        return "parameter"
    if candidate in servers:
        return "server"
    if "/" in candidate or candidate.endswith((".json", ".toml")):
        return "path"
    if "." in candidate:
        return "prompt" if sub in ("prompt", "prompts") else "tool"
    return "value"
