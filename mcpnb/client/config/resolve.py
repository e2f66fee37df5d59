"""The last step, after the schema and the merge of layers: ``${VAR}`` expansion, the transport, and
the rules no schema can say (keys of the other transport, command *and* url, auth shapes), each error
pointing at the file and the spelling where the offending key was written.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcpnb.client.config.auth import (
    SIGNING_ALGORITHMS,
    TLS_RULE,
    AuthConfig,
    cleartext_to_another_host,
    credentials_sent,
)
from mcpnb.client.config.expand import expand
from mcpnb.client.config.keys import AUTH_VERBATIM, MILLISECOND_KEYS, Transport
from mcpnb.client.config.tls import TLS_PATHS, TlsConfig
from mcpnb.client.config.values import check_command, check_path, header_value, url_value
from mcpnb.client.errors import ConfigError, did_you_mean
from mcpnb.client.redact import redact_url

if TYPE_CHECKING:
    from mcpnb.client.config.vscode import Variables

# Expanded in this order, so the first bad reference is the one reported.
_EXPANDED = ("command", "args", "env", "headers", "cwd", "roots", "url")
_STDIO_ONLY = ("args", "env", "cwd")
_HTTP_ONLY = ("headers", "auth", "tls")
# Held as floats, whichever number was written.
_FLOATS = (
    "startup_timeout",
    "tool_timeout",
    "max_total_timeout",
    "retry_delay",
    "health_check_interval",
    "cache_ttl",
    "max_message_mb",
)
# Seconds a person plausibly means, per key with a unit trap (0 switches the feature off and is always
# fine). A value outside the range that fits it in the other unit was written in the wrong unit.
_PLAUSIBLE = {
    "retry_delay": (0.01, 600.0),
    "health_check_interval": (0.1, 21600.0),
    "cache_ttl": (0.5, 86400.0),
}
# Per transport: what reaches it (to compare with what the keys imply), and how to say so in an error.
_REACH = {
    "stdio": ("stdio", "'command'"),
    "http": ("url", "'url'"),
    "sse": ("url", "'url'"),
    "inprocess": ("inprocess", "a server object"),
}
# identity_assertion's own keys (SEP-990): the ID token and the identity provider
_IDENTITY_FIELDS = (
    "id_token",
    "id_token_env",
    "id_token_file",
    "idp_issuer",
    "idp_token_endpoint",
    "idp_client_id",
    "idp_client_secret",
    "idp_client_secret_env",
)


# jwt_bearer's own keys (SEP-1933, workload identity): the workload's JWT
_WORKLOAD_FIELDS = ("assertion_file", "assertion_env", "assertion")


_AUTH_FIELDS_BY_TYPE = {
    "bearer": {"token", "token_env"},
    "basic": {"username", "password", "password_env"},
    "oauth": {
        "flow",
        "client_id",
        "client_secret",
        "client_secret_env",
        "private_key",
        "private_key_env",
        "private_key_file",
        "signing_algorithm",
        "key_id",
        *_IDENTITY_FIELDS,
        *_WORKLOAD_FIELDS,
        "scope",
        "issuer",
        "token_storage",
        "client_metadata_url",
        "redirect_port",
        "assume_pkce",
    },
}


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


def resolve(
    name: str,
    canon: Mapping[str, Any],
    *,
    spelled: Mapping[str, str],
    origins: Mapping[str, str],
    source: str | None,
    server: Any,
    environ: Mapping[str, str] | None,
    variables: Mapping[str, Variables] | None = None,
) -> tuple[dict[str, Any], frozenset[str]]:
    """The ``ServerConfig`` fields for checked, canonical settings (besides name, server and source),
    and the values of secret-named variables that expansion used.

    ``spelled`` maps field names to the spelling written; ``origins`` maps them to the file that
    wrote them (``source`` for the rest); ``variables``, file -> a VS Code file's own ``${…}``."""
    where = _Where(name, source, origins, spelled)
    env_vars = os.environ if environ is None else environ
    var_secrets: set[str] = set()

    def expand_at(text: str, key: str, sub: str = "") -> str:
        def fail(message: str, suggestion: str | None = None) -> ConfigError:
            return where(message, key, sub, suggestion)

        written_in = origins.get(key.split(".", 1)[0], source)
        return expand(text, env_vars, fail, var_secrets, (variables or {}).get(written_in or ""))

    values: dict[str, Any] = {k: v for k, v in canon.items() if k not in ("transport", "auth", "tls")}
    for key in _EXPANDED:
        value = values.get(key)
        if isinstance(value, list):
            values[key] = tuple(expand_at(a, key, f"[{i}]") for i, a in enumerate(value))
        elif isinstance(value, dict):
            values[key] = {k: expand_at(v, key, f".{k}") for k, v in value.items()}
        elif isinstance(value, str):
            values[key] = expand_at(value, key)

    if "url" in values:
        values["url"] = url_value(values["url"], canon["url"], env_vars, where)
        _check_url(values["url"], where)
    if "command" in values:
        check_command(values["command"], canon["command"], env_vars, var_secrets, where)
    for key in ("cwd", "roots"):
        value, written = values.get(key), canon.get(key)
        for i, one in enumerate([value] if isinstance(value, str) else value or ()):
            check_path(
                one,
                key,
                "" if isinstance(value, str) else f"[{i}]",
                var_secrets,
                where,
                written=written if isinstance(value, str) else written[i],
                environ=env_vars,
                beside=_beside(one, origins.get(key, source)),  # as it is used below
            )
    for header, value in (values.get("headers") or {}).items():
        values["headers"][header] = header_value(header, canon["headers"][header], value, env_vars, where)
    seen: dict[str, str] = {}
    for header in values.get("headers") or {}:
        if (first := seen.setdefault(header.lower(), header)) != header:
            raise where(
                f"{first!r} and {header!r} are one header (HTTP names ignore case): keep one",
                "headers",
                f".{header}",
            )
    transport = _transport(canon, values, server, where)
    for key in _STDIO_ONLY if transport != "stdio" else ():
        if values.get(key):
            raise where(f"applies only to stdio servers (this one is {transport})", key)
    for key in _HTTP_ONLY if transport not in ("http", "sse") else ():
        if canon.get(key):
            raise where(f"applies only to http and sse servers (this one is {transport})", key)

    if "cwd" in values:
        values["cwd"] = _beside(values["cwd"], origins.get("cwd", source))
    if "roots" in values:  # file URIs are absolute: relative to the file, else to the working directory
        values["roots"] = tuple(
            os.path.abspath(_beside(r, origins.get("roots", source))) for r in values["roots"]
        )

    for key in _FLOATS:
        if key in values:
            values[key] = float(values[key])
    for key, value in values.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise where(f"must be a finite number, got {value}", key)
    for key in _PLAUSIBLE:
        if key in values:
            values[key] = _seconds(key, values[key], spelled.get(key, key), where)
    if "max_retries" in values:
        values["max_retries"] = int(values["max_retries"])
    for key in ("enabled_tools", "disabled_tools"):
        if key in values:
            values[key] = tuple(values[key])
    if values.get("enabled_tools") == ():
        del values["enabled_tools"]  # an empty allow-list means no filter (as in the plan), not "hide all"
    both = [t for t in values.get("enabled_tools") or () if t in values.get("disabled_tools", ())]
    if both:
        raise where(f"tool {both[0]!r} is both enabled and disabled", "disabled_tools")

    auth = None
    if "auth" in canon:
        auth = _auth(canon["auth"], where, expand_at, origins.get("auth", source), name)
        for header in values.get("headers", {}):
            if header.lower() == "authorization":
                raise where("set either an Authorization header or 'auth', not both", "headers", f".{header}")
    _warn_cleartext(name, values.get("url"), auth, values.get("headers") or {})
    tls = (
        _tls(canon["tls"], where, expand_at, origins.get("tls", source), name, values)
        if "tls" in canon
        else None
    )

    return {"transport": transport, "auth": auth, "tls": tls, **values}, frozenset(
        s for s in var_secrets if s
    )


def _tls(
    raw: Mapping[str, Any],
    where: _Where,
    expand_at: Callable[..., str],
    source: str | None,
    name: str,
    values: Mapping[str, Any],
) -> TlsConfig | None:
    """The ``tls`` settings: paths expanded and taken relative to the file that wrote them (without
    one, to the working directory now: the files are read again at each reconnect, after a ``%cd``
    too); a key or passphrase only with the certificate they belong to; an https:// URL (no TLS
    otherwise)."""
    settings = {
        k: (os.path.abspath(_beside(expand_at(v, f"tls.{k}"), source)) if k in TLS_PATHS else v)
        for k, v in raw.items()
    }
    if not settings:
        return None
    for key in ("key", "password_env"):
        if key in settings and "cert" not in settings:
            raise where("belongs to a client certificate: name its file in tls.cert too", f"tls.{key}")
    url = values.get("url")
    if url and urlsplit(url).scheme != "https":
        raise where(
            f"applies to https:// addresses, and {redact_url(url)} is plain http (no TLS to present a "
            "certificate in)",
            "tls",
        )
    return TlsConfig(**settings, server_name=name, source=source)


def _warn_cleartext(name: str, url: str | None, auth: AuthConfig | None, headers: Mapping[str, str]) -> None:
    """A UserWarning, before anything is sent, when credentials would cross a network in the clear
    (``http://`` to a host that is not this machine). Not a refusal: a server on a private network
    (a compose service, a lab machine) may only speak http, and the person chose that URL; the
    warning says what anyone on the way can read. The default filter shows it once per process."""
    if not url or not cleartext_to_another_host(url):
        return
    sent = credentials_sent(auth, headers, url)
    if sent is None:
        return
    import warnings

    warnings.warn(
        f"server {name!r}: {redact_url(url)} is plain http to another machine, and its requests carry "
        f"{sent}: anyone on the network between can read them ({TLS_RULE}). Use its https:// address "
        "if it has one",
        UserWarning,
        stacklevel=2,
    )


#: Files a person starts a server from (``server.py``), never the start of a URL.
_SCRIPTS = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".exe")


def looks_like_program(text: str) -> bool:
    """Whether text given where a URL goes starts a program instead (``uvx some-server``,
    ``./server.py``, ``/usr/local/bin/server``, a word on ``PATH``): a person who wrote it there
    should hear where a command goes, not "did you mean 'https://uvx some-server'"."""
    first = text.split(None, 1)[0] if text.strip() else ""
    if not first or "://" in first or first.startswith(("{{", "-")):
        return False
    if first.startswith(("/", "./", "../", "~")) or first.endswith(_SCRIPTS) or shutil.which(first):
        return True
    return first != "localhost" and not any(c in first for c in ".:/[@")  # a bare word: no host, no path


def _check_url(url: str, where: _Where) -> None:
    """A URL ``urlsplit`` accepts, with a scheme and a host; its message never shows a credential."""
    if looks_like_program(url):
        raise where(
            f"expected an http:// or https:// URL, got {redact_url(url)!r}: that looks like a program "
            "to start, and a server started as a program takes 'command' (the program) and 'args' "
            "(its arguments)",
            "url",
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises for a port that is not a number)
    except ValueError as exc:
        raise where(f"not a valid URL ({exc}): {redact_url(url)!r}", "url") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        scheme, _, rest = url.partition(":")
        if did_you_mean(scheme.lower(), ["http", "https"]) and scheme.lower() not in ("http", "https"):
            place = rest.lstrip("/")  # "htp:/127.0.0.1:1/mcp": a scheme mistyped, not a host to prefix
        else:
            place = url if "://" not in url and url.strip("/") != "" else ""
        try:  # read as an authority, like the redaction does: the host is what decides http
            local = urlsplit("//" + place).hostname in ("127.0.0.1", "localhost", "::1")
        except ValueError:  # "[::1/x": no host to read, and no suggestion either way
            local = False
        raise where(
            f"expected an http:// or https:// URL, got {redact_url(url)!r}",
            "url",
            suggestion=redact_url(f"{'http' if local else 'https'}://{place}") if place else None,
        )


def _seconds(key: str, value: float, spelling: str, where: _Where) -> float:
    """``value`` in seconds; a :class:`ConfigError` when it was most likely written in the other unit.

    ``spelling`` is the key as written: the plan's camelCase ones (``retryDelay``...) count ms.
    """
    in_ms = spelling in MILLISECOND_KEYS
    seconds = value / 1000 if in_ms else value
    low, high = _PLAUSIBLE[key]
    if seconds == 0 or low <= seconds <= high:
        return seconds
    camel = next(k for k, v in MILLISECOND_KEYS.items() if v == key)
    if in_ms and low <= value <= high:
        raise where(
            f"counts milliseconds, and {value:g} ms looks like a number of seconds; "
            f"write {value * 1000:g}, or {key}: {value:g} in seconds",
            key,
        )
    if not in_ms and low <= value / 1000 <= high:
        raise where(
            f"counts seconds, and {value:g} s ({_duration(value)}) looks like milliseconds; "
            f"write {value / 1000:g}, or {camel}: {value:g} in milliseconds",
            key,
        )
    scale, unit = (1000, "ms") if in_ms else (1, "s")
    span = f"{low * scale:g}..{high * scale:g} {unit}"
    raise where(f"{value:g} {unit} is outside {span} (0 switches it off)", key)


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} hours"
    return f"{seconds / 60:.1f} minutes" if seconds >= 60 else f"{seconds:g} s"


def _check_server_object(server: Any, where: _Where) -> None:
    """What runs in-process: an ``MCPServer``, a low-level ``Server``, a transport (an async context
    manager) or a FastMCP server. Anything else failed later, deep in the SDK."""
    from mcpnb.client.inprocess import runnable

    if runnable(server):
        return
    raise where(
        f"an in-process server is an MCP server object (mcp's MCPServer or Server, or a FastMCP), "
        f"not a {type(server).__name__}",
        "server",
    )


def transport_of_url(url: str) -> Transport:
    """An endpoint whose path ends in ``/sse`` is the legacy SSE transport; any other, Streamable HTTP."""
    return "sse" if urlsplit(url).path.rstrip("/").endswith("/sse") else "http"


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
        _check_server_object(server, where)
        inferred = "inprocess"
    elif has_command:
        inferred = "stdio"
    else:
        inferred = transport_of_url(values["url"])
    if given is None:
        return inferred  # type: ignore[return-value]
    reach, need = _REACH[given]
    if reach == _REACH[inferred][0]:
        return given  # type: ignore[no-any-return]
    raise where(f"transport {given!r} needs {need}", "transport", suggestion=inferred)


def _beside(path: str, origin: str | None) -> str:
    """``~`` expanded; a relative path is taken relative to the config file that wrote it."""
    path = os.path.expanduser(path)
    if not os.path.isabs(path) and origin and not origin.startswith("<"):
        path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(origin)), path))
    return path


def _client_metadata_url(url: str, where: _Where) -> None:
    """The authorization server fetches the client's metadata from it: https, and a document's path."""
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc or parts.path in ("", "/"):
        raise where(
            f"{url!r} is not where a client metadata document can live: give an https:// address with a "
            "path, like https://example.com/mcpnb/client.json",
            "auth.client_metadata_url",
        )


def _issuer(issuer: str, where: _Where, key: str = "issuer", what: str = "an authorization server") -> None:
    """An RFC 8414 issuer identifier: an http(s) URL with a host and no query or fragment."""
    parts = urlsplit(issuer)
    if parts.scheme in ("http", "https") and parts.netloc and not parts.query and not parts.fragment:
        return
    bare = "://" not in issuer and issuer.strip("/") and not parts.query and not parts.fragment
    raise where(
        f"{issuer!r} is not {what}'s issuer: give the https:// address its metadata names as "
        "'issuer' (no query or fragment), like https://login.example.com",
        f"auth.{key}",
        suggestion=f"https://{issuer}" if bare else None,
    )


def _one(
    values: dict[str, Any],
    keys: tuple[str, ...],
    where: _Where,
    need: str | None,
    by: str = "the identity_assertion flow",
) -> str | None:
    """The one of ``keys`` that is set; two set is an error, none set is one when ``need`` is given
    (what the key is for, or "" where the keys say it)."""
    given = [key for key in keys if values.get(key)]
    if len(given) > 1:
        raise where(
            f"give one of {', '.join(keys)}, not {' and '.join(map(repr, given))}", f"auth.{given[-1]}"
        )
    if not given and need is not None:
        raise where(f"{by} needs {' or '.join(map(repr, keys))}" + (f": {need}" if need else ""), "auth")
    return given[0] if given else None


def _identity_assertion(values: dict[str, Any], where: _Where, origin: str | None) -> None:
    """SEP-990: the ID token (or a sign-in at the identity provider for one) and the identity
    provider that exchanges it, and the client and authorization server (``issuer``) the exchanged
    grant is for. Nothing here is discovered from the MCP server: that is the point of the flow."""
    for key in (*_KEY_FIELDS, "signing_algorithm", "key_id", "client_metadata_url"):
        if key in values:
            raise where("does not apply to the identity_assertion flow", f"auth.{key}")
    _one(values, ("client_id",), where, "this client at the MCP server's authorization server")
    _one(values, _SECRET_FIELDS, where, "this client's secret at the MCP server's authorization server")
    _one(values, ("issuer",), where, "the MCP server's authorization server, which the grant is made out to")
    _one(values, ("idp_client_id",), where, "this client at the identity provider (the ID token's audience)")
    _one(values, ("idp_client_secret", "idp_client_secret_env"), where, None)
    idp = _one(values, ("idp_issuer", "idp_token_endpoint"), where, "the identity provider to exchange at")
    if idp == "idp_issuer":
        _issuer(values["idp_issuer"], where, "idp_issuer", "an identity provider")
    else:
        parts = urlsplit(values["idp_token_endpoint"])
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise where(
                "give the identity provider's token endpoint as an https:// address",
                "auth.idp_token_endpoint",
            )
    token = _one(values, ("id_token_file", "id_token_env", "id_token"), where, None)
    if token == "id_token_file":
        values["id_token_file"] = _beside(values["id_token_file"], origin)
    if token is not None and "redirect_port" in values:
        raise where(
            "applies where the person signs in at the identity provider (no ID token given)",
            "auth.redirect_port",
        )
    if token is None and idp != "idp_issuer":
        raise where(
            "without an ID token (id_token_file, id_token_env or id_token) the person signs in at the "
            "identity provider: give auth.idp_issuer, where its sign-in page is found",
            "auth",
        )


_SECRET_FIELDS = ("client_secret", "client_secret_env")
_KEY_FIELDS = ("private_key_file", "private_key_env", "private_key")


def _client_credentials(values: dict[str, Any], where: _Where, origin: str | None) -> None:
    """A client proves itself with one secret or one private key (``private_key_jwt``), not both."""
    secrets = [key for key in _SECRET_FIELDS if values.get(key)]
    keys = [key for key in _KEY_FIELDS if values.get(key)]
    if len(secrets) + len(keys) > 1:
        given = " and ".join(repr(key) for key in secrets + keys)
        raise where(
            f"give one of client_secret, client_secret_env, private_key_file, private_key_env or "
            f"private_key, not {given}",
            f"auth.{(secrets + keys)[-1]}",
        )
    if not secrets and not keys:
        raise where(
            "the client_credentials flow needs 'client_secret' or 'client_secret_env' (a shared "
            "secret), or 'private_key_file' or 'private_key_env' (private_key_jwt)",
            "auth",
        )
    if not keys:
        for key in ("signing_algorithm", "key_id"):
            if key in values:
                raise where("applies to private_key_jwt: set private_key_file (or _env) too", f"auth.{key}")
        return
    if "private_key_file" in values:
        values["private_key_file"] = _beside(values["private_key_file"], origin)
    algorithm = values.get("signing_algorithm")
    if algorithm is not None and algorithm not in SIGNING_ALGORITHMS:
        raise where(
            f"unknown signing algorithm {algorithm!r} (one of {', '.join(SIGNING_ALGORITHMS)}); "
            "leave it out to use the one the key implies",
            "auth.signing_algorithm",
            suggestion=did_you_mean(algorithm, SIGNING_ALGORITHMS),
        )


def _jwt_bearer(values: dict[str, Any], where: _Where, origin: str | None) -> None:
    """SEP-1933: the workload's JWT is the grant; the client names itself (``client_id``) but has no
    secret or key of its own to show, and nobody signs in."""
    for key in (*_SECRET_FIELDS, *_KEY_FIELDS, "signing_algorithm", "key_id", "client_metadata_url"):
        if key in values:
            raise where(
                "does not apply to the jwt_bearer flow: the workload's token is the proof", f"auth.{key}"
            )
    if "redirect_port" in values:
        raise where("applies to the authorization_code flow, where a person signs in", "auth.redirect_port")
    _one(values, ("client_id",), where, "the client the workload acts as", by="the jwt_bearer flow")
    given = _one(values, _WORKLOAD_FIELDS, where, "the workload's JWT", by="the jwt_bearer flow")
    if given == "assertion_file":
        values["assertion_file"] = _beside(values["assertion_file"], origin)


def _oauth(values: dict[str, Any], where: _Where, origin: str | None) -> None:
    """Each flow's keys, and no key of another flow (each names the flow it belongs to)."""
    flow = values.get("flow", "client_credentials")
    stray = next((key for key in _IDENTITY_FIELDS if key in values), None)
    if flow != "identity_assertion" and stray is not None:
        raise where(f"applies to the identity_assertion flow (SEP-990), not {flow}", f"auth.{stray}")
    workload = next((key for key in _WORKLOAD_FIELDS if key in values), None)
    if flow != "jwt_bearer" and workload is not None:
        raise where(f"applies to the jwt_bearer flow (workload identity), not {flow}", f"auth.{workload}")
    if flow != "authorization_code" and "assume_pkce" in values:
        raise where(
            f"applies to the authorization_code flow, where a person signs in with PKCE, not {flow}",
            "auth.assume_pkce",
        )
    if flow == "identity_assertion":
        _identity_assertion(values, where, origin)
    elif flow == "jwt_bearer":
        _jwt_bearer(values, where, origin)
    elif flow == "client_credentials":
        if not values.get("client_id"):
            raise where("the client_credentials flow needs a 'client_id'", "auth")
        _client_credentials(values, where, origin)
        for key in ("client_metadata_url", "redirect_port"):
            if key in values:
                raise where("applies to the authorization_code flow, where a person signs in", f"auth.{key}")
    else:
        for key in (*_KEY_FIELDS, "signing_algorithm", "key_id"):
            if key in values:
                raise where(
                    "applies to the client_credentials flow (private_key_jwt), not authorization_code",
                    f"auth.{key}",
                )


def _auth(
    raw: Mapping[str, Any], where: _Where, expand_at: Callable[..., str], source: str | None, name: str
) -> AuthConfig:
    kind = raw["type"]
    for key in raw:
        if key != "type" and key not in _AUTH_FIELDS_BY_TYPE[kind]:
            owner = next(t for t, keys in _AUTH_FIELDS_BY_TYPE.items() if key in keys)
            raise where(f"applies to {owner} auth, not {kind}", f"auth.{key}")
    values = {k: (v if k in AUTH_VERBATIM else expand_at(v, f"auth.{k}")) for k, v in raw.items()}

    if kind == "bearer":
        _one(values, ("token", "token_env"), where, "", by="bearer auth")
    elif kind == "basic":
        if not values.get("username"):
            raise where("basic auth needs a 'username'", "auth")
        _one(values, ("password", "password_env"), where, "", by="basic auth")
    else:
        _oauth(values, where, source)
    if "client_metadata_url" in values:
        _client_metadata_url(values["client_metadata_url"], where)
    if "issuer" in values:
        _issuer(values["issuer"], where)
    return AuthConfig(**values, server_name=name, source=source)
