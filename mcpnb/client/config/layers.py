"""Config files and their layers: site → user → project (``.mcp.json``) → local (``.mcp.local.json``)
→ code.

``platformdirs`` (for the user layer's default place) is imported on first use.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from mcpnb.client.config import cline, codex, gemini, roo, signin_forms, windsurf
from mcpnb.client.config.frozen import FrozenDict
from mcpnb.client.config.keys import TRANSPORT_KEYS, TRANSPORT_NAMING, TRANSPORTS
from mcpnb.client.config.model import CODE_SOURCE, ConfigSet, ServerConfig, assemble
from mcpnb.client.config.resolve import transport_of_url
from mcpnb.client.config.validate import NESTED_TOO_DEEP, Refused, kind, parse, read_text
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


USER_CONFIG_ENV = "MCPNB_USER_CONFIG"
SITE_CONFIG_ENV = "MCPNB_SITE_CONFIG"


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$MCPNB_USER_CONFIG`` if set, else ``<user config dir>/mcpnb/mcp.json``. Spaces and line
    endings around the variable's value are not part of the path (a spawner's environment written
    in a file saved on Windows ends each value in ``\\r``), and one that is blank is not set."""
    env = os.environ if environ is None else environ
    given = env.get(USER_CONFIG_ENV, "").strip()
    if given:
        return Path(given).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("mcpnb")) / "mcp.json"


def site_config_paths(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Where an administrator sets defaults for everyone on a machine or in an environment (a
    JupyterHub's users): each file is read before the user's, which overrides it server by server
    and key by key. ``$MCPNB_SITE_CONFIG`` (paths separated by ``os.pathsep``) if set, else
    ``mcpnb/mcp.json`` in the folders Jupyter keeps its own system-wide config in, the most general
    first: ``/etc``, ``/usr/local/etc``, then ``{sys.prefix}/etc`` (the environment's) wins;
    ``%PROGRAMDATA%`` before ``{sys.prefix}/etc`` on Windows."""
    env = os.environ if environ is None else environ
    given = [p.strip() for p in env.get(SITE_CONFIG_ENV, "").split(os.pathsep) if p.strip()]
    if given:
        return tuple(Path(p).expanduser() for p in given)
    if os.name == "nt":
        folders = [Path(env["PROGRAMDATA"])] if env.get("PROGRAMDATA", "").strip() else []
    else:
        folders = [Path("/etc"), Path("/usr/local/etc")]
    found: list[Path] = []
    for folder in (*folders, Path(sys.prefix) / "etc"):
        path = folder / "mcpnb" / "mcp.json"
        if path not in found:  # sys.prefix is /usr/local for a system Python
            found.append(path)
    return tuple(found)


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
        with contextlib.suppress(ConfigError):  # one that cannot be read points nowhere
            if path is not None and key in read_text(path):
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
    """Merge site → user → project → local → ``overrides``; later layers win per server, key by key.

    A layer that names a transport (``command``, ``url``, ``type``) replaces the earlier layer's way
    of reaching the server wholesale: a local ``url`` must not inherit the project's ``args``.
    ``env`` and ``headers`` otherwise merge entry by entry, so ``.mcp.local.json`` can add a secret
    variable without repeating the project's others (a header replaces one whose name differs only
    in case: HTTP sees one header). An explicit ``path`` that does not exist is an
    error; a missing layer file found by search is simply skipped. One that exists but cannot be
    read (its permissions, a folder on the way one may not enter) is skipped too, with a warning
    that names it and why, and in ``unread``: an administrator's file a user may not read must not
    take the user's own servers with it (:func:`site_config_paths`).

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
    site = site_config_paths(environ)
    user = user_config_path(environ)
    unread: dict[str, str] = {}  # file -> why it could not be read (it is left out)
    if path is not None:
        project: Path | None = Path(path).expanduser()
        if not is_file(project, unread):
            why = unread.pop(str(project), None)
            raise ConfigError(f"cannot read: {why}" if why else "file not found", file=str(project))
        local: Path | None = project.parent / LOCAL_FILE
    else:
        here = Path.cwd() if start is None else Path(start).expanduser()
        here = here.parent if here.is_file() else here
        project = find_project_config(here)
        local = project.parent / LOCAL_FILE if project else _find_upward(here, LOCAL_FILE)

    read: list[Path] = []
    projects = {str(p) for p in (project, local) if p is not None and is_file(p)}
    for own in (*site, user):  # the user's (or the site's) file doubling as the project's stays theirs
        projects.discard(str(own))
    for candidate in (*site, user, project, local):
        if candidate is None or not is_file(candidate, unread):
            continue
        if candidate.resolve() not in {p.resolve() for p in read}:  # e.g. the user file is the project's
            if candidate is project and path is not None:
                read.append(candidate)  # the file asked for: one that cannot be read says so below
            elif (why := _unreadable(candidate)) is None:
                read.append(candidate)
            else:
                unread[str(candidate)] = why
    _warn_unread(unread)
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
        unread=FrozenDict(unread),
    )


def is_file(path: Path, unread: dict[str, str] | None = None) -> bool:
    """Whether ``path`` is a file; one whose folder may not be entered (a permission) is not, and
    why goes in ``unread``. ``Path.is_file`` raises there, and a layer found by search that nobody
    can look into must not stop the others."""
    try:
        return path.is_file()
    except OSError as exc:
        if unread is not None:
            unread[str(path)] = exc.strerror or str(exc)
        return False


def _unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be opened for reading (``Permission denied``), or None when it can."""
    try:
        with open(path, "rb"):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)


def _warn_unread(unread: Mapping[str, str]) -> None:
    """Say which files were left out, once each: a person who cannot read an administrator's
    file (or their own, after a ``chmod``) should know why its servers are missing, and that the
    others still apply."""
    if not unread:
        return
    import warnings

    for file, why in unread.items():
        warnings.warn(
            f"{file}: cannot read ({why}): its servers are left out, the other config files still apply "
            "(make it readable to you, or ask whoever keeps it: chmod a+r for a file all users share)",
            UserWarning,
            stacklevel=3,
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
        if is_file(candidate):  # a folder one may not enter holds nothing for us
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
    text = read_text(path)
    try:
        return _parse_json(text, file)
    except json.JSONDecodeError as exc:
        if not _may_be_vscode(path):
            raise ConfigError(config_json_problem(text, exc), file=file) from None
        # VS Code's mcp.json may have comments and trailing commas; read that way, an error in a
        # file of its own format is the one to show ("JSON does not allow comments" would mislead)
        relaxed = without_comments(text)
        try:
            data = _parse_json(relaxed, file)
        except json.JSONDecodeError as in_vscode:
            if '"servers"' in text and '"mcpServers"' not in text:
                raise ConfigError(config_json_problem(relaxed, in_vscode), file=file) from None
            raise ConfigError(config_json_problem(text, exc), file=file) from None
        if is_vscode(data) or gemini.is_gemini(path):  # Gemini CLI's settings allow comments too
            return data
        raise ConfigError(config_json_problem(text, exc), file=file) from None


def config_json_problem(text: str, exc: json.JSONDecodeError) -> str:
    """Where a config file's JSON is wrong (:func:`mcpnb.client.errors.json_problem`), and for a
    backslash JSON does not take (``"C:\\Program Files"``, ``"C:\\users"``) that a Windows path wants
    each one written twice: the magics' check at load time says it too, so both read alike."""
    problem = json_problem(text, exc)
    if exc.msg.startswith("Invalid \\"):
        problem += (
            ' (a Windows path? In JSON a backslash starts an escape: write each one twice, "C:\\\\Users", '
            "or use / instead)"
        )
    return problem


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
