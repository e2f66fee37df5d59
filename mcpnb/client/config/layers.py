"""Config files and their layers: user → project (``.mcp.json``) → local (``.mcp.local.json``) → code.

``platformdirs`` (for the user layer's default place) is imported on first use.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from mcpnb.client.config import cline, codex, gemini, roo, signin_forms, windsurf
from mcpnb.client.config.frozen import FrozenDict
from mcpnb.client.config.keys import TRANSPORT_KEYS, TRANSPORT_NAMING, TRANSPORTS
from mcpnb.client.config.model import CODE_SOURCE, ConfigSet, ServerConfig, assemble
from mcpnb.client.config.resolve import transport_of_url
from mcpnb.client.config.validate import NESTED_TOO_DEEP, Refused, kind, parse
from mcpnb.client.config.vscode import (
    Variables,
    cursor_variables,
    is_vscode,
    read_servers,
    with_env_file,
    without_comments,
)
from mcpnb.client.errors import ConfigError, did_you_mean, json_problem
from mcpnb.client.redact import is_secret_key, url_secrets

PROJECT_FILE = ".mcp.json"
LOCAL_FILE = ".mcp.local.json"
VSCODE_FILE = ".vscode/mcp.json"


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$MCPNB_USER_CONFIG`` if set, else ``<user config dir>/mcpnb/mcp.json``."""
    env = os.environ if environ is None else environ
    if env.get("MCPNB_USER_CONFIG"):
        return Path(env["MCPNB_USER_CONFIG"]).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("mcpnb")) / "mcp.json"


def find_project_config(start: Path) -> Path | None:
    """``.mcp.json`` in ``start`` or its nearest parent: a notebook in ``project/notebooks/`` still
    finds the project's servers."""
    return _find_upward(Path(start), PROJECT_FILE)


#: Other MCP clients' project files (read only when named), and the key their servers go under.
OTHER_CLIENTS = {
    "VS Code": (VSCODE_FILE, '"servers"'),
    "Cursor": (".cursor/mcp.json", '"mcpServers"'),
    "Gemini CLI": (".gemini/settings.json", '"mcpServers"'),
    "Codex": (".codex/config.toml", "mcp_servers"),
    "Roo Code": (".roo/mcp.json", '"mcpServers"'),
    "Kilo Code": (".kilocode/mcp.json", '"mcpServers"'),
}


def find_vscode_config(start: Path) -> Path | None:
    """VS Code's ``.vscode/mcp.json`` in ``start`` or its nearest parent (read only when named)."""
    return _find_upward(Path(start), VSCODE_FILE)


def find_other_configs(start: Path) -> dict[str, Path]:
    """Other MCP clients' files that list servers, in ``start`` or its nearest parent, by client:
    where a person who found no ``.mcp.json`` may have them."""
    found = {}
    for client, (filename, key) in OTHER_CLIENTS.items():
        path = _find_upward(Path(start), filename)
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if path is not None and key in path.read_text(encoding="utf-8-sig"):
                found[client] = path
    return found


def vscode_variables(path: str | Path, inputs: Mapping[str, str] | None = None) -> Variables | None:
    """What ``${…}`` means in ``path`` (its inputs: which servers use which), or None when the file
    is not in VS Code's format. Its warnings are not said again: the read that loads the servers
    says them (a sandbox not applied was said twice)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _file_servers(Path(path).expanduser(), inputs)[1]


def load_file(
    path: str | Path,
    *,
    environ: Mapping[str, str] | None = None,
    inputs: Mapping[str, str] | None = None,
) -> dict[str, ServerConfig]:
    """Every server of one file, fully validated on its own (no layering)."""
    path = Path(path)
    servers, variables = _file_servers(path, inputs, environ)
    own = {str(path): variables} if variables is not None else None
    return {
        name: ServerConfig.from_dict(name, entry, source=str(path), environ=environ, variables=own)
        for name, entry in servers.items()
    }


def load_config(
    start: str | Path | None = None,
    *,
    path: str | Path | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    environ: Mapping[str, str] | None = None,
    keep_going: bool = False,
    inputs: Mapping[str, str] | None = None,
    auth: Mapping[str, Any] | None = None,
) -> ConfigSet:
    """Merge user → project → local → ``overrides``; later layers win per server, key by key.

    A layer that names a transport (``command``, ``url``, ``type``) replaces the earlier layer's way
    of reaching the server wholesale: a local ``url`` must not inherit the project's ``args``.
    ``env`` and ``headers`` otherwise merge entry by entry, so ``.mcp.local.json`` can add a secret
    variable without repeating the project's others (a header replaces one whose name differs only
    in case: HTTP sees one header). An explicit ``path`` that does not exist is an
    error; a missing layer file found by search is simply skipped.

    An invalid server raises :class:`ConfigError`; with ``keep_going`` it is left out and named in
    ``problems`` with what is wrong, so the others can start. A file that cannot be read as a whole
    (bad JSON, no ``mcpServers``) raises either way.

    A file in VS Code's format (``servers``, ``inputs``: see :mod:`.vscode`) is read as VS Code
    reads it; ``inputs`` gives the values of its ``${input:ID}`` s.

    ``auth`` (``{"type": "oauth", "flow": "authorization_code"}``: ``%mcp connect --config
    --oauth``) goes to every server of the project's files (``path``, or the ``.mcp.json`` found, and
    its local file) reached by URL that says nothing of how to sign in (no ``auth``, no
    ``Authorization`` header): VS Code, Cursor and Claude Code sign in to such a server by
    themselves when it asks for OAuth, and their files say nothing of it. Never to a server of the
    user's own file: a token given for a project must not reach a server set up elsewhere.
    """
    user = user_config_path(environ)
    if path is not None:
        project: Path | None = Path(path).expanduser()
        if not project.is_file():
            raise ConfigError("file not found", file=str(project))
        local: Path | None = project.parent / LOCAL_FILE
    else:
        here = Path.cwd() if start is None else Path(start).expanduser()
        here = here.parent if here.is_file() else here
        project = find_project_config(here)
        local = project.parent / LOCAL_FILE if project else _find_upward(here, LOCAL_FILE)

    read: list[Path] = []
    projects = {str(p) for p in (project, local) if p is not None and p.is_file()}
    if user is not None:
        projects.discard(str(user))  # the user's file doubling as the project's stays the user's
    for candidate in (user, project, local):
        if candidate is None or not candidate.is_file():
            continue
        if candidate.resolve() not in {p.resolve() for p in read}:  # e.g. the user file is the project's
            read.append(candidate)
    layers: list[tuple[str, Mapping[str, Any]]] = []
    variables: dict[str, Variables] = {}  # file -> the ${…} of a VS Code file
    for p in read:
        servers, own = _file_servers(p, inputs, environ)
        layers.append((str(p), servers))
        if own is not None:
            variables[str(p)] = own
    if overrides:
        if not isinstance(overrides, Mapping):
            raise ConfigError(f"overrides must map server names to settings, got {kind(overrides)}")
        layers.append((CODE_SOURCE, overrides))

    # Per server: the merged settings, the file that wrote each one and how, the last file naming it.
    merged: dict[str, dict[str, Any]] = {}
    origins: dict[str, dict[str, str]] = {}
    spelled: dict[str, dict[str, str]] = {}
    last: dict[str, str] = {}
    in_project: set[str] = set()  # the servers a project file names (they may take ``auth``)
    asked = {p.resolve() for p in (project, local) if path is not None and p is not None and p.is_file()}
    named = {str(p) for p in read if p.resolve() in asked}  # as read: the user's file by its own spelling
    in_named: list[str] = []  # the servers the file given as ``path`` (or its local file) names
    problems: dict[str, str] = {}
    reached: dict[str, str] = {}  # how each server is reached, as far as its raw entries say

    def invalid(name: str, exc: ConfigError) -> None:
        if not keep_going:
            raise exc
        problems.setdefault(name, str(exc))

    for source, servers in layers:
        for name, data in servers.items():
            reached[name] = _reach_of(data) or reached.get(name, "?")
            if source in named and name not in in_named:
                in_named.append(name)
            try:
                canon, spell = parse(name, data, source)
            except ConfigError as exc:
                invalid(name, exc)
                continue
            base, where = merged.setdefault(name, {}), origins.setdefault(name, {})
            if TRANSPORT_NAMING & canon.keys():
                for key in TRANSPORT_KEYS:
                    base.pop(key, None)
                    where.pop(key, None)
            for key, value in canon.items():
                if key == "headers" and key in base:  # HTTP names ignore case: a later layer's wins
                    value = {
                        **{h: v for h, v in base[key].items() if h.lower() not in _lower(value)},
                        **value,
                    }
                elif key == "env" and key in base:
                    value = {**base[key], **value}
                base[key] = value
                where[key] = source
            spelled.setdefault(name, {}).update(spell)
            last[name] = source
            if source in projects:
                in_project.add(name)
    configs: dict[str, ServerConfig] = {}
    for name, canon in merged.items():
        if name in problems:  # one of its layers is invalid: the rest alone would be a guess
            continue
        if auth is not None and name in in_project and signs_in_unsaid(canon):
            canon = {**canon, "auth": dict(auth)}
            origins[name]["auth"] = CODE_SOURCE
        try:
            configs[name] = assemble(
                name,
                canon,
                spelled=spelled[name],
                origins=origins[name],
                source=last[name],
                server=None,
                environ=environ,
                variables=variables,
            )
        except ConfigError as exc:
            invalid(name, exc)
    return ConfigSet(
        servers=FrozenDict(configs),
        files=tuple(read),
        problems=FrozenDict(problems),
        problem_transports=FrozenDict({name: reached[name] for name in problems}),
        order=tuple(reached),
        named_file_servers=tuple(n for n in reached if n in in_named) if path is not None else None,
    )


def signs_in_unsaid(canon: Mapping[str, Any]) -> bool:
    """A server reached by URL whose settings say nothing of signing in: no ``auth``, and no
    header that may carry a credential (``Authorization``, ``X-Api-Key``), no key in its URL."""
    headers = canon.get("headers")
    said = isinstance(headers, Mapping) and any(is_secret_key(h) for h in headers)
    url = canon.get("url")
    if not isinstance(url, str) or "command" in canon or "auth" in canon:
        return False
    return not said and not url_secrets(url)  # ?api_key=… signs in already


def _reach_of(data: Any) -> str | None:
    """The transport a raw entry names or implies (``command``, ``url``), for the status row of a
    server whose settings are invalid: only what it says, nothing checked."""
    if isinstance(data, Refused):
        data = data.reach
    if not isinstance(data, Mapping):
        return None
    named = data.get("transport", data.get("type"))
    if isinstance(named, str) and named in TRANSPORTS:
        return TRANSPORTS[named]
    if "command" in data:
        return "stdio"
    return transport_of_url(data["url"]) if isinstance(data.get("url"), str) else None


def _find_upward(start: Path, filename: str) -> Path | None:
    start = start.resolve()
    for directory in (start, *start.parents):
        candidate = directory / filename
        if candidate.is_file():
            return candidate
    return None


def _file_servers(
    path: Path, inputs: Mapping[str, str] | None = None, environ: Mapping[str, str] | None = None
) -> tuple[Mapping[str, Any], Variables | None]:
    """The ``mcpServers`` object of one file, with syntax and top-level shape checked; for a file in
    VS Code's format, its ``servers`` and what its ``${…}`` mean; for Codex's, Gemini CLI's, Cline's,
    Roo Code's and Windsurf's, their servers as mcpnb entries."""
    environ = os.environ if environ is None else environ  # what other clients' variables read
    if codex.is_codex(path):
        return codex.read_servers(codex.read_toml(path), path, environ), None
    data = _read_json(path)
    file = str(path)
    if not isinstance(data, dict):
        raise ConfigError(f"expected a JSON object at the top level, got {kind(data)}", file=file)
    if is_vscode(data) and _may_be_vscode(path):
        return read_servers(data, path, inputs, environ)
    if gemini.is_gemini(path) and isinstance(data.get("mcpServers"), dict):  # beside its own "mcp"
        return gemini.read_servers(data, path, environ), None
    if cline.is_cline(path) and isinstance(data.get("mcpServers"), dict):
        return cline.read_servers(data, path), None
    if roo.is_roo(path) and isinstance(data.get("mcpServers"), dict):
        return roo.read_servers(data, path, environ), None
    if windsurf.is_windsurf(path) and isinstance(data.get("mcpServers"), dict):
        return windsurf.read_servers(data, path), None
    if is_vscode(data):  # _may_be_vscode is False: VS Code's servers pasted into .mcp.json
        keys = "'servers' and 'inputs'" if "inputs" in data else "'servers'"
        raise ConfigError(
            f"this is VS Code's format (top-level {keys}), "
            f"which {path.name} does not hold: other clients read {path.name} with 'mcpServers'. Keep it "
            "in a file of VS Code's (.vscode/mcp.json, or any name but .mcp.json and .mcp.local.json, "
            "like mcp.vscode.json) and connect with --config PATH: its inputs and ${input:ID} work "
            "there; or put the servers under 'mcpServers' here, without inputs",
            file=file,
            key="servers",
            suggestion="mcpServers",
        )
    for key in data:
        if key != "mcpServers" and (
            key.lower().replace("_", "").replace("-", "") in ("mcpservers", "mcpserver", "servers", "mcp")
            or did_you_mean(key, ["mcpServers"])
        ):
            raise ConfigError(
                "unknown top-level key: servers go under 'mcpServers'",
                file=file,
                key=key,
                suggestion="mcpServers",
            )
    if "mcpServers" not in data:
        raise ConfigError("no 'mcpServers' object: servers go under a top-level 'mcpServers' key", file=file)
    servers = data["mcpServers"]
    if not isinstance(servers, dict):
        raise ConfigError(
            f"expected an object mapping server names to settings, got {kind(servers)}",
            file=file,
            key="mcpServers",
        )
    variables = cursor_variables(path)
    servers = signin_forms.read_servers(servers, file)
    if variables is not None:  # Cursor's envFile, read as VS Code reads it
        servers = {
            name: with_env_file(name, entry, variables, environ)
            if isinstance(entry, dict) and "envFile" in entry
            else entry
            for name, entry in servers.items()
        }
    return servers, variables


def _may_be_vscode(path: Path) -> bool:
    """VS Code's format, from any file but ``.mcp.json``/``.mcp.local.json``: those other clients read
    too, in theirs (``mcpServers``, plain JSON)."""
    return path.name not in (PROJECT_FILE, LOCAL_FILE)


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:  # JSON would silently keep the last one: a copy-paste slip that hides a server
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _no_constants(token: str) -> NoReturn:
    raise ValueError(f"{token} is not valid JSON")


def _read_json(path: Path) -> Any:
    file = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", file=file) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", file=file) from None
    try:
        return _parse_json(text, file)
    except json.JSONDecodeError as exc:
        if not _may_be_vscode(path):
            raise ConfigError(json_problem(text, exc), file=file) from None
        # VS Code's mcp.json may have comments and trailing commas; read that way, an error in a
        # file of its own format is the one to show ("JSON does not allow comments" would mislead)
        relaxed = without_comments(text)
        try:
            data = _parse_json(relaxed, file)
        except json.JSONDecodeError as in_vscode:
            if '"servers"' in text and '"mcpServers"' not in text:
                raise ConfigError(json_problem(relaxed, in_vscode), file=file) from None
            raise ConfigError(json_problem(text, exc), file=file) from None
        if is_vscode(data) or gemini.is_gemini(path):  # Gemini CLI's settings allow comments too
            return data
        raise ConfigError(json_problem(text, exc), file=file) from None


def _parse_json(text: str, file: str) -> Any:
    """``text`` as JSON (a ``JSONDecodeError`` for bad syntax, a located error for the rest)."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except json.JSONDecodeError:
        raise
    except _DuplicateKey as exc:
        raise ConfigError("key appears twice in the same object", file=file, key=str(exc)) from None
    except RecursionError:
        raise ConfigError(NESTED_TOO_DEEP, file=file) from None
    except ValueError as exc:
        raise ConfigError(str(exc), file=file) from None


def _lower(names: Mapping[str, Any]) -> set[str]:
    return {n.lower() for n in names}
