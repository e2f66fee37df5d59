"""A setting's value as this machine and HTTP take it, once its ``${VAR}``s are read: a program
and folders this machine can have (a Windows path pasted into a Linux kernel, a backslash that a
JSON escape ate), a URL and header values without the line endings a file saved on Windows leaves,
and a variable set to nothing named instead of sent. Each problem is a located :class:`ConfigError`
that says what to write instead."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Mapping
from typing import Any

from mcpnb.client.errors import ConfigError
from mcpnb.client.redact import is_secret_key

#: Builds a located error: ``where(message, key, sub)`` (``resolve``'s ``_Where``).
Where = Callable[..., ConfigError]

#: ``${NAME}`` (or a VS Code file's ``${env:NAME}``) without a default: what an empty variable empties.
_BARE_REFERENCE = re.compile(r"(?<!\$)\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")
#: Any ``${NAME}`` (with a default or not): where a character the written value lacks came from.
_BARE_ANY = re.compile(r"(?<!\$)\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::?-[^}]*)?\}")
#: A Windows path where this machine has none: ``C:\\...``, ``C:/...`` or ``\\\\server\\share``.
_WINDOWS_PATH = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\[^\\]+\\)")
#: What a JSON escape a Windows path fell into turns into (``C:\new`` is ``C:`` + a line break + ``ew``).
_ESCAPED = {"\n": "a line break (\\n)", "\t": "a tab (\\t)", "\r": "a carriage return (\\r)",
            "\b": "a backspace (\\b)", "\f": "a form feed (\\f)"}  # fmt: skip


#: Windows' shells, which a Windows config starts a server through (``cmd /c npx ...``).
_WINDOWS_SHELLS = ("cmd", "cmd.exe", "powershell", "powershell.exe")


def _emptied(written: str, environ: Mapping[str, str]) -> list[str]:
    """The variables ``written`` refers to without a default that are set to nothing (or spaces)."""
    return [
        name
        for name in dict.fromkeys(_BARE_REFERENCE.findall(written))
        if name in environ and not environ[name].strip()
    ]


def _shown(value: str, secrets: set[str]) -> str:
    """``value`` quoted for an error, every secret a variable put in it hidden."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            value = value.replace(secret, "***")
    return repr(value)


def check_command(
    command: str, written: Any, environ: Mapping[str, str], secrets: set[str], where: Where
) -> None:
    """A program to start: not empty (a variable set to nothing: the OS says only "Permission
    denied: ''"), and a path this machine can have (:func:`check_path`)."""
    if not command.strip():
        emptied = _emptied(written if isinstance(written, str) else "", environ)
        said = f": the variable {emptied[0]!r} is set, but to nothing" if emptied else ""
        raise where(f"names no program{said}", "command")
    check_path(command, "command", "", secrets, where, written=written, environ=environ)
    if os.name == "nt" or shutil.which(command) is not None:
        return
    stem, dot, suffix = command.rpartition(".")
    if command.lower() in _WINDOWS_SHELLS:  # "cmd" "/c" "npx" ...: how Windows starts npx
        raise where(
            f"{command!r} is Windows' shell, which this kernel ({sys.platform}) does not have: make "
            "the program it runs (after /c) the command, and the rest its args",
            "command",
        )
    if dot and suffix.lower() in ("cmd", "bat", "exe") and shutil.which(stem):
        raise where(
            f"{command!r} is Windows' name for {stem!r}: write {stem!r} here", "command", suggestion=stem
        )


def check_path(
    path: str,
    key: str,
    sub: str,
    secrets: set[str],
    where: Where,
    *,
    written: Any = None,
    environ: Mapping[str, str] | None = None,
    beside: str | None = None,
) -> None:
    """A path of this machine, not a Windows one pasted here (which would be taken as a file name
    beside the config file), and none a JSON escape ate into: ``"C:\nodejs"`` in JSON is ``C:``, a
    line break and ``odejs``, which no program or folder is named.

    ``written`` is the value as the file wrote it (before its ``${VAR}``s were read): a control
    character it lacks came from a variable, and blaming JSON escapes would send the person to a
    file that is fine. ``beside`` is the path as it will be used (relative to the config file that
    wrote it): a folder ``sub\\dir`` that exists there is a Linux name with a backslash in it."""
    control = next((c for c in path if ord(c) < 32 or c == "\x7f"), None)
    if control is not None:
        what = _ESCAPED.get(control, f"the control character {control!r}")
        if isinstance(written, str) and control not in written:
            names = [
                n for n in dict.fromkeys(_BARE_ANY.findall(written)) if control in (environ or {}).get(n, "")
            ]
            source = f"the variable {names[0]!r}" if names else "a variable it refers to"
            raise where(
                f"{_shown(path, secrets)} holds {what}, which came from {source}: no program or folder "
                "is named with one (set the variable without it)",
                key,
                sub,
            )
        raise where(
            f"{_shown(path, secrets)} holds {what}: in JSON a backslash starts an escape, so a Windows "
            'path needs each backslash written twice ("C:\\\\Program Files\\\\nodejs") or forward '
            "slashes instead",
            key,
            sub,
        )
    if os.name == "nt":
        return
    if _WINDOWS_PATH.match(path):
        said = f"{_shown(path, secrets)} is a Windows path, and this kernel runs on {sys.platform}"
    elif "\\" in path and not os.path.exists(path if beside is None else beside):
        said = f"{_shown(path, secrets)} separates folders with backslashes, which only Windows does"
    else:
        return
    fix = (
        "name the program as this machine has it (one on PATH by its name alone, as npx or uvx)"
        if key == "command"
        else "write the folder as this machine names it, with / between its parts"
    )
    raise where(f"{said}: {fix}", key, sub)


def url_value(url: str, written: Any, environ: Mapping[str, str], where: Where) -> str:
    """The URL without the spaces and control characters around it, as a browser reads one (the
    WHATWG URL standard strips them): ``${DOCS_URL}`` set from a file saved on Windows ends in
    ``\\r``, and httpx refused it at the first request. Empty because a variable is: said by name."""
    stripped = url.strip("".join(map(chr, range(33))))
    if not stripped:
        emptied = _emptied(written if isinstance(written, str) else "", environ)
        said = f"the variable {emptied[0]!r} is set, but to nothing" if emptied else "it is empty"
        raise where(f"expected an http:// or https:// URL, and {said}", "url")
    if any(ord(c) < 32 or c == "\x7f" for c in stripped):
        raise where("holds a line break or another control character, which no URL can", "url")
    return stripped


def header_value(header: str, written: Any, value: str, environ: Mapping[str, str], where: Where) -> str:
    """An HTTP header's value: without the spaces and line endings around it, which HTTP does not
    count as part of it (a token read from a file saved on Windows ends in ``\\r``, and the request
    failed with "Illegal header value"); never a line break inside. A variable set to nothing is
    refused by name only in a header that carries a credential (``Bearer ${TOKEN}`` would send
    ``Bearer``, and the server's 401 would hide why); any other header (``X-Trace: ${TRACE_ID}``,
    ``User-Agent: mcpnb ${SUFFIX}``) is sent as it comes out, as it always was."""
    emptied = _emptied(written if isinstance(written, str) else "", environ) if is_secret_key(header) else []
    if emptied:
        raise where(
            f"the variable {emptied[0]!r} is set, but to nothing: the header would go without it "
            "(set it, or leave the header out)",
            "headers",
            f".{header}",
        )
    stripped = value.strip(" \t\r\n")
    if any((ord(c) < 32 and c != "\t") or c == "\x7f" for c in stripped):
        from_vars = [n for n in _BARE_REFERENCE.findall(str(written)) if n in environ]
        said = f" (from the variable {from_vars[0]!r})" if from_vars else ""
        raise where(
            f"holds a line break or another control character{said}, which no HTTP header can carry",
            "headers",
            f".{header}",
        )
    return stripped
