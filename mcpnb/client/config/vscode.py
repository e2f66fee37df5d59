"""VS Code's ``.vscode/mcp.json``: ``servers`` (not ``mcpServers``), ``inputs``, comments, variables.

A notebook opened in VS Code often sits in a workspace that already lists its MCP servers there.
Named as a config file (``%mcp connect --config .vscode/mcp.json``; any file in this format but
``.mcp.json`` and ``.mcp.local.json``, which other clients read in theirs), it is read as VS Code
reads it:

- JSON with comments and trailing commas (only for a file in this format);
- ``${env:NAME}``, ``${workspaceFolder}`` (the folder holding ``.vscode``), ``${workspaceFolderBasename}``,
  ``${userHome}``, ``${pathSeparator}`` / ``${/}``;
- ``${input:ID}``: VS Code prompts for these; here their values come with the connect
  (``--input ID=VALUE``, ``inputs={ID: ...}``), and a server whose input was not given is a failed
  row that says how to give it, while the others start. A ``password`` input is a secret: scrubbed
  from every message, like a secret-named variable;
- ``envFile``: the variables of an env file (``KEY=VALUE`` lines; relative to the workspace
  folder) go into the server's ``env``, under the ones ``env`` names itself;
- VS Code's own keys that do not change how a server runs (``dev``, ``gallery``, ``version``) are
  left out; so is its sandbox (``sandboxEnabled``, ``sandbox``), which mcpnb does not apply (a
  warning says so when it is on); the rest are ``.mcp.json`` keys.

Cursor's ``.cursor/mcp.json`` keeps ``mcpServers`` (plain JSON) but expands the same variables,
without inputs (:func:`cursor_variables`), and reads ``envFile`` the same way (:func:`with_env_file`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpnb.client.config.expand import escape, expand
from mcpnb.client.config.validate import Refused, kind
from mcpnb.client.errors import ConfigError, did_you_mean

#: VS Code-only keys of a server entry: development aids and gallery bookkeeping.
IGNORED_KEYS = frozenset({"dev", "gallery", "version"})
#: VS Code's sandbox for a stdio server (its file system and network limits): mcpnb has none.
SANDBOX_KEYS = frozenset({"sandboxEnabled", "sandbox"})
_TOP_KEYS = ("servers", "inputs")
#: A JSON string, a comment, or anything else (kept): comments become spaces, so positions hold.
_JSONC = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)
_INPUT = re.compile(r"\$\{input:([^}]*)\}")
_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[}\]])', re.S)


def is_vscode(data: Any) -> bool:
    """VS Code's layout: a top-level ``servers`` object and no ``mcpServers``."""
    return isinstance(data, dict) and "servers" in data and "mcpServers" not in data


def without_comments(text: str) -> str:
    """``text`` with ``//`` and ``/* */`` comments and trailing commas blanked (line and column of
    everything else unchanged, so a JSON error still points at the right place)."""

    def blank(m: re.Match[str]) -> str:
        s = m.group(0)
        return s if s.startswith('"') else re.sub(r"[^\n]", " ", s)

    return _TRAILING_COMMA.sub(blank, _JSONC.sub(blank, text))


@dataclass(frozen=True)
class Input:
    """One of the file's ``inputs``: what VS Code would prompt for (``promptString``, or
    ``pickString`` with its ``options`` as ``(value, label)`` pairs)."""

    id: str
    description: str = ""
    password: bool = False
    default: str | None = None
    options: tuple[tuple[str, str], ...] = ()


@dataclass
class Variables:
    """What ``${…}`` means in one VS Code file: its workspace folder and the inputs' values."""

    file: str
    workspace: Path
    declared: dict[str, Input] = field(default_factory=dict)
    values: Mapping[str, str] = field(default_factory=dict)
    #: server -> the input ids its entry uses, in order (a disabled server uses none: it never starts)
    used: dict[str, list[str]] = field(default_factory=dict)

    def lacking(self, servers: Iterable[str] | None = None) -> dict[str, list[str]]:
        """Each declared input that ``servers`` (default: every one) use and nobody gave, with the
        servers that use it: what VS Code would prompt for before starting them. One with a
        ``default`` is listed too (a person may choose another), and takes it where nobody answers."""
        found: dict[str, list[str]] = {}
        for server in self.used if servers is None else servers:
            for i in self.used.get(server, []):
                if i in self.declared and i not in self.values:
                    found.setdefault(i, []).append(server)
        return found

    def expand(
        self,
        body: str,
        environ: Mapping[str, str],
        fail: Callable[..., ConfigError],
        found: set[str],
    ) -> str | None:
        """The value of ``${body}``, or None when it is not a VS Code variable (then ``${VAR}``)."""
        kind, colon, name = body.partition(":")
        if not colon:
            predefined = {
                "workspaceFolder": str(self.workspace),
                "workspaceFolderBasename": self.workspace.name,
                "userHome": str(Path.home()),
                "pathSeparator": os.sep,
                "/": os.sep,
            }
            return predefined.get(body)
        if kind == "env":
            value = environ.get(name)
            if value is None:
                raise fail(
                    f"environment variable {name!r} is not set", suggestion=did_you_mean(name, environ)
                )
            return value
        if kind == "input":
            return self._input(name, fail, found)
        if kind in ("config", "command"):
            raise fail(
                f"${{{body}}} asks VS Code itself (its settings or a command), which a notebook cannot: "
                "write the value, or ${env:NAME} for one from the environment"
            )
        return None

    def _input(self, name: str, fail: Callable[..., ConfigError], found: set[str]) -> str:
        declared = self.declared.get(name)
        if declared is None:
            hint = did_you_mean(name, self.declared)
            known = ", ".join(self.declared) or "none"
            raise fail(
                f"${{input:{name}}}: the file's inputs declare no {name!r} (they declare: {known})",
                suggestion=hint and f"${{input:{hint}}}",
            )
        value = self.values.get(name)
        server = fail("").server or ""
        if value is None and server and server not in self.used:
            return ""  # a disabled server: never started, so nothing to prompt for
        if value is None and declared.default is not None:
            value = declared.default  # nobody answered: what VS Code's prompt would start with
        if value is None:  # say every input this server lacks, not one per attempt
            unanswered = [i for i in self.lacking([server]) if self.declared[i].default is None]
            raise fail(self._lacking(unanswered or [name]))
        if declared.password and value:
            found.add(value)
        return value

    def _lacking(self, ids: list[str]) -> str:
        described = [
            f"{i!r} ({self.declared[i].description})" if self.declared[i].description else repr(i)
            for i in ids
        ]
        several = len(ids) > 1
        flags = " ".join(f"--input {i}=VALUE" for i in ids)
        given = ", ".join(f"{i!r}: ..." for i in ids)
        return (
            f"needs input{'s' if several else ''} {' and '.join(described)}, which VS Code would prompt "
            f"for: give {'them' if several else 'it'} with --config {self.file} {flags} (%mcp connect, "
            f"%%mcp require; a {{{{variable}}}} keeps a value out of the notebook), or inputs={{{given}}} "
            "(pool.connect_config, pool.require)"
        )


def read_servers(
    data: dict[str, Any],
    path: Path,
    inputs: Mapping[str, str] | None,
    environ: Mapping[str, str] | None = None,
) -> tuple[dict[str, Any], Variables]:
    """The ``servers`` of a VS Code file as ``mcpServers`` entries, and how to expand their ``${…}``."""
    file = str(path)
    for key in data:
        if key not in _TOP_KEYS:
            raise ConfigError(
                "unknown top-level key", file=file, key=key, suggestion=did_you_mean(key, _TOP_KEYS)
            )
    servers = data["servers"]
    if not isinstance(servers, dict):
        raise ConfigError("expected an object mapping server names to settings", file=file, key="servers")
    declared = _inputs(data.get("inputs", []), file)
    unknown = [i for i in inputs or {} if i not in declared]
    if unknown:
        hint = did_you_mean(unknown[0], declared)
        raise ConfigError(
            f"an input was given for {unknown[0]!r}, which the file does not declare "
            f"(it declares: {', '.join(declared) or 'none'})",
            file=file,
            key="inputs",
            suggestion=hint,
        )
    workspace = _workspace(path)
    entries = {
        name: _own_keys(name, entry, file) if isinstance(entry, dict) else entry
        for name, entry in servers.items()
    }
    used = {
        name: list(dict.fromkeys(_INPUT.findall(json.dumps(entry))))
        for name, entry in entries.items()
        if not (isinstance(entry, dict) and entry.get("enabled") is False)
    }
    variables = Variables(file, workspace, declared, dict(inputs or {}), used)
    for name, entry in entries.items():
        if isinstance(entry, dict) and "envFile" in entry:
            entries[name] = with_env_file(name, entry, variables, os.environ if environ is None else environ)
    return entries, variables


def _own_keys(name: str, entry: dict[str, Any], file: str) -> dict[str, Any]:
    """The entry without VS Code's own keys (:data:`IGNORED_KEYS`, :data:`SANDBOX_KEYS`). A sandbox
    asked for is not applied here, and a warning says so: the server runs with the kernel's own
    access to files and network, which the person should know before it starts."""
    if entry.get("sandboxEnabled") is True and entry.get("enabled") is not False:
        import warnings

        warnings.warn(
            f"{file}: server {name!r}: sandboxEnabled is not applied here: VS Code runs it in a sandbox, "
            "mcpnb runs it with the kernel's own access to files and the network (set "
            '"sandboxEnabled": false, or leave the server out, to stop this warning)',
            UserWarning,
            stacklevel=2,
        )
    return {k: v for k, v in entry.items() if k not in IGNORED_KEYS | SANDBOX_KEYS}


def with_env_file(name: str, entry: dict[str, Any], variables: Variables, environ: Mapping[str, str]) -> Any:
    """The entry with its ``envFile``'s variables in ``env`` (a variable ``env`` names itself wins),
    read when the file is; a file that cannot be read refuses that server alone (:class:`Refused`)."""
    rest = {k: v for k, v in entry.items() if k != "envFile"}
    if rest.get("enabled") is False or not isinstance(rest.get("env", {}), dict):
        return rest  # never started, or its env is wrong (the schema says how): nothing to read

    def fail(message: str, suggestion: str | None = None) -> ConfigError:
        return ConfigError(message, file=variables.file, server=name, key="envFile", suggestion=suggestion)

    raw = entry["envFile"]
    try:
        if not isinstance(raw, str) or not raw:
            raise fail(f"expected the path of an environment file, got {kind(raw)}")
        where = Path(expand(raw, environ, fail, set(), variables)).expanduser()
        values = _env_file(where if where.is_absolute() else variables.workspace / where, fail)
    except ConfigError as exc:
        return Refused(exc, rest)
    rest["env"] = {**{k: escape(v) for k, v in values.items()}, **rest.get("env", {})}
    return rest


def _env_file(path: Path, fail: Callable[..., ConfigError]) -> dict[str, str]:
    """``KEY=VALUE`` lines as VS Code reads an env file: comments, ``export``, quotes; values as
    written (no ``${…}`` inside them expanded); a bare ``KEY`` sets nothing."""
    from dotenv import dotenv_values

    if not path.is_file():
        raise fail(f"{path} is not a file (a relative envFile is taken from the workspace folder)")
    try:
        values = dotenv_values(path, interpolate=False, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    return {k: v for k, v in values.items() if v is not None}


def cursor_variables(path: Path) -> Variables | None:
    """Cursor's ``.cursor/mcp.json`` is ``mcpServers`` JSON, as ours, but expands VS Code's
    variables (``${env:NAME}``, ``${workspaceFolder}``, ``${userHome}``, …; it has no inputs)."""
    return Variables(str(path), _workspace(path)) if path.resolve().parent.name == ".cursor" else None


def _workspace(path: Path) -> Path:
    """``${workspaceFolder}``: the folder holding the editor's ``.vscode`` or ``.cursor``."""
    folder = path.resolve().parent
    return folder.parent if folder.name in (".vscode", ".cursor") else folder


def _inputs(raw: Any, file: str) -> dict[str, Input]:
    if not isinstance(raw, list):
        raise ConfigError("expected a list of inputs", file=file, key="inputs")
    found: dict[str, Input] = {}
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
            raise ConfigError("expected an object with an 'id'", file=file, key=f"inputs[{i}]")
        default = item.get("default")
        found[item["id"]] = Input(
            item["id"],
            str(item.get("description") or ""),
            bool(item.get("password")),
            None if default is None else str(default),
            _options(item.get("options"), file, f"inputs[{i}].options"),
        )
    return found


def _options(raw: Any, file: str, key: str) -> tuple[tuple[str, str], ...]:
    """A ``pickString``'s options: strings, or ``{"label", "value"}`` objects as VS Code allows."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ConfigError("expected a list of options", file=file, key=key)
    found = []
    for option in raw:
        if isinstance(option, dict) and isinstance(option.get("value"), str):
            found.append((option["value"], str(option.get("label") or option["value"])))
        elif isinstance(option, str):
            found.append((option, option))
        else:
            raise ConfigError('expected a string or {"label": ..., "value": ...}', file=file, key=key)
    return tuple(found)
