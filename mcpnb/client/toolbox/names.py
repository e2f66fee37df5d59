"""Tool names and property keys as each provider allows them, and the way back.

MCP allows tool names an LLM API refuses (dots, slashes, 128 characters), and a flat name
``mcp__{server}__{tool}`` grows long. Each provider documents its own rule:

- OpenAI (Chat Completions and Responses): function names of ``a-z A-Z 0-9 _ -``, at most 64.
- Anthropic: tool names ``^[a-zA-Z0-9_-]{1,64}$`` (the "Define tools" table of the tool-use guide,
  and the API's own error: "tools.7.custom.name: String should match pattern …"); ``input_schema``
  property keys ``^[a-zA-Z0-9_.-]{1,64}$`` (the API rejects the whole request otherwise).
- Gemini: names start with a letter or ``_`` and hold ``a-z A-Z 0-9 _ . : -``, at most 64 (the
  current SDK says 128; 64 is what every version accepts); parameter names start with a letter or
  ``_`` and hold only ``a-z A-Z 0-9 _``, at most 64.

A name that breaks its provider's rule is rewritten deterministically: the legal characters of the
original as a readable prefix, then ``_`` and 8 hex digits of its SHA-256, so the same tool always
gets the same name and two tools almost never share one. When they do anyway, that is an error that
names both; the toolbox keeps the map back from each rewritten name to the original.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from mcpnb.client.errors import McpnbError

#: How many hex digits of the hash a rewritten name ends with.
HASH_DIGITS = 8


class NameCollisionError(McpnbError, ValueError):
    """Two tools (or two properties of one tool) would reach a provider under the same name."""


@dataclass(frozen=True)
class NameRule:
    """One provider's rule for one kind of name: allowed characters, length, first character."""

    allowed: str  # a regex character-class body, e.g. "A-Za-z0-9_-"
    max_length: int
    first: str | None = None  # a character-class body the first character must match

    def accepts(self, name: str) -> bool:
        if not 1 <= len(name) <= self.max_length:
            return False
        if self.first and not re.match(f"[{self.first}]", name):
            return False
        return re.fullmatch(f"[{self.allowed}]+", name) is not None

    def fit(self, name: str) -> str:
        """``name`` if it is legal, else its legal characters plus ``_`` and a short hash of it."""
        if self.accepts(name):
            return name
        cleaned = re.sub(f"[^{self.allowed}]", "_", name)
        if self.first and not re.match(f"[{self.first}]", cleaned):
            cleaned = "_" + cleaned
        tag = "_" + hashlib.sha256(name.encode()).hexdigest()[:HASH_DIGITS]
        return cleaned[: self.max_length - len(tag)] + tag


_OPENAI = NameRule("A-Za-z0-9_-", 64)

#: Function/tool names, per format.
TOOL_NAMES: dict[str, NameRule] = {
    "openai": _OPENAI,
    "openai-responses": _OPENAI,
    "anthropic": _OPENAI,  # the same rule: a-z A-Z 0-9 _ -, at most 64
    "gemini": NameRule("A-Za-z0-9_.:-", 64, first="A-Za-z_"),
}

#: Top-level property keys of the parameters schema, per format (OpenAI documents no rule).
PROPERTY_KEYS: dict[str, NameRule] = {
    "anthropic": NameRule("A-Za-z0-9_.-", 64),
    "gemini": NameRule("A-Za-z0-9_", 64, first="A-Za-z_"),
}


def assign(names: list[str], rule: NameRule, *, what: str) -> dict[str, str]:
    """Original name → provider name for every name; a :class:`NameCollisionError` names both
    originals when two of them would end up the same."""
    given: dict[str, str] = {}
    owner: dict[str, str] = {}
    for name in names:
        fitted = rule.fit(name)
        if fitted in owner and owner[fitted] != name:
            raise NameCollisionError(
                f"{what}: {owner[fitted]!r} and {name!r} would both be called {fitted!r}; "
                "leave one out (disabled_tools, or fewer servers in the toolbox)"
            )
        owner[fitted] = name
        given[name] = fitted
    return given
