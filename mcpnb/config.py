"""Server configuration: what to connect to and how, from files (layered) or from code.

One validation pipeline serves every entry point (``.mcp.json`` files, ``Pool.connect(...)``,
``ServerConfig.replace``), so a typo gets the same located, "did you mean" error wherever it was made:

    raw mapping ─► jsonschema (shipped ``config_schema.json``: unknown keys, types, ranges)
                ─► canonical snake_case keys ─► layers merged ─► ``${VAR}`` expansion
                ─► semantic checks (transport, tools, auth) ─► frozen :class:`ServerConfig`

Secrets never reach a repr, ``redacted()`` view or error message; :meth:`ServerConfig.secrets` lists the
values the pool must scrub from text it did not write itself (server errors, stderr lines).
``jsonschema`` and ``platformdirs`` are imported on first use: ``%load_ext mcpnb`` stays fast.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields
from dataclasses import replace as _dc_replace
from functools import cache
from pathlib import Path
from typing import Any, Literal, NoReturn, TypeVar
from urllib.parse import urlsplit

from .errors import ConfigError, UnknownServerError, did_you_mean
from .redact import REDACTED, is_secret_key, redact_env, redact_headers, redact_url, scrub, url_secrets

Transport = Literal["stdio", "http", "sse", "inprocess"]
Era = Literal["auto", "legacy", "modern"]

PROJECT_FILE = ".mcp.json"
LOCAL_FILE = ".mcp.local.json"
CODE_SOURCE = "<code>"
#: One day. Anything longer is a typo (milliseconds for seconds), not a wish.
MAX_SECONDS = 86400

# No "__" (flat tool names mcp__{server}__{tool} split on the first "__"), no trailing "_" (same
# reason: "a_" + "__" + "t" reads back as server "a", tool "_t"), no "." (the magics use NAME.TOOL).
_NAME_RE = re.compile(r"^[A-Za-z0-9](?:_?[A-Za-z0-9-])*$")
_VAR_RE = re.compile(r"\$\$\{|\$\{([^}]*)\}|\$\{")
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_TRANSPORTS: dict[str, str] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamableHttp": "http",
    "sse": "sse",
    "inprocess": "inprocess",
}
# Other spellings -> field names. Everything else is spelled as the field.
_ALIASES: dict[str, str] = {
    "type": "transport",
    "startupTimeoutSec": "startup_timeout",
    "startup_timeout_sec": "startup_timeout",
    "toolTimeoutSec": "tool_timeout",
    "tool_timeout_sec": "tool_timeout",
    "maxTotalTimeoutSec": "max_total_timeout",
    "max_total_timeout_sec": "max_total_timeout",
    "enabledTools": "enabled_tools",
    "disabledTools": "disabled_tools",
    "maxRetries": "max_retries",
    "retryDelay": "retry_delay",
    "healthCheckInterval": "health_check_interval",
    "cacheTtl": "cache_ttl",
}
_AUTH_ALIASES: dict[str, str] = {
    "tokenEnv": "token_env",
    "passwordEnv": "password_env",
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "clientSecretEnv": "client_secret_env",
    "tokenStorage": "token_storage",
}
# Keys that say "this is how to reach the server": a later layer naming one replaces all of these.
_TRANSPORT_NAMING = frozenset({"command", "url", "transport"})
_TRANSPORT_KEYS = frozenset({"command", "args", "env", "cwd", "url", "headers", "transport"})
_STDIO_ONLY = ("args", "env", "cwd")
_SECONDS = (
    "startup_timeout",
    "tool_timeout",
    "max_total_timeout",
    "retry_delay",
    "health_check_interval",
    "cache_ttl",
)
_HTTP_ONLY = ("headers", "auth")
# Auth fields that are names of variables (never expanded: expanding would put the secret in a name).
_AUTH_ENV_FIELDS = ("token_env", "password_env", "client_secret_env")
_AUTH_ENUMS = ("type", "flow", "token_storage")
_AUTH_FIELDS_BY_TYPE = {
    "bearer": {"token", "token_env"},
    "basic": {"username", "password", "password_env"},
    "oauth": {"flow", "client_id", "client_secret", "client_secret_env", "scope", "token_storage"},
}
# Unknown keys that other clients use, with what to write instead.
_HINTS = {"disabled": ("mcpnb spells this '\"enabled\": false'", "enabled")}
# Env values that cannot be secrets; scrubbing them from every message would only mangle text.
_TRIVIAL_VALUES = frozenset(
    {"true", "false", "yes", "no", "none", "null", "info", "debug", "warning", "error"}
)

_K = TypeVar("_K")
_V = TypeVar("_V")


class FrozenDict(dict[_K, _V]):
    """A read-only ``dict``: keeps a frozen config frozen while ``==``, ``json.dumps`` and ``asdict`` work."""

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(f"{type(self).__name__} is read-only; use ServerConfig.replace(...)")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (dict(self),))

    def __copy__(self) -> FrozenDict[_K, _V]:
        return self

    def __deepcopy__(self, memo: Any) -> FrozenDict[_K, _V]:
        return self


# ---------------------------------------------------------------- auth
@dataclass(frozen=True, eq=True, repr=False)
class AuthConfig:
    """How to authenticate to an HTTP/SSE server. Secrets may stay in the environment (``*_env``)
    until connect time, so a saved notebook or committed file never has to hold them."""

    type: Literal["bearer", "basic", "oauth"]
    token: str | None = None
    token_env: str | None = None
    username: str | None = None
    password: str | None = None
    password_env: str | None = None
    flow: Literal["client_credentials", "authorization_code"] = "client_credentials"
    client_id: str | None = None
    client_secret: str | None = None
    client_secret_env: str | None = None
    scope: str | None = None
    token_storage: Literal["memory", "file"] = "memory"
    # Where this auth belongs, so resolve_* errors can say which server and file need fixing.
    server_name: str | None = field(default=None, compare=False)
    source: str | None = field(default=None, compare=False)

    def _from_env(
        self, value: str | None, var: str | None, key: str, environ: Mapping[str, str] | None
    ) -> str:
        if value:
            return value
        env = os.environ if environ is None else environ
        if not var:
            raise ConfigError(
                f"{self.type} auth needs {key!r} or {key + '_env'!r}",
                file=self.source,
                server=self.server_name,
                key=f"auth.{key}",
            )
        resolved = env.get(var)
        if not resolved:
            state = "is empty" if resolved == "" else "is not set"
            raise ConfigError(
                f"environment variable {var!r} {state} (it should hold the {key})",
                file=self.source,
                server=self.server_name,
                key=f"auth.{key}_env",
                suggestion=did_you_mean(var, env),
            )
        return resolved

    def resolve_token(self, environ: Mapping[str, str] | None = None) -> str:
        """The bearer token, read from the environment at the last moment so rotation just works."""
        if self.type != "bearer":
            raise ConfigError(
                f"auth type {self.type!r} has no static token",
                file=self.source,
                server=self.server_name,
                key="auth",
            )
        return self._from_env(self.token, self.token_env, "token", environ)

    def resolve_password(self, environ: Mapping[str, str] | None = None) -> str:
        """The basic-auth password (from ``password`` or ``password_env``)."""
        return self._from_env(self.password, self.password_env, "password", environ)

    def resolve_client_secret(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The OAuth client secret; ``None`` for a public client (authorization code without a secret)."""
        if not self.client_secret and not self.client_secret_env and self.flow == "authorization_code":
            return None
        return self._from_env(self.client_secret, self.client_secret_env, "client_secret", environ)

    def secrets(self) -> set[str]:
        """Every secret value this auth can produce now, best effort: never raises (used while reporting)."""
        found: set[str] = set()
        for value, var in (
            (self.token, self.token_env),
            (self.password, self.password_env),
            (self.client_secret, self.client_secret_env),
        ):
            if value:
                found.add(value)
            if var and os.environ.get(var):
                found.add(os.environ[var])
        if self.type == "basic":
            password = self.password or (os.environ.get(self.password_env) if self.password_env else None)
            if password:  # the header carries base64("user:password"), which a log line may show
                found.add(base64.b64encode(f"{self.username or ''}:{password}".encode()).decode())
        return found

    def redacted(self) -> dict[str, Any]:
        """A JSON-able view for display: secret values replaced, variable names kept (they help debugging)."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            if f.name in ("type", "server_name", "source"):
                continue
            value = getattr(self, f.name)
            if value is None or value == f.default:
                continue
            out[f.name] = REDACTED if f.name in ("token", "password", "client_secret") else value
        return out

    def __repr__(self) -> str:
        return "AuthConfig(" + ", ".join(f"{k}={v!r}" for k, v in self.redacted().items()) + ")"

    __str__ = __repr__


# ---------------------------------------------------------------- server
@dataclass(frozen=True, eq=True, repr=False)
class ServerConfig:
    """One server: how to reach it and how patiently. Build it with :meth:`from_dict` or :meth:`build`,
    which validate; the plain constructor only normalises container types (for tests and internals)."""

    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=FrozenDict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=FrozenDict)
    server: Any = field(default=None, compare=False)  # compared by identity in __eq__
    era: Era = "auto"
    enabled: bool = True
    startup_timeout: float = 30.0
    tool_timeout: float = 60.0
    max_total_timeout: float = 600.0
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    max_retries: int = 3
    retry_delay: float = 1.0
    health_check_interval: float = 60.0
    cache_ttl: float = 300.0
    auth: AuthConfig | None = None
    # Where it came from, for error messages; two configs that connect the same way are equal
    # whichever file they came from (so Pool.sync does not reconnect for a moved file).
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "args", tuple(self.args))
        set_(self, "env", FrozenDict(self.env))
        set_(self, "headers", FrozenDict(self.headers))
        set_(self, "disabled_tools", tuple(self.disabled_tools))
        if self.enabled_tools is not None:
            set_(self, "enabled_tools", tuple(self.enabled_tools))
        if self.auth is not None and (self.auth.server_name != self.name or self.auth.source is None):
            set_(
                self,
                "auth",
                _dc_replace(self.auth, server_name=self.name, source=self.auth.source or self.source),
            )
        if not hasattr(self, "_var_secrets"):
            set_(self, "_var_secrets", frozenset())

    # ---- identity
    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.compare)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, ServerConfig)
        return self.server is other.server and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self._key(), id(self.server)))

    # ---- constructors
    @classmethod
    def from_dict(
        cls,
        name: str,
        data: Mapping[str, Any],
        *,
        source: str | None = None,
        server: Any = None,
        environ: Mapping[str, str] | None = None,
    ) -> ServerConfig:
        """Validate one ``mcpServers`` entry (any accepted spelling) and expand its ``${VAR}`` s."""
        _check_name(name, source)
        entry = _entry(name, data, source)
        canon, spelled = _canonical(name, entry, source)
        return _finish(
            name, canon, spelled=spelled, origins={}, source=source, server=server, environ=environ
        )

    @classmethod
    def build(cls, name: str, /, *, environ: Mapping[str, str] | None = None, **kwargs: Any) -> ServerConfig:
        """The code path (``Pool.connect(name, command=..., **options)``): snake_case keywords, ``None`` =
        not given, the same validation as files, ``source="<code>"``."""
        source = kwargs.pop("source", None) or CODE_SOURCE
        server = kwargs.pop("server", None)
        _check_kwargs(name, kwargs, source)
        given = {k: v for k, v in kwargs.items() if v is not None}
        return cls.from_dict(name, given, source=source, server=server, environ=environ)

    def replace(self, **changes: Any) -> ServerConfig:
        """A revalidated copy. ``None`` resets a field to its default; naming a new ``command``/``url``/
        ``transport``/``server`` replaces the old way of reaching the server (as a later layer does).
        Existing values are not expanded again: only the ``${VAR}`` s in ``changes`` are."""
        name = changes.pop("name", self.name)
        source = changes.pop("source", self.source)
        environ = changes.pop("environ", None)
        server = changes.pop("server", self.server)
        _check_kwargs(name, changes, source)
        current = self._settings(escape=True)
        reaching = {k for k, v in changes.items() if v is not None and k in _TRANSPORT_NAMING}
        if reaching or server is not self.server:
            current = {k: v for k, v in current.items() if k not in _TRANSPORT_KEYS}
        for key, value in changes.items():
            current.pop(key, None)
            if value is not None:
                current[key] = value
        _check_name(name, source)
        _entry(name, {k: v for k, v in changes.items() if v is not None}, CODE_SOURCE)  # blame the change
        entry = _entry(name, current, source)
        canon, spelled = _canonical(name, entry, source)
        origins = {k: CODE_SOURCE for k in changes}
        result = _finish(
            name, canon, spelled=spelled, origins=origins, source=source, server=server, environ=environ
        )
        object.__setattr__(result, "_var_secrets", result._var_secrets | self._var_secrets)
        return result

    # ---- views
    def _settings(self, *, escape: bool = False) -> dict[str, Any]:
        """Non-default settings as canonical JSON-able values (``escape``: protect literal ``${``)."""
        esc: Callable[[str], str] = (lambda s: s.replace("${", "$${")) if escape else (lambda s: s)
        out: dict[str, Any] = {"transport": self.transport}
        for f in fields(self):
            if f.name in ("name", "transport", "server", "source"):
                continue
            value = getattr(self, f.name)
            if _is_default(f, value):
                continue
            if f.name in ("command", "cwd", "url"):
                value = esc(value)
            elif f.name == "args":
                value = [esc(a) for a in value]
            elif f.name in ("env", "headers"):
                value = {k: esc(v) for k, v in value.items()}
            elif f.name == "auth":
                keep = _AUTH_ENV_FIELDS + _AUTH_ENUMS
                value = {k: (v if k in keep else esc(v)) for k, v in _jsonable(value).items()}
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    def secrets(self) -> set[str]:
        """Every secret value this config knows, for the pool to scrub from text it did not write."""
        found: set[str] = set(self._var_secrets)
        if self.auth is not None:
            found |= self.auth.secrets()
        for key, value in self.headers.items():
            if is_secret_key(key) and value:
                found.add(value)
                scheme, _, rest = value.partition(" ")
                if rest and scheme.lower() in ("bearer", "basic", "token"):
                    found.add(rest.strip())
        found |= {v for v in self.env.values() if v.lower() not in _TRIVIAL_VALUES and not _is_number(v)}
        if self.url:
            found |= url_secrets(self.url)
        found |= _arg_secrets(self.args)[1]
        return {s for s in found if s}

    def _shown_args(self) -> list[str]:
        shown, _ = _arg_secrets(self.args)
        secrets = self.secrets()
        return [scrub(a, secrets) for a in shown]

    def redacted(self) -> dict[str, Any]:
        """A JSON-able view for display (``%mcp config``): name, transport and non-default settings,
        secrets replaced by ``***``."""
        secrets = self.secrets()
        out: dict[str, Any] = {"name": self.name, "transport": self.transport}
        for f in fields(self):
            if f.name in ("name", "transport"):
                continue
            value = getattr(self, f.name)
            if f.name == "server":
                if value is not None:
                    out["server"] = self.target
                continue
            if _is_default(f, value):
                continue
            if f.name in ("command", "cwd", "source"):
                value = scrub(value, secrets)
            elif f.name == "args":
                value = self._shown_args()
            elif f.name == "env":
                value = redact_env(value)
            elif f.name == "headers":
                value = {k: scrub(v, secrets) for k, v in redact_headers(value).items()}
            elif f.name == "url":
                value = scrub(redact_url(value), secrets)
            elif f.name == "auth":
                value = value.redacted()
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @property
    def target(self) -> str:
        """A short, safe description of what this connects to, for status rows and progress messages."""
        if self.transport == "inprocess":
            label = getattr(self.server, "name", None)
            label = label if isinstance(label, str) and label else type(self.server).__name__
            return f"<in-process {label}>"
        if self.transport == "stdio":
            words = [scrub(self.command or "", self.secrets()), *self._shown_args()]
            text = " ".join(w if w and not any(c.isspace() for c in w) else repr(w) for w in words)
        else:
            text = scrub(redact_url(self.url or ""), self.secrets())
        return text if len(text) <= 120 else text[:119] + "…"

    def __repr__(self) -> str:
        return "ServerConfig(" + ", ".join(f"{k}={v!r}" for k, v in self.redacted().items()) + ")"

    __str__ = __repr__


# ---------------------------------------------------------------- sets
@dataclass(frozen=True)
class ConfigSet:
    """The merged result of every layer, plus which files were actually read (to show the user)."""

    servers: dict[str, ServerConfig]
    files: tuple[Path, ...] = ()

    def enabled(self) -> dict[str, ServerConfig]:
        """The servers to start; disabled ones stay listed so a status table can show them."""
        return {name: cfg for name, cfg in self.servers.items() if cfg.enabled}

    def __getitem__(self, name: str) -> ServerConfig:
        try:
            return self.servers[name]
        except KeyError:
            hint = did_you_mean(name, self.servers)
            raise UnknownServerError(
                f"no server named {name!r} in the configuration"
                + (f"; did you mean {hint!r}?" if hint else "")
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.servers)

    def __len__(self) -> int:
        return len(self.servers)

    def __contains__(self, name: object) -> bool:
        return name in self.servers


# ---------------------------------------------------------------- files
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


def load_file(path: str | Path, *, environ: Mapping[str, str] | None = None) -> dict[str, ServerConfig]:
    """Every server of one file, fully validated on its own (no layering)."""
    path = Path(path)
    return {
        name: ServerConfig.from_dict(name, entry, source=str(path), environ=environ)
        for name, entry in _file_servers(path).items()
    }


def load_config(
    start: str | Path | None = None,
    *,
    path: str | Path | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    environ: Mapping[str, str] | None = None,
) -> ConfigSet:
    """Merge user → project → local → ``overrides``; later layers win per server, key by key.

    A layer that names a transport (``command``, ``url``, ``type``) replaces the earlier layer's way
    of reaching the server wholesale: a local ``url`` must not inherit the project's ``args``.
    ``env`` and ``headers`` otherwise merge entry by entry, so ``.mcp.local.json`` can add a secret
    variable without repeating the project's others. An explicit ``path`` that does not exist is an
    error; a missing layer file found by search is simply skipped.
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

    layers: list[tuple[str, Mapping[str, Any]]] = []
    read: list[Path] = []
    seen: set[Path] = set()
    for candidate in (user, project, local):
        if candidate is None or not candidate.is_file() or candidate.resolve() in seen:
            continue
        seen.add(candidate.resolve())
        layers.append((str(candidate), _file_servers(candidate)))
        read.append(candidate)
    if overrides:
        if not isinstance(overrides, Mapping):
            raise ConfigError(f"overrides must map server names to settings, got {_kind(overrides)}")
        layers.append((CODE_SOURCE, overrides))

    merged: dict[str, dict[str, Any]] = {}
    origins: dict[str, dict[str, str]] = {}
    spelled: dict[str, dict[str, str]] = {}
    last: dict[str, str] = {}
    for source, servers in layers:
        for name, data in servers.items():
            _check_name(name, source)
            canon, spell = _canonical(name, _entry(name, data, source), source)
            base, where, how = (
                merged.setdefault(name, {}),
                origins.setdefault(name, {}),
                spelled.setdefault(name, {}),
            )
            if _TRANSPORT_NAMING & canon.keys():
                for key in _TRANSPORT_KEYS:
                    base.pop(key, None)
                    where.pop(key, None)
            for key, value in canon.items():
                if key in ("env", "headers") and key in base:
                    value = {**base[key], **value}
                base[key] = value
                where[key] = source
            how.update(spell)
            last[name] = source
    servers = {
        name: _finish(
            name,
            canon,
            spelled=spelled[name],
            origins=origins[name],
            source=last[name],
            server=None,
            environ=environ,
        )
        for name, canon in merged.items()
    }
    return ConfigSet(servers=FrozenDict(servers), files=tuple(read))


def schema() -> dict[str, Any]:
    """The JSON Schema the package ships (also usable by editors for ``.mcp.json``)."""
    return json.loads(_schema_text())


# ---------------------------------------------------------------- internals
def _find_upward(start: Path, filename: str) -> Path | None:
    start = start.resolve()
    for directory in (start, *start.parents):
        candidate = directory / filename
        if candidate.is_file():
            return candidate
    return None


def _is_default(f: Any, value: Any) -> bool:
    if f.default_factory is not MISSING:
        return bool(value == f.default_factory())
    if f.default is None or isinstance(f.default, bool):
        return value is f.default
    return not isinstance(value, bool) and bool(value == f.default)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"


_EXPECTED = {
    "string": "a string",
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def _check_name(name: Any, source: str | None) -> None:
    if isinstance(name, str) and _NAME_RE.match(name):
        return
    if not isinstance(name, str):
        raise ConfigError(f"a server name must be a string, got {_kind(name)}", file=source)
    fixed = re.sub(r"[^A-Za-z0-9_-]+", "-", name)
    fixed = re.sub(r"_{2,}", "_", fixed).lstrip("_-").rstrip("_")
    why = (
        "names may not contain '__' (flat tool names mcp__SERVER__TOOL split on it)"
        if "__" in name
        else "names may not contain '.' (the magics use NAME.TOOL)"
        if "." in name
        else "names may not end with '_' (flat tool names mcp__SERVER__TOOL split on '__')"
        if name.endswith("_")
        else "use letters, digits, '-' and '_', starting with a letter or digit"
    )
    raise ConfigError(
        f"invalid server name {name!r}: {why}",
        file=source,
        server=name if name else None,
        suggestion=fixed if fixed and _NAME_RE.match(fixed) else None,
    )


_BUILD_KEYS = frozenset(f.name for f in fields(ServerConfig) if f.name not in ("name", "server", "source"))


def _check_kwargs(name: str, kwargs: Mapping[str, Any], source: str | None) -> None:
    for key in kwargs:
        if key not in _BUILD_KEYS:
            suggestion = _ALIASES.get(key) or _AUTH_ALIASES.get(key) or did_you_mean(key, _BUILD_KEYS)
            raise ConfigError("unknown setting", file=source, server=name, key=key, suggestion=suggestion)


def _jsonable(value: Any) -> Any:
    """Code callers pass tuples, Paths, AuthConfig objects: give the schema plain JSON shapes."""
    if isinstance(value, AuthConfig):
        return {
            f.name: getattr(value, f.name)
            for f in fields(value)
            if f.name not in ("server_name", "source") and not _is_default(f, getattr(value, f.name))
        }
    if isinstance(value, Mapping):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def _entry(name: str, data: Any, source: str | None) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"expected an object with the server's settings, got {_kind(data)}", file=source, server=name
        )
    entry = _jsonable(data)
    _validate(name, entry, source)
    return entry


# ---- schema
@cache
def _schema_text() -> str:
    from importlib.resources import files

    return files(__package__ or "mcpnb").joinpath("config_schema.json").read_text(encoding="utf-8")


@cache
def _server_validator() -> Any:
    import jsonschema

    root = json.loads(_schema_text())
    sub = {"$schema": root["$schema"], "$defs": root["$defs"], "$ref": "#/$defs/server"}
    return jsonschema.validators.validator_for(root)(sub)


_RANK = {"additionalProperties": 0, "required": 1, "type": 2, "enum": 3}


def _validate(name: str, entry: dict[str, Any], source: str | None) -> None:
    errors = list(_server_validator().iter_errors(entry))
    if not errors:
        return
    order = list(entry)

    def rank(e: Any) -> tuple[int, int, int]:
        top = e.absolute_path[0] if e.absolute_path else None
        return (_RANK.get(e.validator, 9), order.index(top) if top in order else -1, len(e.absolute_path))

    raise _translate(min(errors, key=rank), name, source)


def _path_key(path: Any) -> str | None:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or None


def _translate(e: Any, name: str, source: str | None) -> ConfigError:
    path = list(e.absolute_path)
    key = _path_key(path)
    secret_place = bool(path) and path[0] in ("env", "headers", "auth")
    shown = "" if secret_place or isinstance(e.instance, (dict, list)) else f" ({e.instance!r})"
    if len(shown) > 60:
        shown = shown[:56] + "…)"

    def err(message: str, at: str | None = key, suggestion: str | None = None) -> ConfigError:
        return ConfigError(message, file=source, server=name, key=at, suggestion=suggestion)

    if e.validator == "additionalProperties":
        allowed = list(e.schema.get("properties", {}))
        extra = next(k for k in e.instance if k not in allowed)
        at = f"{key}.{extra}" if key else extra
        if extra in _HINTS:
            return err(f"unknown key: {_HINTS[extra][0]}", at, _HINTS[extra][1])
        if extra == "server":
            return err("unknown key: an in-process server object can only be given from code", at)
        if extra == "name":
            return err("unknown key: the server's name is its key under 'mcpServers'", at)
        return err("unknown key", at, did_you_mean(extra, allowed))
    if e.validator == "type":
        expected = e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
        wanted = " or ".join(_EXPECTED.get(t, t) for t in expected)
        if not path:
            return err(f"expected an object with the server's settings, got {_kind(e.instance)}")
        return err(f"expected {wanted}, got {_kind(e.instance)}{shown}")
    if e.validator == "enum":
        choices = [str(c) for c in e.validator_value]
        hint = did_you_mean(e.instance, choices) if isinstance(e.instance, str) else None
        return err(f"expected one of {', '.join(map(repr, choices))}, got {e.instance!r}", suggestion=hint)
    if e.validator == "required":
        missing = next(k for k in e.validator_value if k not in e.instance)
        return err(f"missing required key {missing!r}", f"{key}.{missing}" if key else missing)
    if e.validator == "exclusiveMinimum":
        return err(f"must be greater than {e.validator_value}, got {e.instance}")
    if e.validator == "minimum":
        return err(f"must not be negative, got {e.instance}")
    if e.validator == "maximum":
        unit = "" if path and path[-1] in ("max_retries", "maxRetries") else " s"
        return err(f"{e.instance}{unit} is absurd: the limit is {e.validator_value}{unit}")
    if e.validator == "minLength":
        return err("must not be empty")
    if e.validator == "pattern":
        found = re.fullmatch(r"\$?\{?([A-Za-z_][A-Za-z0-9_]*)\}?", e.instance.strip()) if e.instance else None
        return err(
            "expected the *name* of an environment variable (letters, digits, '_')",
            suggestion=found.group(1) if found else None,
        )
    return err("invalid value" + ("" if secret_place else f": {e.message}"))


def _canonical(
    name: str, entry: Mapping[str, Any], source: str | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Field names for every spelling; two spellings of one setting in one entry is an error."""
    canon: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for raw, value in entry.items():
        key = _ALIASES.get(raw, raw)
        if key in canon:
            raise ConfigError(
                f"set twice, as {spelled[key]!r} and {raw!r}", file=source, server=name, key=raw
            )
        if key == "transport":
            value = _TRANSPORTS[value]
        elif key == "auth":
            auth: dict[str, Any] = {}
            for araw, avalue in value.items():
                akey = _AUTH_ALIASES.get(araw, araw)
                if akey in auth:
                    raise ConfigError(
                        f"set twice, as {spelled['auth.' + akey]!r} and {'auth.' + araw!r}",
                        file=source,
                        server=name,
                        key=f"{raw}.{araw}",
                    )
                auth[akey] = avalue
                spelled[f"auth.{akey}"] = f"{raw}.{araw}"
            value = auth
        canon[key] = value
        spelled[key] = raw
    return canon, spelled


# ---- the last step: expansion and semantic checks
class _Where:
    """Builds errors that point at the file and spelling where each key was actually written."""

    def __init__(self, name: str, source: str | None, origins: Mapping[str, str], spelled: Mapping[str, str]):
        self.name, self.source, self.origins, self.spelled = name, source, origins, spelled

    def __call__(
        self, message: str, key: str | None = None, sub: str = "", suggestion: str | None = None
    ) -> ConfigError:
        if key is None:
            return ConfigError(message, file=self.source, server=self.name, suggestion=suggestion)
        top = key.split(".", 1)[0]
        shown = self.spelled.get(key) or (self.spelled.get(top, top) + key[len(top) :])
        return ConfigError(
            message,
            file=self.origins.get(top, self.source),
            server=self.name,
            key=shown + sub,
            suggestion=suggestion,
        )


def _expand(text: str, environ: Mapping[str, str], fail: Callable[..., ConfigError], found: set[str]) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(0) == "$${":
            return "${"
        body = m.group(1)
        if body is None:
            raise fail("unclosed '${' (write '$${' for a literal '${')")
        var, sep, default = body.partition(":-")
        if not _ENV_NAME_RE.match(var) or "${" in default:
            raise fail(f"malformed variable reference '${{{var}…}}': use ${{VAR}} or ${{VAR:-default}}")
        value = environ.get(var)
        if value is None or (sep and value == ""):
            if sep:
                if is_secret_key(var):
                    found.add(default)
                return default
            raise fail(
                f"environment variable {var!r} is not set (give a default with ${{{var}:-default}})",
                suggestion=did_you_mean(var, environ),
            )
        if is_secret_key(var):
            found.add(value)
        return value

    return _VAR_RE.sub(one, text)


def _finish(
    name: str,
    canon: Mapping[str, Any],
    *,
    spelled: Mapping[str, str],
    origins: Mapping[str, str],
    source: str | None,
    server: Any,
    environ: Mapping[str, str] | None,
) -> ServerConfig:
    where = _Where(name, source, origins, spelled)
    env_vars = os.environ if environ is None else environ
    var_secrets: set[str] = set()

    def expand(text: str, key: str, sub: str = "") -> str:
        def fail(message: str, suggestion: str | None = None) -> ConfigError:
            return where(message, key, sub, suggestion)

        return _expand(text, env_vars, fail, var_secrets)

    values: dict[str, Any] = {k: v for k, v in canon.items() if k not in ("transport", "auth")}
    if "command" in values:
        values["command"] = expand(values["command"], "command")
    if "args" in values:
        values["args"] = tuple(expand(a, "args", f"[{i}]") for i, a in enumerate(values["args"]))
    for key in ("env", "headers"):
        if key in values:
            values[key] = {k: expand(v, key, f".{k}") for k, v in values[key].items()}
    if "cwd" in values:
        values["cwd"] = expand(values["cwd"], "cwd")
    if "url" in values:
        values["url"] = expand(values["url"], "url")

    transport = _transport(canon, values, server, where)
    for key in _STDIO_ONLY if transport != "stdio" else ():
        if values.get(key):
            raise where(f"applies only to stdio servers (this one is {transport})", key)
    for key in _HTTP_ONLY if transport not in ("http", "sse") else ():
        if canon.get(key):
            raise where(f"applies only to http and sse servers (this one is {transport})", key)

    if "url" in values:
        parts = urlsplit(values["url"])
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise where(f"expected an http:// or https:// URL, got {redact_url(values['url'])!r}", "url")
    if "cwd" in values:
        cwd = os.path.expanduser(values["cwd"])
        origin = origins.get("cwd", source)
        if not os.path.isabs(cwd) and origin and not origin.startswith("<"):
            cwd = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(origin)), cwd))
        values["cwd"] = cwd

    for key in _SECONDS:
        if key in values:
            values[key] = float(values[key])
    for key, value in values.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise where(f"must be a finite number, got {value}", key)
    if "max_retries" in values:
        values["max_retries"] = int(values["max_retries"])
    for key in ("enabled_tools", "disabled_tools"):
        if key in values:
            values[key] = tuple(values[key])
    both = [t for t in values.get("enabled_tools") or () if t in values.get("disabled_tools", ())]
    if both:
        raise where(f"tool {both[0]!r} is both enabled and disabled", "disabled_tools")

    auth = _auth(canon["auth"], where, expand, origins.get("auth", source), name) if "auth" in canon else None
    if auth is not None:
        for header in values.get("headers", {}):
            if header.lower() == "authorization":
                raise where("set either an Authorization header or 'auth', not both", "headers", f".{header}")

    config = ServerConfig(name=name, transport=transport, server=server, auth=auth, source=source, **values)
    object.__setattr__(config, "_var_secrets", frozenset(s for s in var_secrets if s))
    return config


def _transport(canon: Mapping[str, Any], values: Mapping[str, Any], server: Any, where: _Where) -> Transport:
    has_command, has_url = "command" in values, "url" in values
    if server is not None and (has_command or has_url):
        raise where("give a server object or a command/url, not both", "command" if has_command else "url")
    if has_command and has_url:
        raise where(
            "both 'command' and 'url' are set: a server is either a process (command) or an endpoint (url)",
            "url",
        )
    given = canon.get("transport")
    if given == "inprocess" and server is None:
        raise where("an in-process server needs a server object, which only code can give", "transport")
    if not (has_command or has_url or server is not None):
        raise where("neither 'command' nor 'url' is set: say how to start or reach the server", "command")
    if server is not None:
        inferred, reach = "inprocess", "inprocess"
    elif has_command:
        inferred, reach = "stdio", "stdio"
    else:
        inferred = "sse" if urlsplit(values["url"]).path.rstrip("/").endswith("/sse") else "http"
        reach = "url"
    if given is None:
        return inferred  # type: ignore[return-value]
    if {"stdio": "stdio", "http": "url", "sse": "url", "inprocess": "inprocess"}[given] == reach:
        return given  # type: ignore[no-any-return]
    need = {"stdio": "'command'", "http": "'url'", "sse": "'url'", "inprocess": "a server object"}[given]
    raise where(f"transport {given!r} needs {need}", "transport", suggestion=inferred)


def _auth(
    raw: Mapping[str, Any], where: _Where, expand: Callable[..., str], source: str | None, name: str
) -> AuthConfig:
    kind = raw["type"]
    for key in raw:
        if key != "type" and key not in _AUTH_FIELDS_BY_TYPE[kind]:
            owner = next(t for t, keys in _AUTH_FIELDS_BY_TYPE.items() if key in keys)
            raise where(f"applies to {owner} auth, not {kind}", f"auth.{key}")
    values = {
        k: (v if k in _AUTH_ENV_FIELDS + _AUTH_ENUMS else expand(v, f"auth.{k}")) for k, v in raw.items()
    }

    def one_of(value_key: str, env_key: str) -> None:
        if values.get(value_key) and values.get(env_key):
            raise where(f"give {value_key!r} or {env_key!r}, not both", f"auth.{env_key}")
        if not values.get(value_key) and not values.get(env_key):
            raise where(f"{kind} auth needs {value_key!r} or {env_key!r}", "auth")

    if kind == "bearer":
        one_of("token", "token_env")
    elif kind == "basic":
        if not values.get("username"):
            raise where("basic auth needs a 'username'", "auth")
        one_of("password", "password_env")
    elif values.get("flow", "client_credentials") == "client_credentials":
        if not values.get("client_id"):
            raise where("the client_credentials flow needs a 'client_id'", "auth")
        one_of("client_secret", "client_secret_env")
    return AuthConfig(**values, server_name=name, source=source)


def _arg_secrets(args: tuple[str, ...]) -> tuple[list[str], set[str]]:
    """Args as shown, and the values hidden: what follows ``--token``, ``--api-key=…``, or
    ``Authorization: …`` (the mcp-remote ``--header`` style)."""
    shown: list[str] = []
    found: set[str] = set()
    hide_next = False
    for arg in args:
        if hide_next:
            shown.append(REDACTED)
            found.add(arg)
            hide_next = False
            continue
        flag, eq, value = arg.partition("=")
        header, colon, hvalue = arg.partition(":")
        if arg.startswith("-") and is_secret_key(flag.lstrip("-")):
            if eq:
                shown.append(f"{flag}={REDACTED}")
                found.add(value)
            else:
                shown.append(arg)
                hide_next = True
            continue
        if colon and re.fullmatch(r"[A-Za-z0-9_-]+", header) and is_secret_key(header) and hvalue.strip():
            shown.append(f"{header}: {REDACTED}")
            found.add(hvalue.strip())
            scheme, _, rest = hvalue.strip().partition(" ")
            if rest and scheme.lower() in ("bearer", "basic", "token"):
                found.add(rest.strip())
            continue
        shown.append(arg)
    return shown, found


def _file_servers(path: Path) -> Mapping[str, Any]:
    """The ``mcpServers`` object of one file, with syntax and top-level shape checked."""
    data = _read_json(path)
    file = str(path)
    if not isinstance(data, dict):
        raise ConfigError(f"expected a JSON object at the top level, got {_kind(data)}", file=file)
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
            f"expected an object mapping server names to settings, got {_kind(servers)}",
            file=file,
            key="mcpServers",
        )
    return servers


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
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        hint = ""
        before = text[: exc.pos].rstrip()
        if text[exc.pos : exc.pos + 2] in ("//", "/*"):
            hint = " (JSON does not allow comments)"
        elif before.endswith(",") and exc.msg.startswith(("Expecting property name", "Expecting value")):
            hint = " (a trailing comma?)"
        raise ConfigError(
            f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{hint}", file=file
        ) from None
    except _DuplicateKey as exc:
        raise ConfigError("key appears twice in the same object", file=file, key=str(exc)) from None
    except ValueError as exc:
        raise ConfigError(str(exc), file=file) from None
