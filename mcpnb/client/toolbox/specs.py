"""Tool specs in each provider's shape: OpenAI Chat Completions and Responses, Anthropic, Gemini.

``Entry`` is how one tool appears to one provider (its legal name, its renamed property keys and the
way back); ``build_specs`` turns entries into the dicts each SDK takes as ``tools=``. No provider SDK
is imported: the shapes are plain dicts, checked in the tests against each SDK's own types.

- ``openai``: ``{"type": "function", "function": {"name", "description", "parameters", "strict"?}}``
- ``openai-responses``: ``{"type": "function", "name", "description", "parameters", "strict"}``
  (``strict`` is a required field there)
- ``anthropic``: ``{"name", "description", "input_schema"}``
- ``gemini``: a function declaration ``{"name", "description", "parameters"?}`` (wrap a list of them
  as ``{"function_declarations": specs}``); ``parameters`` in Gemini's ``Schema`` dialect, or
  ``parametersJsonSchema`` (JSON Schema) in its place for a tool that dialect cannot describe.

A tool without a description (or title) has no ``description`` key in any of them (:func:`_described`).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field, replace
from typing import Any

from mcpnb.client.toolbox.functions import ToolFunction
from mcpnb.client.toolbox.gemini import declaration_parameters
from mcpnb.client.toolbox.names import PROPERTY_KEYS, TOOL_NAMES, assign
from mcpnb.client.toolbox.schema import Schema, normal_form
from mcpnb.client.toolbox.strict import NotStrict, make_strict

FORMATS = ("openai", "openai-responses", "anthropic", "gemini")
OPENAI_FORMATS = ("openai", "openai-responses")


class StrictModeWarning(UserWarning):
    """A tool asked to be strict cannot be: its spec goes out with ``strict: false`` instead."""


class SpecLimitWarning(UserWarning):
    """Specs past a limit the API documents: a description shortened to fit, or more tools than one
    request takes (the API refuses the whole request, every tool with it); or specs so big (an
    estimate of their tokens, :data:`MAX_SPEC_TOKENS`) that every request is mostly tool specs."""


#: The longest tool description each format takes. OpenAI Chat Completions refuses the whole
#: request for a longer one ("Invalid 'tools[N].function.description': string too long. Expected a
#: string with maximum length 1024"); the other APIs document no such limit.
MAX_DESCRIPTION: dict[str, int] = {"openai": 1024}
#: The most tools one request takes, where the API documents it:
#: - OpenAI (Chat Completions and Responses): "A max of 128 functions are supported" (API
#:   reference, the request's ``tools``).
#: - Gemini: "Maximum 128 function declarations can be provided" (Vertex AI API reference,
#:   ``Tool.functionDeclarations``; editions before it said 64).
#: - Anthropic documents none (only its 32 MB request size), so none is applied.
MAX_TOOLS: dict[str, int] = {"openai": 128, "openai-responses": 128, "gemini": 128}
#: Estimated tokens of a request's tool specs past which they are warned about, in every format:
#: each request carries them all (1006 tools made 5.8 MB of Anthropic specs, about 1.45M tokens,
#: past every model's context), and no API documents a limit that would say so first.
MAX_SPEC_TOKENS = 100_000
#: Characters of JSON per token in :func:`estimated_tokens` (the usual rule of thumb for English
#: and JSON; a tokenizer of each provider would say exactly, and none is imported here).
CHARS_PER_TOKEN = 4
#: Rows a toolbox or its specs draw as text (the notebook's ``%config Mcp.listing_limit`` sets the
#: number its display draws); every tool stays in the toolbox and the specs.
SHOWN_ROWS = 200
_API_NAMES = {
    "openai": "OpenAI Chat Completions",
    "openai-responses": "OpenAI Responses",
    "anthropic": "Anthropic",
    "gemini": "Gemini",
}


def shortened(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: whole sentences when they fill at least half of
    it, else whole words, then an ellipsis (the model reads where it stops)."""
    if len(text) <= limit:
        return text
    head = text[: limit - 2]  # room for " …"
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s)", head)]
    if ends and ends[-1] >= limit // 2:
        return head[: ends[-1]] + " …"
    space = head.rfind(" ")
    cut = head[:space] if space >= limit // 2 else head
    return cut.rstrip(" ,;:") + "…"


#: What people call a format by its model or company rather than its API (a hint, never taken as-is:
#: "openai" could be either of two APIs, and a spec for the wrong one is refused by the provider).
_KNOWN_AS = {
    "claude": "anthropic",
    "google": "gemini",
    "vertex": "gemini",
    "gpt": "openai",
    "chatgpt": "openai",
    "chat": "openai",
    "responses": "openai-responses",
}


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        from mcpnb.client.errors import did_you_mean_text

        known = _KNOWN_AS.get(str(fmt).lower().replace("_", "-"))
        hint = f"; did you mean {known!r}?" if known else did_you_mean_text(fmt, FORMATS)
        raise ValueError(f"unknown format {fmt!r}{hint} (one of {', '.join(FORMATS)})")
    return fmt


@dataclass(frozen=True)
class Entry:
    """How one tool appears to one provider, and the way back from what the model sends."""

    function: ToolFunction
    name: str  # the name the provider sees (and the model calls)
    schema: Schema  # the normal form, with provider property keys
    original: Schema  # the normal form, with the server's property keys
    keys: dict[str, str] = field(default_factory=dict)  # provider key -> server key (renamed ones only)

    def server_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The model's arguments under the keys the server expects."""
        return {self.keys.get(k, k): v for k, v in arguments.items()}


def entries(functions: list[ToolFunction], fmt: str) -> dict[str, Entry]:
    """Provider name → entry for every function; a ``NameCollisionError`` when two would share a name."""
    check_format(fmt)
    names = assign([f.flat_name for f in functions], TOOL_NAMES[fmt], what=f"{fmt} tool names")
    key_rule = PROPERTY_KEYS.get(fmt)
    found: dict[str, Entry] = {}
    for function in functions:
        original, _ = normal_form(function.tool.input_schema)
        schema, keys = original, {}
        if key_rule is not None:
            renamed = assign(
                list(original["properties"]),
                key_rule,
                what=f"{function.flat_name}: {fmt} property keys",
            )
            if any(k != v for k, v in renamed.items()):  # again, so the words name the new keys too
                schema, _ = normal_form(function.tool.input_schema, keys=renamed)
                keys = {new: old for old, new in renamed.items() if new != old}
        name = names[function.flat_name]
        found[name] = Entry(function, name, schema, original, keys)
    return found


@dataclass(frozen=True)
class Spec:
    """One produced spec and what the table shows about it."""

    entry: Entry
    body: dict[str, Any]
    strict: bool | None  # None: the format has no strict mode
    blocker: NotStrict | None = None  # why it could not be strict, when strict was asked for
    cut_from: int | None = None  # the description's own length, when it was shortened to fit


def build_spec(entry: Entry, fmt: str, strict: bool | None) -> Spec:
    spec = _build_spec(entry, fmt, strict)
    limit = MAX_DESCRIPTION.get(fmt)
    full = entry.function.tool.description or entry.function.tool.title or ""
    if limit is None or len(full) <= limit or not full.strip():
        return spec
    body = dict(spec.body)
    if fmt == "openai":
        body["function"] = {**body["function"], "description": shortened(full, limit)}
    else:
        body["description"] = shortened(full, limit)
    return replace(spec, body=body, cut_from=len(full))


def _build_spec(entry: Entry, fmt: str, strict: bool | None) -> Spec:
    tool = entry.function.tool
    said = _described(tool.description or tool.title or "")
    if fmt in OPENAI_FORMATS:
        parameters, is_strict, blocker = entry.schema, False, None
        if strict:
            converted, blocker = make_strict(entry.schema)
            if blocker is None:
                parameters, is_strict = converted, True
        function = {"name": entry.name, **said, "parameters": parameters}
        if fmt == "openai":
            if strict is not None:
                function["strict"] = is_strict
            return Spec(entry, {"type": "function", "function": function}, is_strict, blocker)
        return Spec(entry, {"type": "function", **function, "strict": is_strict}, is_strict, blocker)
    if strict:
        raise ValueError(
            f"strict=True makes OpenAI's strict schemas ({', '.join(OPENAI_FORMATS)}); mcpnb does not make "
            f"{fmt!r} strict specs yet (Anthropic's strict tool use takes another JSON Schema subset "
            "and limits): leave strict out"
        )
    if fmt == "anthropic":
        body = {"name": entry.name, **said, "input_schema": entry.schema}
        return Spec(entry, body, None)
    body = {"name": entry.name, **said, **declaration_parameters(entry.schema)}
    return Spec(entry, body, None)


def _described(description: str) -> dict[str, str]:
    """The spec's ``description`` key, or none for a tool without one. Every API marks the field
    optional (OpenAI's ``FunctionDefinition`` and Responses ``FunctionToolParam``, Anthropic's
    ``ToolParam``, Gemini's ``FunctionDeclaration``: "Optional"), an empty one tells the model
    nothing, and validators on the way to a model can refuse ``""`` where they take no key (Amazon
    Bedrock's Converse ``ToolSpecification.description``: "Minimum length of 1. Required: No")."""
    return {"description": description} if description.strip() else {}


class ToolSpecs(list[dict[str, Any]]):
    """The specs for one provider, ready to pass as ``tools=``: a plain list of dicts that shows as a
    table (name, server, tool, parameters, strict?) and keeps what each row came from."""

    def __init__(self, fmt: str, specs: list[Spec]) -> None:
        super().__init__(s.body for s in specs)
        self.format = fmt
        self.details = specs
        #: about how many tokens of a request these specs take (:func:`estimated_tokens`)
        self.tokens = estimated_tokens(self)

    def spec(self, name: str) -> dict[str, Any]:
        """The spec of one tool, by flat name (``mcp__time__convert_time``) or by the name this API sees."""
        for detail in self.details:
            if name in (detail.entry.name, detail.entry.function.flat_name):
                return detail.body
        raise KeyError(f"no tool {name!r} in these {self.format} specs")

    @property
    def columns(self) -> list[str]:
        """The table's columns: ``strict?`` only for OpenAI's formats (the only strict specs mcpnb makes)."""
        from mcpnb.client.toolbox.table import COLUMNS

        return COLUMNS if self.format in OPENAI_FORMATS else COLUMNS[:-1]

    def rows(self, limit: int | None = None) -> list[list[str]]:
        """One row per spec (the first ``limit`` only, when given: what a display draws)."""
        rows = []
        for spec in self.details[:limit]:
            tool = spec.entry.function.tool
            params = spec.entry.schema["properties"]
            required = set(spec.entry.schema.get("required") or [])
            parameters = ", ".join(k + ("*" if k in required else "") for k in params)
            row = [spec.entry.name, tool.server, tool.name, parameters]
            if self.format in OPENAI_FORMATS:
                strict = {None: "—", True: "yes", False: "no"}[spec.strict]
                row.append(f"no: {spec.blocker.short}" if spec.blocker else strict)
            rows.append(row)
        return rows

    def problems(self) -> list[str]:
        """What in these specs breaks a limit the API documents, one line each (also warned as a
        :class:`SpecLimitWarning` when they were made): too many tools, descriptions shortened."""
        lines = []
        api, limit = _API_NAMES[self.format], MAX_TOOLS.get(self.format)
        if limit is not None and len(self) > limit:
            lines.append(
                f"{len(self)} tools: {api} takes at most {limit} in one request and refuses the whole "
                f"request past it; narrow the toolbox: pool.functions('server', ...) with only the "
                f"servers you need, or the servers' enabled_tools / disabled_tools filters"
            )
        if self.tokens > MAX_SPEC_TOKENS:
            lines.append(
                f"about {self.tokens:,} tokens of tool specs ({len(self)} tools; at "
                f"{CHARS_PER_TOKEN} characters of JSON a token), sent with every {api} request: "
                f"past {MAX_SPEC_TOKENS:,} they crowd out the conversation or overflow the context; "
                f"narrow the toolbox: pool.functions('server', ...) with only the servers you need, "
                f"or the servers' enabled_tools / disabled_tools filters"
            )
        for spec in self.details:
            if spec.cut_from is not None:
                lines.append(
                    f"{spec.entry.function.flat_name}: description shortened from {spec.cut_from} "
                    f"to {MAX_DESCRIPTION[self.format]} characters, the most {api} takes"
                )
        return lines

    def __repr__(self) -> str:
        return self.text()

    def head(self) -> str:
        """The line above the table: how many specs, and how many of their problems are below."""
        problems = self.problems()
        head = f"{len(self)} {self.format} tool specs"
        return head + (f" ({len(problems)} past the API's limits: see below)" if problems else "")

    def more(self, limit: int) -> str:
        """``… 806 more specs (…)`` under a table cut at ``limit`` rows; "" when it is whole."""
        hidden = len(self) - limit
        return f"… {hidden} more specs (every one is in this list: specs[{limit}:])" if hidden > 0 else ""

    def text(self, limit: int = SHOWN_ROWS) -> str:
        """The specs as a text table of at most ``limit`` rows, their problems under it."""
        from mcpnb.client.toolbox.table import text_table

        more = self.more(limit)
        tail = "".join(f"\n{line}" for line in ([more] if more else []) + self.problems())
        return self.head() + "\n" + text_table(self.columns, self.rows(limit)) + tail

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)


def estimated_tokens(specs: list[dict[str, Any]]) -> int:
    """About how many tokens ``specs`` take in a request: their JSON's characters over
    :data:`CHARS_PER_TOKEN` (an estimate: it warns of a size, it counts nothing exactly)."""
    import json

    return len(json.dumps(specs, ensure_ascii=False, separators=(",", ":"), default=str)) // CHARS_PER_TOKEN


def build_specs(found: dict[str, Entry], fmt: str, strict: bool | None, *, stacklevel: int = 2) -> ToolSpecs:
    specs = [build_spec(entry, fmt, strict) for entry in found.values()]
    for spec in specs:
        if spec.blocker:
            warnings.warn(
                f"{spec.entry.function.flat_name} cannot be strict for OpenAI: {spec.blocker}; "
                "its spec says strict: false",
                StrictModeWarning,
                stacklevel=stacklevel + 1,
            )
    found_specs = ToolSpecs(fmt, specs)
    problems = found_specs.problems()
    if problems:  # one warning for the list, not one per tool
        said = "\n  ".join(problems)
        warnings.warn(
            f"{fmt} tool specs past the API's limits:\n  {said}", SpecLimitWarning, stacklevel=stacklevel + 1
        )
    return found_specs
