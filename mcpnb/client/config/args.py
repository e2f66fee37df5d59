"""Which words of a stdio server's arguments may be credentials, and how to show them.

Shared by the config's views (:meth:`ServerConfig.redacted`, ``target``, ``secrets``) and by the
schema's messages (a string ``args`` quoted back in an error), so both hide the same words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mcpnb.client.redact import (
    REDACTED,
    is_plain_header,
    is_secret_key,
    looks_like_token,
    looks_secret_name,
    redact_url,
    url_secrets,
)


def credential(value: str) -> set[str]:
    """A secret header value, and the credential inside it (``Bearer <token>``)."""
    found = {value}
    scheme, _, rest = value.partition(" ")
    if rest and scheme.lower() in ("bearer", "basic", "token"):
        found.add(rest.strip())
    return found


#: Flags whose value is an HTTP header (mcp-remote's ``--header``, curl's ``-H``).
_HEADER_FLAGS = frozenset({"--header", "--headers", "-H"})


def arg_secrets(args: Iterable[str]) -> tuple[list[str], set[str]]:
    """Args as shown, and the values hidden: what follows a flag whose name may hold a credential
    (``--token``, ``--api-key=…``, ``--pat``, ``--password``), a header after ``--header`` whose
    name is not a plain one (``X-Api: …``) or whose name says secret (``Authorization: …``), an
    argument that looks like a token whatever precedes it (``-k <token>``, a bare token), a
    ``name=value`` pair with a secret-looking name inside an argument (a connection string's
    ``Password=…;``), and a URL's password or secret parameters (``postgresql://ann:pw@127.0.0.1/shop``,
    as database servers take their DSN)."""
    shown: list[str] = []
    found: set[str] = set()
    hide_next = header_next = False
    for arg in args:
        if hide_next or header_next:
            hidden = _header_arg(arg, found) if header_next else None
            if hidden is None and hide_next:
                found.add(arg)
                hidden = REDACTED
            hide_next = header_next = False
            if hidden is not None:
                shown.append(hidden)
                continue
        flag, eq, value = arg.partition("=")
        if arg.startswith("-") and flag in _HEADER_FLAGS:
            hidden = _header_arg(value, found) if eq else None
            shown.append(f"{flag}={hidden}" if hidden is not None else arg)
            header_next = not eq
            continue
        if arg.startswith("-") and looks_secret_name(flag.lstrip("-")):
            if eq:
                shown.append(f"{flag}={REDACTED}")
                found.add(value)
            else:
                shown.append(arg)
                hide_next = True
            continue
        header, colon, hvalue = arg.partition(":")
        if colon and re.fullmatch(r"[A-Za-z0-9_-]+", header) and is_secret_key(header) and hvalue.strip():
            shown.append(f"{header}: {REDACTED}")
            found.update(credential(hvalue.strip()))
            continue
        if looks_like_token(arg) or (arg.startswith("-") and eq and looks_like_token(value)):
            found.add(value if arg.startswith("-") and eq else arg)
            shown.append(f"{flag}={REDACTED}" if arg.startswith("-") and eq else REDACTED)
            continue
        urls = _URL_IN_ARG.findall(arg)  # a database's connection string: postgresql://ann:pw@host/db
        for url in urls:
            found.update(url_secrets(url))
        text = _URL_IN_ARG.sub(lambda m: redact_url(m.group(0)), arg) if urls else arg
        shown.append(_PAIR_IN_ARG.sub(lambda m: _hide_pair(m, found), text))
    return shown, found


def _header_arg(arg: str, found: set[str]) -> str | None:
    """A ``Name: value`` header given as an argument, shown with its value hidden unless the header
    is a plain one (:func:`~mcpnb.client.redact.is_plain_header`: a server reads its key from
    ``X-Api`` as readily as from ``Authorization``); None when ``arg`` is no header."""
    name, colon, value = arg.partition(":")
    if not colon or not value.strip() or not re.fullmatch(r"\s*[A-Za-z0-9_-]+\s*", name):
        return None
    if is_plain_header(name):
        return arg
    found |= credential(value.strip())
    return f"{name.strip()}: {REDACTED}"


def _hide_pair(match: re.Match[str], found: set[str]) -> str:
    """A ``name=value`` inside an argument, its value hidden if the name may hold a credential."""
    name, value = match.group("name"), match.group("value")
    if value == REDACTED or not looks_secret_name(name):
        return match.group(0)
    found.add(value.strip("'\""))
    return f"{name}={REDACTED}"


#: A URL inside an argument, alone or after ``--flag=`` (a server's connection string).
_URL_IN_ARG = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"']+")
#: ``name=value`` inside an argument (``Server=db;Password=…;``, libpq's ``host=x password=…``).
_PAIR_IN_ARG = re.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z][\w.-]*)\s*=\s*(?P<value>'[^']*'|\"[^\"]*\"|[^;&\s]+)"
)
