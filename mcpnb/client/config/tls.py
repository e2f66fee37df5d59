"""``TlsConfig``: a client certificate (mutual TLS) and a CA bundle for one HTTP/SSE server.

Companies put MCP servers behind gateways that ask each client for a certificate; the key's
passphrase stays in an environment variable (``password_env``), never in a file or a notebook.
The files are read when a connection opens (a renewed certificate just works), and each thing
that can be wrong with them is said with the setting to fix: ``ssl`` alone says "[SSL] PEM lib".
"""

from __future__ import annotations

import os
import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcpnb.client.config.auth import env_value, settings_of
from mcpnb.client.errors import ConfigError

#: The fields that hold paths (``${VAR}`` expanded, relative to the file that wrote them, else made
#: absolute where they were given).
TLS_PATHS = ("cert", "key", "ca")
_PEM_CERTIFICATE = re.compile(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", re.DOTALL)


@dataclass(frozen=True, eq=True, repr=False)
class TlsConfig:
    """TLS settings of one server: ``cert`` (a PEM client certificate, its key in it or in ``key``),
    ``password_env`` (the variable holding the key's passphrase) and ``ca`` (a PEM CA bundle trusted
    for this server, beside the system's and ``SSL_CERT_FILE``)."""

    cert: str | None = None
    key: str | None = None
    password_env: str | None = None
    ca: str | None = None
    server_name: str | None = field(default=None, compare=False)
    source: str | None = field(default=None, compare=False)

    def _error(self, message: str, key: str, suggestion: str | None = None) -> ConfigError:
        return ConfigError(
            message, file=self.source, server=self.server_name, key=f"tls.{key}", suggestion=suggestion
        )

    def passphrase(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The key's passphrase from ``password_env`` (None without one), read at connect time."""
        if not self.password_env:
            return None
        return env_value(
            self.password_env,
            os.environ if environ is None else environ,
            "passphrase of the client certificate's key",
            file=self.source,
            server=self.server_name,
            key="tls.password_env",
        )

    def _read(self, key: str, what: str) -> str:
        """The file's text, for its checks (and the CA's load). Bytes that are not UTF-8 are replaced:
        only the PEM blocks matter, and OpenSSL skips the text around them (a PKCS#12 export's "Bag
        Attributes" may name its owner in Latin-1)."""
        path = getattr(self, key)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError as exc:
            raise self._error(f"cannot read the {what} file {path!r} ({_reason(exc)})", key) from None

    def context(
        self, environ: Mapping[str, str] | None = None, *, client_certificate: bool = True
    ) -> ssl.SSLContext:
        """The ``ssl.SSLContext`` for this server: the usual trust (the system's, or ``SSL_CERT_FILE``,
        as httpx's own), plus ``ca``, plus the client certificate. Raises :class:`ConfigError`
        saying which file or variable is wrong, never the passphrase. ``client_certificate=False``:
        the trust alone, for a server the certificate (the person's identity) must not be shown to,
        such as an authorization server no setting names; the key is then not even read."""
        import httpx2

        context = httpx2.create_ssl_context()
        if self.ca:
            # the certificates in the text read for the check (the file read once): the text around
            # them, which OpenSSL skips anyway, need not be ASCII, as cadata must
            blocks = _PEM_CERTIFICATE.findall(self._read("ca", "CA bundle"))
            if not blocks:
                raise self._error(f"{self.ca!r} holds no PEM certificate (-----BEGIN CERTIFICATE-----)", "ca")
            try:
                context.load_verify_locations(cadata="\n".join(blocks))
            except (OSError, ssl.SSLError, TypeError) as exc:  # TypeError: a block that is not ASCII
                raise self._error(f"cannot use the CA bundle {self.ca!r} ({_reason(exc)})", "ca") from None
        if self.cert and client_certificate:
            self._load_chain(context, environ)
        return context

    def _load_chain(self, context: ssl.SSLContext, environ: Mapping[str, str] | None) -> None:
        cert_text = self._read("cert", "client certificate")
        if "-----BEGIN CERTIFICATE-----" not in cert_text:
            raise self._error(
                f"{self.cert!r} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the client "
                "certificate in PEM form (openssl x509 -in cert.der -inform der -out cert.pem)",
                "cert",
            )
        key_text, key_at = (self._read("key", "private key"), "key") if self.key else (cert_text, "cert")
        if "PRIVATE KEY-----" not in key_text:
            if key_at == "cert":
                raise self._error(
                    f"{self.cert!r} holds the certificate but not its private key: name the key's file in "
                    "tls.key",
                    "cert",
                )
            raise self._error(f"{self.key!r} holds no PEM private key (-----BEGIN … PRIVATE KEY-----)", "key")
        encrypted = "ENCRYPTED" in key_text
        if encrypted and not self.password_env:
            raise self._error(
                f"the private key in {getattr(self, key_at)!r} is encrypted: put its passphrase in an "
                "environment variable and name that variable in tls.password_env",
                key_at,
            )
        secret = self.passphrase(environ) if encrypted else None

        def never_asked() -> str:  # OpenSSL would otherwise ask on the terminal, where no one answers
            return ""

        try:
            context.load_cert_chain(self.cert, self.key, password=secret if secret else never_asked)
        except ssl.SSLError as exc:
            said = _reason(exc)
            if "KEY_VALUES_MISMATCH" in str(exc) or "key values mismatch" in str(exc):
                where = f"the key in {self.key!r}" if self.key else "the key in the same file"
                raise self._error(
                    f"{where} does not belong to the certificate {self.cert!r}: give the key it was "
                    "issued with",
                    key_at,
                ) from None
            if encrypted:
                raise self._error(
                    f"cannot decrypt the private key in {getattr(self, key_at)!r}: is the passphrase in "
                    f"{self.password_env} the right one? ({said})",
                    "password_env",
                ) from None
            raise self._error(f"cannot use the client certificate or its key ({said})", key_at) from None
        except OSError as exc:
            raise self._error(f"cannot read the client certificate ({_reason(exc)})", key_at) from None

    def secrets(self) -> set[str]:
        """The passphrase, where its variable is set: never shown in any text. Best effort."""
        value = os.environ.get(self.password_env) if self.password_env else None
        return {value} if value else set()

    def _settings(self) -> dict[str, Any]:
        """The fields that differ from their defaults, as a ``.mcp.json`` would say them."""
        return settings_of(self)

    def redacted(self) -> dict[str, Any]:
        """For display: paths and the variable's name (no secret is held here)."""
        return self._settings()

    def __repr__(self) -> str:
        return "TlsConfig(" + ", ".join(f"{k}={v!r}" for k, v in self.redacted().items()) + ")"

    __str__ = __repr__


def _reason(exc: BaseException) -> str:
    """An ``ssl``/``OSError`` in words: its reason, not "[SSL] PEM lib (_ssl.c:3900)"."""
    if isinstance(exc, OSError) and not isinstance(exc, ssl.SSLError) and exc.strerror:
        return exc.strerror
    reason = getattr(exc, "reason", None)
    text = str(exc)
    text = re.sub(r"\s*\(_ssl\.c:\d+\)$", "", text)
    text = re.sub(r"^\[[A-Z0-9_: ]+\]\s*", "", text)
    return text or (str(reason) if reason else type(exc).__name__)
