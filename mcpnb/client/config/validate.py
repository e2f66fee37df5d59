"""The shape of one ``mcpServers`` entry: its name, and the shipped JSON Schema (unknown keys, types,
ranges), with jsonschema's findings turned into one located, "did you mean" message.

``jsonschema`` is imported on first validation, not with the package: ``%load_ext mcpnb`` stays fast.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mcpnb.client.config.args import arg_secrets
from mcpnb.client.config.auth import AuthConfig
from mcpnb.client.config.keys import MILLISECOND_KEYS, canonical
from mcpnb.client.config.tls import TlsConfig
from mcpnb.client.errors import ConfigError, did_you_mean
from mcpnb.client.redact import redact_url

#: What a structure too deep for Python's recursion (a 5000-deep .mcp.json) is told.
NESTED_TOO_DEEP = "nested too deeply: settings are a few levels of objects and lists, not thousands"

#: One day. Anything longer is a typo (milliseconds for seconds), not a wish (the schema's maximum).
MAX_SECONDS = 86400

# No "__" (flat tool names mcp__{server}__{tool} split on the first "__"), no trailing "_" (same
# reason: "a_" + "__" + "t" reads back as server "a", tool "_t"), no "." (the magics use NAME.TOOL).
_NAME_RE = re.compile(r"^[A-Za-z0-9](?:_?[A-Za-z0-9-])*$")
# Unknown keys that other clients use, with what to write instead.
_HINTS = {
    "disabled": ("mcpnb spells this '\"enabled\": false'", "enabled"),
    # Gemini CLI's is milliseconds and Cline's seconds: a plain rename would take 30000 as 8 hours
    "timeout": (
        "mcpnb's is 'tool_timeout', in seconds (Gemini CLI's 'timeout' counts milliseconds)",
        "tool_timeout",
    ),
}
#: Keys of other MCP clients' server entries (Docker Compose, VS Code, Windsurf, Gemini CLI, Cline)
#: that people copy from their docs, with mcpnb's name for each; a near miss ("enviroment") too.
_RENAMED = {
    "environment": "env",
    "serverUrl": "url",
    "httpUrl": "url",
    "includeTools": "enabled_tools",
    "excludeTools": "disabled_tools",
    "transportType": "type",
}
_NO_APPROVAL = (
    "mcpnb has no approval list: your calls run when you run their cell, and a model's calls ask "
    "you where the toolbox says so (pool.functions(approve='destructive'))"
)
#: ...and those mcpnb has no use for, with why.
_UNUSED = {
    "envFile": (
        "an env file is read in VS Code's and Cursor's files (.vscode/mcp.json, .cursor/mcp.json), not "
        "this one: list the variables in 'env' (\"${VAR}\" takes one from yours)"
    ),
    "headersHelper": (
        "mcpnb runs no headers helper (Claude Code's command that prints headers): put the header in "
        '\'headers\' with a variable, "Authorization": "Bearer ${TOKEN}", and set TOKEN to what the '
        "helper prints before connecting"
    ),
    "autoApprove": _NO_APPROVAL,
    "alwaysAllow": _NO_APPROVAL,
    "trust": _NO_APPROVAL,
}
_EXPECTED = {
    "string": "a string",
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
# Of several findings, report an unknown key first, then a missing one, then a wrong type or choice.
_RANK = {"additionalProperties": 0, "required": 1, "type": 2, "enum": 3}


def schema() -> dict[str, Any]:
    """The JSON Schema the package ships (also usable by editors for ``.mcp.json``)."""
    return json.loads(_schema_text())


@dataclass(frozen=True)
class Refused:
    """An entry of another client's file (Codex's, Gemini CLI's, Cline's, …) that cannot be read: why, and the
    keys that say how it is reached (``url`` and ``type``, or ``command``), for its status row."""

    error: ConfigError
    reach: Mapping[str, Any]


def each_entry(
    servers: Mapping[str, Any],
    convert: Callable[[str, dict[str, Any]], dict[str, Any]],
    reach: Callable[[dict[str, Any]], Mapping[str, Any]],
) -> dict[str, Any]:
    """Another client's server entries in mcpnb's format, each by ``convert``: one that is no object
    is left for the schema to say what is wrong with it, one ``convert`` refuses is :class:`Refused`
    (how ``reach`` says it is reached), that server's alone."""
    entries: dict[str, Any] = {}
    for name, entry in servers.items():
        try:
            entries[name] = convert(name, entry) if isinstance(entry, dict) else entry
        except ConfigError as exc:
            entries[name] = Refused(exc, reach(entry))
    return entries


def parse(name: Any, data: Any, source: str | None) -> tuple[dict[str, Any], dict[str, str]]:
    """Check one entry's name and shape; its settings under field names, and how each was spelled.
    ``data`` may be another client's entry that could not be read (:class:`Refused`): its error is
    raised here, where every entry is checked, so it is that server's alone."""
    if isinstance(data, Refused):
        raise data.error
    check_name(name, source)
    return canonical(name, entry(name, data, source), source)


def check_name(name: Any, source: str | None) -> None:
    if isinstance(name, str) and _NAME_RE.match(name):
        return
    if not isinstance(name, str):
        raise ConfigError(f"a server name must be a string, got {kind(name)}", file=source)
    fixed = re.sub(r"[^A-Za-z0-9_-]+", "-", ascii_spelling(name))
    fixed = re.sub(r"_{2,}", "_", fixed).lstrip("_-").rstrip("_")
    why = (
        "names may not contain '__' (flat tool names mcp__SERVER__TOOL split on it)"
        if "__" in name
        else "names may not contain '.' (the magics use NAME.TOOL)"
        if "." in name
        else "names may not end with '_' (flat tool names mcp__SERVER__TOOL split on '__')"
        if name.endswith("_")
        else "use ASCII letters (A-Z, a-z), digits, '-' and '_', starting with a letter or digit"
        + ("" if name.isascii() else f" ({next(c for c in name if not c.isascii())!r} is not ASCII)")
    )
    raise ConfigError(
        f"invalid server name {name!r}: {why}",
        file=source,
        server=name if name else None,
        suggestion=fixed if fixed and _NAME_RE.match(fixed) else None,
    )


#: Letters NFKD leaves whole, as they are written in ASCII (German, Danish, Polish, Icelandic, French).
_SPELLED = str.maketrans(
    {"ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L"}
    | {"đ": "d", "Đ": "D", "þ": "th", "Þ": "Th"}
)


def ascii_spelling(name: str) -> str:
    """``name`` with its accented Latin letters written plain (``müller`` → ``muller``, ``größe`` →
    ``grosse``): the suggestion for a name that must be ASCII. Other scripts are left as they are
    (日本 has no one spelling in ASCII; the caller replaces what is left)."""
    import unicodedata

    if name.isascii():
        return name
    decomposed = unicodedata.normalize("NFKD", name.translate(_SPELLED))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def entry(name: str, data: Any, source: str | None) -> dict[str, Any]:
    """``data`` as plain JSON, checked against the schema's ``server`` definition."""
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"expected an object with the server's settings, got {kind(data)}", file=source, server=name
        )
    try:
        plain = _env_numbers_as_text(_jsonable(data))
        errors = [] if _quick_check(plain) else list(_server_validator().iter_errors(plain))
    except RecursionError:
        raise ConfigError(NESTED_TOO_DEEP, file=source, server=name) from None
    if errors:
        order = list(plain)

        def rank(e: Any) -> tuple[int, int, int]:
            top = e.absolute_path[0] if e.absolute_path else None
            return (_RANK.get(e.validator, 9), order.index(top) if top in order else -1, len(e.absolute_path))

        raise _translate(min(errors, key=rank), name, source)
    return plain


def _env_numbers_as_text(plain: dict[str, Any]) -> dict[str, Any]:
    """An ``env`` value written as a number is the text a process will see: ``PORT: 8080`` in a
    YAML cell, ``"PORT": 8080`` in VS Code's mcp.json (whose schema allows numbers there). YAML's own
    numbers keep the text as written (``1.10``, ``0755``: see requirements.reading). true/false stays
    an error: YAML reads ``no`` as false, and only the person knows which word was meant."""
    env = plain.get("env")
    if not isinstance(env, dict) or not any(_is_number(v) for v in env.values()):
        return plain
    return {**plain, "env": {k: _number_text(v) if _is_number(v) else v for k, v in env.items()}}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _number_text(value: float) -> str:
    written = getattr(value, "written", None)  # a YAML number's own text
    if isinstance(written, str):
        return written
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))  # 8080.0 is "8080", as JavaScript (VS Code) writes it
    return repr(value)


def read_text(path: Path) -> str:
    """A config file's text: UTF-8 (a byte order mark, as Notepad writes, is not part of it), or
    UTF-16 with its byte order mark (Windows PowerShell's ``>``, Notepad's "Unicode"), or UTF-32 with
    its (PowerShell's ``-Encoding utf32``), which are unambiguous (UTF-32's mark starts like
    UTF-16's, and read as UTF-16 gave a JSON error at column 1). Anything else is a
    :class:`ConfigError` that says which encoding it looks like and how to save it, instead of a
    JSON error at column 2."""
    import codecs

    file = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", file=file) from None
    fix = "save it as UTF-8 (in Notepad: Save As, Encoding UTF-8; in PowerShell: Set-Content -Encoding utf8)"
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # before UTF-16: FF FE starts both
        try:
            return raw.decode("utf-32")
        except UnicodeDecodeError:
            raise ConfigError(f"not UTF-8 text: it starts as UTF-32 but is not; {fix}", file=file) from None
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        with contextlib.suppress(UnicodeDecodeError):
            return raw.decode("utf-16")
    elif b"\x00\x00\x00" in raw[:4]:  # ASCII in UTF-32 is three 0 bytes in every four
        raise ConfigError(f"not UTF-8 text: it looks like UTF-32 without a byte order mark; {fix}", file=file)
    elif b"\x00" in raw[:2]:  # ASCII in UTF-16 is every other byte 0, which UTF-8 text never has
        raise ConfigError(f"not UTF-8 text: it looks like UTF-16 without a byte order mark; {fix}", file=file)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"not UTF-8 text (line {line}, byte 0x{raw[exc.start]:02X}): it looks like another encoding "
            f"(a Windows code page, as Notepad's ANSI); {fix}",
            file=file,
        ) from None


def kind(value: Any) -> str:
    """What a value is, in the words of an error message ("a list", "true/false")."""
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


def _jsonable(value: Any) -> Any:
    """Code callers pass tuples, Paths, AuthConfig objects: give the schema plain JSON shapes."""
    if isinstance(value, (AuthConfig, TlsConfig)):
        return value._settings()
    if isinstance(value, Mapping):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


@cache
def _schema_text() -> str:
    from importlib.resources import files

    return files(__package__ or "mcpnb.client.config").joinpath("schema.json").read_text(encoding="utf-8")


def _server_schema() -> dict[str, Any]:
    root = json.loads(_schema_text())
    return {"$schema": root["$schema"], "$defs": root["$defs"], "$ref": "#/$defs/server"}


def milliseconds(value: Any, fail: Callable[[str, str], ConfigError], key: str) -> float:
    """Another client's time in milliseconds (Gemini CLI's ``timeout``, Codex's ``…_ms``), in seconds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise fail(f"expected a positive number of milliseconds, got {kind(value)}", key)
    return value / 1000


def boolean(value: Any, fail: Callable[[str, str], ConfigError], key: str) -> bool:
    """Another client's true or false (Cline's and Roo Code's ``disabled``)."""
    if not isinstance(value, bool):
        raise fail(f"expected true or false, got {kind(value)}", key)
    return value


def seconds(
    value: Any, fail: Callable[[str, str], ConfigError], key: str, *, most: float | None = None
) -> float:
    """Another client's time in seconds, at least one (Cline's and Roo Code's ``timeout``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= (most or value):
        within = f"from 1 to {most:g}" if most else "at least 1"
        raise fail(f"expected a number of seconds, {within}, got {kind(value)}", key)
    return value


def strings(value: Any, fail: Callable[[str, str], ConfigError], key: str, what: str) -> list[str]:
    """Another client's list of strings (tool names, scopes), or ``fail``'s error saying ``what``."""
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise fail(f"expected a list of {what}, got {kind(value)}", key)
    return value


@cache
def server_keys() -> frozenset[str]:
    """Every key a server entry may have, in every accepted spelling (the schema's)."""
    return frozenset(json.loads(_schema_text())["$defs"]["server"]["properties"])


def misspelt(key: str, keys: frozenset[str]) -> str | None:
    """The key of another client's format (``keys``) that ``key`` is a near miss of; None for a key
    of theirs or of mcpnb's (an entry may use either), or one near none."""
    return None if key in keys or key in server_keys() else did_you_mean(key, keys)


@cache
def _server_schema_key() -> str:
    from mcpnb.client.schemacheck import schema_key

    return schema_key(_server_schema())


def _quick_check(plain: Any) -> bool:
    """True when the entry is valid, by a compiled check (``jsonschema-rs``, microseconds).

    The first connect of a session would otherwise import ``jsonschema``, which takes seconds where
    ``rfc3987-syntax`` is installed (JupyterLab brings it); it is needed only to word an error.
    """
    from mcpnb.client.schemacheck import compiled

    try:
        return bool(compiled(_server_schema_key(), formats=False).is_valid(plain))
    except Exception:  # cannot tell: jsonschema decides
        return False


@cache
def _server_validator() -> Any:
    import jsonschema

    sub = _server_schema()
    return jsonschema.validators.validator_for(sub)(sub)


def _path_key(path: Any) -> str | None:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or None


def _as_list(text: str, path: list[Any]) -> str | None:
    """The list a string meant, as JSON: ``"-m mod"`` as arguments, ``"a, b"`` as names."""
    import shlex

    try:
        words = shlex.split(text) if path[-1] == "args" else re.split(r"[,\s]+", text.strip())
    except ValueError:  # unbalanced quotes: no guess
        return None
    return json.dumps([w for w in words if w]) if words else None


def _quotable(value: Any, path: list[Any]) -> Any:
    """``value`` as an error may quote it: an argument's credentials hidden as the config's views
    hide them (``--token=…``, ``--api-key X``, a token-like word, a DSN's password), a URL's too."""
    if not isinstance(value, str) or not path:
        return value
    if path[0] == "args":
        import shlex

        try:
            words = shlex.split(value)
        except ValueError:  # unbalanced quotes: judged as one word
            words = [value]
        shown, hidden = arg_secrets(words)
        return " ".join(repr(w) if any(c.isspace() for c in w) else w for w in shown) if hidden else value
    return redact_url(value) if path[0] == "url" else value


def _translate(e: Any, name: str, source: str | None) -> ConfigError:
    path = list(e.absolute_path)
    key = _path_key(path)
    secret_place = bool(path) and path[0] in ("env", "headers", "auth", "tls")
    quoted = None if secret_place or isinstance(e.instance, (dict, list)) else _quotable(e.instance, path)
    shown = "" if quoted is None else f" ({quoted!r})"
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
        if path and path[0] == "tls" and extra in ("password", "passphrase", "key_password", "keyPassword"):
            return err(
                "unknown key: a key's passphrase is never written in the config; put it in an environment "
                "variable and name the variable in tls.password_env",
                at,
                "password_env",
            )
        near = did_you_mean(extra, [*allowed, *_RENAMED, *_UNUSED] if not key else allowed)
        if near in _UNUSED:
            return err(f"unknown key: {_UNUSED[near]}", at)
        return err("unknown key", at, _RENAMED.get(near, near))
    if e.validator == "type":
        expected = e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
        wanted = " or ".join(_EXPECTED.get(t, t) for t in expected)
        if not path:
            return err(f"expected an object with the server's settings, got {kind(e.instance)}")
        if "array" in expected and isinstance(quoted, str):
            return err(f"expected {wanted}, got a string{shown}", suggestion=_as_list(quoted, path))
        if isinstance(e.instance, bool) and path[0] == "env":
            return err(
                f'expected {wanted}, got true/false: quote it ("true"); YAML reads unquoted yes, no, on '
                "and off as true/false too"
            )
        return err(f"expected {wanted}, got {kind(e.instance)}{shown}")
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
        unit = (
            ""
            if path and path[-1] in ("max_retries", "maxRetries")
            else " ms"
            if path and path[-1] in MILLISECOND_KEYS
            else " s"
        )
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
