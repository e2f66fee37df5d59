"""``ServerConfig`` (one server: how to reach it and how patiently) and ``ConfigSet`` (all of them).

Secrets never reach a repr, ``redacted()`` view or ``target``; :meth:`ServerConfig.secrets` lists the
values the pool must scrub from text it did not write itself (server errors, stderr lines).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from dataclasses import replace as _dc_replace
from pathlib import Path
from typing import Any, ClassVar

from mcpnb.client.config.args import arg_secrets, credential
from mcpnb.client.config.auth import AuthConfig
from mcpnb.client.config.expand import escape
from mcpnb.client.config.frozen import FrozenDict, is_default
from mcpnb.client.config.keys import (
    ALIASES,
    AUTH_ALIASES,
    AUTH_VERBATIM,
    TRANSPORT_KEYS,
    TRANSPORT_NAMING,
    Era,
    Transport,
)
from mcpnb.client.config.resolve import resolve
from mcpnb.client.config.tls import TLS_PATHS, TlsConfig
from mcpnb.client.config.validate import check_name, entry, parse
from mcpnb.client.errors import ConfigError, UnknownServerError, did_you_mean
from mcpnb.client.redact import (
    is_plain_header,
    is_plain_value,
    is_secret_key,
    redact_env,
    redact_headers,
    redact_url,
    scrub,
    url_secrets,
)

CODE_SOURCE = "<code>"
#: Commands that mean "the interpreter running this code" (as Jupyter reads ``python`` in a kernelspec).
PYTHON_NAMES = frozenset({"python", "python3", f"python{sys.version_info[0]}.{sys.version_info[1]}"})


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
    #: Directories the server may work in, offered as MCP roots (2025-11-25; file URIs, absolute).
    roots: tuple[str, ...] = ()
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
    #: The largest single message accepted from the server (a stdio line, a server-sent event), so
    #: a server that floods its output cannot make the kernel hold it all; 1M rows × 5 is ~230 MB.
    max_message_mb: float = 256.0
    #: The server's text answers are Markdown, though its tools do not say so (Playwright MCP,
    #: basic-memory): displays draw them as such.
    markdown: bool = False
    auth: AuthConfig | None = None
    #: A client certificate (mutual TLS) and a CA bundle for this server (http and sse).
    tls: TlsConfig | None = None
    #: A note for people (Gemini CLI's and others' entries have one): shown, never sent.
    description: str | None = field(default=None, compare=False)
    # Where it came from, for error messages; two configs that connect the same way are equal
    # whichever file they came from (so Pool.sync does not reconnect for a moved file).
    source: str | None = field(default=None, compare=False)
    # The values ${VAR}s put into the settings that may be secrets (set by the validating
    # constructors; see config.expand).
    _var_secrets: ClassVar[frozenset[str]] = frozenset()
    # Whether ``transport`` was read off the URL (no transport given): see transport_guessed.
    _guessed: ClassVar[bool] = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "args", tuple(self.args))
        set_(self, "roots", tuple(self.roots))
        set_(self, "env", FrozenDict(self.env))
        set_(self, "headers", FrozenDict(self.headers))
        set_(self, "disabled_tools", tuple(self.disabled_tools))
        if self.enabled_tools is not None:  # an empty allow-list means no filter, not "hide every tool"
            set_(self, "enabled_tools", tuple(self.enabled_tools) or None)
        if self.auth is not None and (self.auth.server_name != self.name or self.auth.source is None):
            set_(
                self,
                "auth",
                _dc_replace(self.auth, server_name=self.name, source=self.auth.source or self.source),
            )
        if self.tls is not None and (self.tls.server_name != self.name or self.tls.source is None):
            set_(
                self,
                "tls",
                _dc_replace(self.tls, server_name=self.name, source=self.tls.source or self.source),
            )

    # ---- identity
    def compared(self) -> dict[str, Any]:
        """The settings two configs are compared by (not ``server``: by identity; not ``source``),
        with ``command`` as the program it starts: ``python`` and this interpreter's path are one."""
        return {
            f.name: self.program if f.name == "command" else getattr(self, f.name)
            for f in fields(self)
            if f.compare
        }

    def _key(self) -> tuple[Any, ...]:
        return tuple(self.compared().values())

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, ServerConfig)
        return self.server is other.server and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self._key(), id(self.server)))

    @property
    def program(self) -> str:
        """What a stdio server's ``command`` starts: ``python`` is the interpreter running this code.

        A notebook's servers are installed where the kernel runs (Binder, a virtualenv that is not
        activated, a conda env), and ``python`` on ``PATH`` may be another interpreter without them;
        Jupyter reads ``python`` in a kernelspec the same way. Another interpreter: give its path.
        """
        command = self.command or ""
        return sys.executable if command in PYTHON_NAMES and sys.executable else command

    @property
    def max_message_bytes(self) -> int:
        return int(self.max_message_mb * 1024 * 1024)

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
        variables: Mapping[str, Any] | None = None,
    ) -> ServerConfig:
        """Validate one ``mcpServers`` entry (any accepted spelling) and expand its ``${VAR}`` s
        (``variables``: a VS Code file's own, by file)."""
        canon, spelled = parse(name, data, source)
        return assemble(
            name,
            canon,
            spelled=spelled,
            origins={},
            source=source,
            server=server,
            environ=environ,
            variables=variables,
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
        given = {k: v for k, v in changes.items() if v is not None}
        current = self._settings()
        if TRANSPORT_NAMING & given.keys() or server is not self.server:
            current = {k: v for k, v in current.items() if k not in TRANSPORT_KEYS}
        current = {k: v for k, v in current.items() if k not in changes} | given
        check_name(name, source)
        entry(name, given, CODE_SOURCE)  # blame the change, not the merged whole
        canon, spelled = parse(name, current, source)
        origins = dict.fromkeys(changes, CODE_SOURCE)
        result = assemble(
            name, canon, spelled=spelled, origins=origins, source=source, server=server, environ=environ
        )
        object.__setattr__(result, "_var_secrets", result._var_secrets | self._var_secrets)
        return result

    @property
    def transport_guessed(self) -> bool:
        """The URL's path chose the transport (``/sse``: legacy SSE, else Streamable HTTP); nobody
        said which. A connection then tries the other one at the same URL when the guess is
        refused, as the spec's backwards compatibility asks of clients."""
        return self._guessed

    # ---- views
    def _changed(self) -> Iterator[tuple[str, Any]]:
        """``(field, value)`` for every field but name and transport that is not at its default."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name not in ("name", "transport") and not is_default(f, value):
                yield f.name, value

    def _settings(self) -> dict[str, Any]:
        """The settings as an entry :meth:`replace` can revalidate: JSON-able, literal ``${`` escaped."""
        out: dict[str, Any] = {} if self._guessed else {"transport": self.transport}
        for key, value in self._changed():
            if key in ("server", "source"):
                continue
            if key in ("command", "cwd", "url"):
                value = escape(value)
            elif key in ("args", "roots"):
                value = [escape(a) for a in value]
            elif key in ("env", "headers"):
                value = {k: escape(v) for k, v in value.items()}
            elif key == "auth":
                value = {k: (v if k in AUTH_VERBATIM else escape(v)) for k, v in value._settings().items()}
            elif key == "tls":
                value = {k: (escape(v) if k in TLS_PATHS else v) for k, v in value._settings().items()}
            elif isinstance(value, tuple):
                value = list(value)
            out[key] = value
        return out

    @property
    def sends_credentials(self) -> bool:
        """Whether requests carry credentials (auth, a secret header or URL parameter): a 401 then
        means they were wrong, not missing. (A client certificate is no HTTP credential: the TLS
        gateway that took it may front an application that wants a token.)"""
        headers = any(is_secret_key(key) and value for key, value in self.headers.items())
        return self.auth is not None or headers or bool(self.url and url_secrets(self.url))

    def secrets(self) -> set[str]:
        """Every secret value this config knows, for the pool to scrub from text it did not write."""
        found: set[str] = set(self._var_secrets)
        if self.auth is not None:
            found |= self.auth.secrets()
        if self.tls is not None:
            found |= self.tls.secrets()
        for key, value in self.headers.items():
            if value and not is_plain_header(key):
                found |= credential(value)
        # every env value may be a credential, but a plain one under a plain name (REGION=us-east-1)
        # is not scrubbed from text, where it would garble words: see is_plain_value
        found |= {v for k, v in self.env.items() if not is_plain_value(v, k)}
        if self.url:
            found |= url_secrets(self.url)
        found |= arg_secrets(self.args)[1]
        return {s for s in found if s}

    def _shown_args(self, secrets: set[str]) -> list[str]:
        return [scrub(a, secrets) for a in arg_secrets(self.args)[0]]

    def redacted(self) -> dict[str, Any]:
        """A JSON-able view for display (``%mcp config``): name, transport and non-default settings,
        secrets replaced by ``***``."""
        secrets = self.secrets()
        out: dict[str, Any] = {"name": self.name, "transport": self.transport}
        for key, value in self._changed():
            if key == "server":
                value = self.target
            elif key in ("command", "cwd", "source"):
                value = scrub(value, secrets)
            elif key == "args":
                value = self._shown_args(secrets)
            elif key == "env":
                value = redact_env(value)
            elif key == "headers":
                value = {k: scrub(v, secrets) for k, v in redact_headers(value).items()}
            elif key == "url":
                value = scrub(redact_url(value), secrets)
            elif key in ("auth", "tls"):
                value = value.redacted()
            elif isinstance(value, tuple):
                value = list(value)
            out[key] = value
        return out

    @property
    def target(self) -> str:
        """A short, safe description of what this connects to, for status rows and progress messages."""
        if self.transport == "inprocess":
            from mcpnb.client.inprocess import transport_label

            made_by = transport_label(self.server)
            if made_by is not None:
                return f"<transport {made_by}>"
            label = getattr(self.server, "name", None)
            label = label if isinstance(label, str) and label else type(self.server).__name__
            return f"<in-process {label}>"
        secrets = self.secrets()
        if self.transport == "stdio":
            words = [scrub(self.command or "", secrets), *self._shown_args(secrets)]
            text = " ".join(w if w and not any(c.isspace() for c in w) else repr(w) for w in words)
        else:
            text = scrub(redact_url(self.url or ""), secrets)
        return text if len(text) <= 120 else text[:119] + "…"

    def __repr__(self) -> str:
        return "ServerConfig(" + ", ".join(f"{k}={v!r}" for k, v in self.redacted().items()) + ")"

    __str__ = __repr__


@dataclass(frozen=True)
class ConfigSet:
    """The merged result of every layer, plus which files were actually read (to show the user)."""

    servers: dict[str, ServerConfig]
    files: tuple[Path, ...] = ()
    #: With ``load_config(keep_going=True)``: the servers left out because their settings are
    #: invalid, each with what is wrong (one typo must not keep the other servers from starting).
    problems: Mapping[str, str] = field(default_factory=dict)
    #: How each of those would be reached, as far as its entries say (``?`` where they do not).
    problem_transports: Mapping[str, str] = field(default_factory=dict)
    #: Every server the files name (valid or not), in the order they first name them: tables keep it.
    order: tuple[str, ...] = ()
    #: The servers the file given as ``path`` (and the local file beside it) name, valid or not:
    #: what naming a file asks to start (the user file's others only merge into them). None when no
    #: file was named: every layer's servers are asked for.
    named_file_servers: tuple[str, ...] | None = None
    #: Layer files found that could not be read (permissions), each with why: left out, with a
    #: warning, while the other layers apply.
    unread: Mapping[str, str] = field(default_factory=dict)

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


def assemble(
    name: str,
    canon: Mapping[str, Any],
    *,
    spelled: Mapping[str, str],
    origins: Mapping[str, str],
    source: str | None,
    server: Any,
    environ: Mapping[str, str] | None,
    variables: Mapping[str, Any] | None = None,
) -> ServerConfig:
    """The checked config for canonical settings (see :func:`.resolve.resolve`)."""
    values, var_secrets = resolve(
        name,
        canon,
        spelled=spelled,
        origins=origins,
        source=source,
        server=server,
        environ=environ,
        variables=variables,
    )
    config = ServerConfig(name=name, server=server, source=source, **values)
    object.__setattr__(config, "_var_secrets", var_secrets)
    if "transport" not in canon and config.url is not None:
        object.__setattr__(config, "_guessed", True)
    return config


_BUILD_KEYS = frozenset(f.name for f in fields(ServerConfig) if f.name not in ("name", "server", "source"))


def _check_kwargs(name: str, kwargs: Mapping[str, Any], source: str | None) -> None:
    for key in kwargs:
        if key not in _BUILD_KEYS:
            suggestion = ALIASES.get(key) or AUTH_ALIASES.get(key) or did_you_mean(key, _BUILD_KEYS)
            raise ConfigError("unknown setting", file=source, server=name, key=key, suggestion=suggestion)
