"""``${VAR}`` and ``${VAR:-default}`` in string settings; ``$${`` is a literal ``${``.

A default applies when the variable is unset *or empty*; a missing variable without a default is an
error that names it (and the closest variable that is set). Every value substituted is collected,
so the pool can scrub it from text it did not write and no view shows it (a token passed as
``--pat ${GITLAB_TOKEN_2}`` or ``?t=${T}`` is as secret as one in ``GH_TOKEN``): mcpnb knows what it
put there. Only values that plainly cannot be secrets (:func:`~mcpnb.client.redact.is_plain_value`:
``${HOME}``, ``${PORT}``, ``${REGION}``) are left out, as they are for env values, and so is a
default written in the file (``${API_BASE_URL:-http://127.0.0.1:8080}``: anyone reading the file
reads it) unless the variable's name says secret (``${API_TOKEN:-dev-token}``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import ConfigError, did_you_mean
from mcpnb.client.redact import is_plain_value, looks_secret_name

if TYPE_CHECKING:
    from mcpnb.client.config.vscode import Variables

_VAR_RE = re.compile(r"\$\$\{|\$\{([^}]*)\}|\$\{")
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def expand(
    text: str,
    environ: Mapping[str, str],
    fail: Callable[..., ConfigError],
    found: set[str],
    variables: Variables | None = None,
) -> str:
    """``text`` with every reference replaced. ``fail(message, suggestion=None)`` builds the located
    error to raise; every value substituted that may be a secret is added to ``found``.
    ``variables``: a VS Code file's own (``${env:X}``, ``${workspaceFolder}``, ``${input:id}``),
    for a value written in one."""

    def one(m: re.Match[str]) -> str:
        if m.group(0) == "$${":
            return "${"
        body = m.group(1)
        if body is None:
            raise fail("unclosed '${' (write '$${' for a literal '${')")
        if variables is not None and (value := variables.expand(body, environ, fail, found)) is not None:
            return _noted(value, body.rpartition(":")[2], found)
        var, sep, default = body.partition(":-")
        vscode = _vscode_hint(var)
        if not _ENV_NAME_RE.match(var) or "${" in default:
            raise fail(
                vscode or f"malformed variable reference '${{{var}…}}': use ${{VAR}} or ${{VAR:-default}}"
            )
        value = environ.get(var)
        if value is None or (sep and value == ""):
            if sep:  # written in the file for all to read: a secret only under a secret's name
                return _noted(default, var, found) if looks_secret_name(var) else default
            raise fail(
                vscode
                or f"environment variable {var!r} is not set (give a default with ${{{var}:-default}})",
                suggestion=None if vscode else did_you_mean(var, environ),
            )
        return _noted(value, var, found)

    return _VAR_RE.sub(one, text)


def _noted(value: str, name: str, found: set[str]) -> str:
    """``value``, substituted for the variable ``name``: added to ``found`` unless it plainly
    cannot be a secret."""
    if value and not is_plain_value(value, name):
        found.add(value)
    return value


def _vscode_hint(var: str) -> str:
    """What a VS Code variable is and what to write instead, for a config copied from
    ``.vscode/mcp.json`` into a file of another format (empty for any other reference): said first,
    since "malformed" or "not set" would send the person looking in the wrong place."""
    kind, _, name = var.partition(":")
    if kind == "env" and _ENV_NAME_RE.match(name):
        return f"VS Code's ${{env:{name}}} is ${{{name}}} here"
    if kind == "input":
        return (
            f"${{input:{name}}} is a VS Code prompt, which these files do not have (nothing would ask "
            "for it, and a server must not get the text as written): put the value in an environment "
            "variable and write ${VAR} here; or keep the servers in VS Code's format ('servers' and "
            "'inputs', in .vscode/mcp.json or any file but .mcp.json) and connect with --config PATH "
            f"--input {name}=VALUE"
        )
    if var in ("workspaceFolder", "workspaceRoot", "userHome", "cwd"):
        return f"VS Code's ${{{var}}} is not expanded here: write the path itself"
    return ""


def escape(text: str) -> str:
    """The inverse of :func:`expand` for a text without references: ``expand(escape(t)) == t``."""
    return text.replace("${", "$${")


def literal(value: Any) -> Any:
    """``value`` with every ``${`` in its strings kept as written: a value from a client that expands
    no variables (Codex, Cline), which mcpnb would otherwise expand."""
    return _strings(value, escape)


def respell(value: Any, reference: re.Pattern[str], spell: Callable[[re.Match[str]], str]) -> Any:
    """``value`` with another client's variable references in mcpnb's spelling: each match of
    ``reference`` in its strings becomes what ``spell`` says (``${NAME}`` for mcpnb to expand, or
    :func:`escape` of the text to keep it), and the text around them is kept as written."""

    def one(text: str) -> str:
        parts, end = [], 0
        for m in reference.finditer(text):
            parts += [escape(text[end : m.start()]), spell(m)]
            end = m.end()
        return "".join(parts) + escape(text[end:])

    return _strings(value, one)


def _strings(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every string in it, through lists and objects."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_strings(v, change) for v in value]
    if isinstance(value, dict):
        return {k: _strings(v, change) for k, v in value.items()}
    return value
