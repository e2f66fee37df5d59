"""Private keys for ``private_key_jwt``: the client proves who it is with a JWT it signs (RFC 7523).

Machine-to-machine OAuth without a shared secret (SEP-1046): the authorization server holds the
client's public key, mcpnb signs a short-lived assertion with the private one. The signing
algorithm follows from the key (an RSA key signs RS256, a P-256 key ES256, an Ed25519 key EdDSA),
so a person gives a key file and nothing else; ``signing_algorithm`` is for a server that wants
another one the key can make (PS256 with an RSA key, say). Nothing here ever repeats the key.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from mcpnb.client.config.auth import ALGORITHMS
from mcpnb.client.errors import ConfigError

#: How long a signed assertion is good for: long enough for a slow token endpoint, no longer.
ASSERTION_LIFETIME = 300


class SigningKey:
    """A parsed private key and the algorithm it signs with; its repr names the kind, never the key."""

    def __init__(self, key: Any, kind: str, algorithm: str, key_id: str | None = None) -> None:
        self.key, self.kind, self.algorithm, self.key_id = key, kind, algorithm, key_id

    def __repr__(self) -> str:
        kid = f", key_id={self.key_id!r}" if self.key_id else ""
        return f"SigningKey({self.kind}, {self.algorithm}{kid})"

    def assertion(self, client_id: str, audience: str) -> str:
        """A client assertion (RFC 7523 §3): the client is issuer and subject, the authorization
        server's issuer the audience; a fresh ``jti`` each time, as servers refuse replays."""
        import jwt

        now = int(time.time())
        claims = {
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME,
            "jti": str(uuid.uuid4()),
        }
        headers = {"kid": self.key_id} if self.key_id else None
        return jwt.encode(claims, self.key, algorithm=self.algorithm, headers=headers)


def load_signing_key(
    pem: str, algorithm: str | None = None, key_id: str | None = None, *, where: str = "auth.private_key"
) -> SigningKey:
    """Parse a PEM private key and settle its algorithm; a :class:`ConfigError` says what is wrong
    with it (not a key, encrypted, a kind or algorithm that does not fit) without quoting it."""
    from cryptography.hazmat.primitives import serialization

    text = pem.strip()
    if "PUBLIC KEY-----" in text and "PRIVATE KEY-----" not in text:
        raise ConfigError(
            f"{where} holds a public key: mcpnb signs with the private one (the authorization server "
            "keeps the public key)"
        )
    try:
        key = serialization.load_pem_private_key(text.encode(), password=None)
    except TypeError:  # "Password was not given but private key is encrypted"
        raise ConfigError(
            f"{where} is encrypted with a passphrase; give the key unencrypted (for example "
            "openssl pkey -in key.pem -out plain.pem) and keep that file private"
        ) from None
    except Exception as exc:  # the library's message quotes no key material
        reason = str(exc).split(".")[0] if str(exc) else type(exc).__name__
        raise ConfigError(
            f"{where} is not a PEM private key ({reason}); it should start with "
            "'-----BEGIN PRIVATE KEY-----' (or BEGIN RSA / EC PRIVATE KEY)"
        ) from None
    kind = _kind(key)
    if kind is None:
        raise ConfigError(
            f"{where} is a {type(key).__name__.lstrip('_')}, which private_key_jwt cannot sign with; use "
            f"an RSA, P-256, P-384, P-521 or Ed25519 key"
        )
    allowed = ALGORITHMS[kind]
    if algorithm is None:
        return SigningKey(key, kind, allowed[0], key_id)
    if algorithm not in allowed:
        raise ConfigError(
            f"auth.signing_algorithm {algorithm!r} does not fit {where} (a {kind} key signs "
            f"{', '.join(allowed)}); leave signing_algorithm out to use {allowed[0]}"
        )
    return SigningKey(key, kind, algorithm, key_id)


def _kind(key: Any) -> str | None:
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    if isinstance(key, rsa.RSAPrivateKey):
        return "RSA"
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return "Ed25519"
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return {"secp256r1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"}.get(key.curve.name)
    return None
