"""Keep secrets out of everything a person sees: reprs, status rows, log lines, error messages.

Notebooks get saved, shared and screen-shared, so a token printed once is a token leaked. Redaction
happens at two levels: by *name* (a header called ``Authorization`` holds a secret whatever its value)
and by *value* (:func:`scrub` removes known secret values from free text such as a server's error
message that echoes its own command line). Standard library only: this is imported on every path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import unquote_plus, urlsplit, urlunsplit

REDACTED = "***"

_SECRET_NAMES = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_SECRET_PARTS = ("token", "secret", "password", "passwd", "apikey", "credential")
# URL query parameters that carry secrets without a telling name (signed URLs, OAuth codes).
_SECRET_PARAMS = frozenset({"key", "sig", "signature", "code", "auth", "jwt", "pass", "pwd", "session"})
# Values long enough to be worth scrubbing: shorter ones would mangle ordinary words.
_MIN_SECRET = 4


def is_secret_key(name: str) -> bool:
    """Whether a header/field/variable *name* says its value is a secret.

    Names are the only reliable signal we have before a value leaks, so err on the side of hiding:
    ``X-Api-Key``, ``api_key``, ``apiKey``, ``GITHUB_TOKEN``, ``db_password`` all count.
    """
    low = name.strip().lower()
    if low in _SECRET_NAMES or low == "key":
        return True
    if low.endswith(("-key", "_key", ".key")) or name.strip().endswith("Key"):
        return True
    return any(part in low for part in _SECRET_PARTS)


def _is_secret_param(name: str) -> bool:
    return is_secret_key(name) or name.strip().lower() in _SECRET_PARAMS


#: Headers whose values never carry a credential: the only ones a status, a repr or an error shows.
_PLAIN_HEADERS = frozenset(
    {"accept", "accept-encoding", "accept-language", "cache-control", "content-type", "user-agent"}
    | {"mcp-protocol-version", "x-request-id", "x-forwarded-proto"}
)


def is_plain_header(name: str) -> bool:
    """Whether a header's value can be shown. Names say little here: a server reads its key from
    ``X-Custom-Auth`` or ``X-Tenant`` as readily as from ``Authorization``, so only well-known
    headers that never hold one are shown (a token once went out in full as ``X-Custom-Thing``)."""
    return name.strip().lower() in _PLAIN_HEADERS and not is_secret_key(name)


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """A copy safe to print: every value replaced but those of :func:`is_plain_header` headers."""
    return {k: (v if is_plain_header(k) else REDACTED) for k, v in headers.items()}


def redact_env(env: Mapping[str, str]) -> dict[str, str]:
    """A copy with *every* value hidden: env values are how servers get credentials, whatever the name."""
    return dict.fromkeys(env, REDACTED)


def _redact_pairs(text: str, found: set[str] | None) -> str:
    pieces = []
    for piece in text.split("&"):
        name, sep, value = piece.partition("=")
        if sep and value and _is_secret_param(unquote_plus(name)):
            if found is not None:
                found.update({value, unquote_plus(value)})
            piece = f"{name}={REDACTED}"
        pieces.append(piece)
    return "&".join(pieces)


def _redact_url(url: str, found: set[str] | None) -> str:
    if "://" not in url and "@" in url.split("/", 1)[0]:  # no scheme (a typo): still an authority
        return _redact_url("//" + url, found)[2:]
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # malformed (e.g. a bad IPv6 literal): hide the userinfo and the query
        head, sep, _ = url.partition("?")
        scheme, slashes, rest = head.partition("://")
        if slashes and "@" in rest:
            head = f"{scheme}://{REDACTED}@{rest.rpartition('@')[2]}"
        return head + (f"?{REDACTED}" if sep else "")
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        user, colon, secret = userinfo.partition(":")
        if colon:
            netloc = f"{user}:{REDACTED}@{hostport}"
            if found is not None and password:
                found.update({secret, password})
        elif user:  # a lone userinfo is the token-as-username convention (https://TOKEN@host)
            netloc = f"{REDACTED}@{hostport}"
            if found is not None:
                found.update({user, unquote_plus(user)})
    path = _redact_path(parts.path, found)
    query = _redact_pairs(parts.query, found)
    fragment = _redact_pairs(parts.fragment, found) if "=" in parts.fragment else parts.fragment
    if (netloc, path, query, fragment) == (parts.netloc, parts.path, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, path, query, fragment))


# A path segment made of the characters tokens are made of (base64, base64url, hex, UUIDs).
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-.~+=%]{20,}")


def looks_like_token(segment: str) -> bool:
    """Whether a URL path segment looks like a credential: hosted MCP servers hand out secret URLs
    (``https://mcp.example.com/s/<token>/mcp``, "treat it like a password"), and the path is what
    a status row shows. Twenty characters or more of token characters, with upper case, lower
    case and digits mixed (base64) or a quarter digits or more (hex, UUIDs); a slug such as
    ``my-server-2024`` or ``weather-forecast-tools`` is none of these."""
    if not _TOKEN_CHARS.fullmatch(segment):
        return False
    alnum = [c for c in segment if c.isalnum()]
    digits = sum(c.isdigit() for c in alnum)
    mixed = digits and any(c.isupper() for c in alnum) and any(c.islower() for c in alnum)
    return bool(mixed) or digits * 4 >= len(alnum)


def _redact_path(path: str, found: set[str] | None) -> str:
    segments = path.split("/")
    tokens = {s for s in segments if looks_like_token(s)}  # every log line's URLs come this way
    if not tokens:
        return path
    if found is not None:
        found.update(tokens)
    return "/".join(REDACTED if s in tokens else s for s in segments)


def redact_url(url: str) -> str:
    """The URL with its userinfo password, secret-looking query parameters and path segments that
    look like tokens (:func:`looks_like_token`) replaced.

    Tokens in query strings (``?token=…``, ``?api_key=…``) are common for SSE endpoints, secret
    paths for hosted servers, and a URL is exactly what a status table or an error message shows.
    """
    return _redact_url(url, None)


def url_secrets(url: str) -> set[str]:
    """The values :func:`redact_url` hides, so they can also be scrubbed from free text."""
    found: set[str] = set()
    _redact_url(url, found)
    return {s for s in found if s}


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every occurrence of every secret value replaced by :data:`REDACTED`.

    Longest first in a single pass, so a secret that contains another is hidden whole. Values shorter
    than 4 characters are ignored: scrubbing ``"1"`` or ``"on"`` would wreck the message and hide
    nothing worth hiding.
    """
    values = sorted(
        {s for s in secrets if isinstance(s, str) and len(s) >= _MIN_SECRET}, key=len, reverse=True
    )
    if not values or not text:
        return text
    return re.sub("|".join(map(re.escape, values)), REDACTED, text)
