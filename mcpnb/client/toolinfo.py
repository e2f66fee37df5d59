"""What a server offers, as plain data: tool descriptions and the flat ``mcp__server__tool`` names.

Flat names let one namespace hold the tools of every server (agents and the magics both use them);
server names may not contain ``__`` so the split is always unambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property
from typing import Any

FLAT_PREFIX = "mcp__"
FLAT_SEP = "__"

#: A description that says the tool answers in Markdown: the fetch reference server "extracts its
#: contents as markdown", MarkItDown converts "to markdown", others "return Markdown".
_ANSWERS_IN_MARKDOWN = re.compile(r"\b(?:as|to|into|returns?)\s+(?:[\w-]+\s+)?markdown\b", re.IGNORECASE)

#: A tool that says it runs SQL (in its name, title or description): see :attr:`ToolInfo.form_schema`.
_SAYS_SQL = re.compile(r"(?<![a-z])sql(?![a-z])", re.IGNORECASE)


def says_markdown(description: str | None) -> bool:
    """Whether a tool's or a prompt's description says it answers in Markdown."""
    return bool(description and _ANSWERS_IN_MARKDOWN.search(description))


def flat_name(server: str, tool: str) -> str:
    """``mcp__{server}__{tool}``: one name that says where a tool lives."""
    return f"{FLAT_PREFIX}{server}{FLAT_SEP}{tool}"


def split_flat_name(name: str) -> tuple[str, str]:
    """The inverse of :func:`flat_name`; a ``ValueError`` says what a flat name looks like."""
    if not name.startswith(FLAT_PREFIX) or FLAT_SEP not in name[len(FLAT_PREFIX) :]:
        raise ValueError(f"not a flat tool name: {name!r} (expected 'mcp__<server>__<tool>')")
    server, tool = name[len(FLAT_PREFIX) :].split(FLAT_SEP, 1)
    if not server or not tool:
        raise ValueError(f"not a flat tool name: {name!r} (expected 'mcp__<server>__<tool>')")
    return server, tool


def one_left(required: Sequence[str], every: Sequence[str], given: Collection[str] = ()) -> str | None:
    """The argument a bare value goes to once ``given`` are set (a tool's parameters, a prompt's
    arguments): the one required argument left, or the only one left. None where it could mean
    several."""
    left = [k for k in required if k not in given] or [k for k in every if k not in given]
    return left[0] if len(left) == 1 else None


@dataclass(frozen=True)
class ToolInfo:
    """One tool of one server, with the schemas a form or a validator needs."""

    server: str
    name: str
    title: str | None = None
    description: str | None = None
    input_schema: dict[str, Any] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    task_support: str = "forbidden"  # execution.taskSupport: "forbidden" | "optional" | "required"
    #: What in the server's description of this tool MCP does not allow (the SDK refuses the whole
    #: list for it): the tool is kept as listed, its arguments unchecked where its schema cannot be.
    not_mcp: str | None = None

    @property
    def flat_name(self) -> str:
        return flat_name(self.server, self.name)

    @property
    def required(self) -> list[str]:
        return list(self.input_schema.get("required", []))

    @cached_property
    def required_defaults(self) -> dict[str, Any]:
        """The required parameters the schema gives a ``default`` (zod's ``.default()`` writes
        both), with it: the argument check fills them in when a call leaves them out."""
        props = self.input_schema.get("properties")
        if not isinstance(props, dict):  # a malformed schema: nothing to fill, the check says why
            return {}
        return {
            k: props[k]["default"]
            for k in self.required
            if isinstance(props.get(k), dict) and "default" in props[k]
        }

    @property
    def needed(self) -> list[str]:
        """The parameters a call must give: the required ones without a default (the ``*`` of a
        listing or a signature)."""
        return [k for k in self.required if k not in self.required_defaults]

    @cached_property
    def answers_in_markdown(self) -> bool:
        """Whether the tool's description says its text is Markdown (the protocol has no mark for
        a text block's format): displays then draw it as Markdown. The server's own word, not a
        guess from the text, which would draw a Python file's ``# comments`` as headings."""
        return says_markdown(self.description)

    @cached_property
    def text_parameter(self) -> str | None:
        """The parameter a bare value goes to (``%mcp call db.query "SELECT 1"``, or a ``%%mcp call``
        body that is the query itself, as JupySQL's ``%%sql`` cell is): the one required parameter,
        or the only parameter, when it takes text. None where a bare value could mean several."""
        return self.text_parameter_left()

    def text_parameter_left(self, given: Collection[str] = ()) -> str | None:
        """:attr:`text_parameter` once the arguments ``given`` are set: ``%%mcp call
        ds.execute_sql database=shop`` leaves ``sql`` as the one required parameter, so the body
        below is the query."""
        from mcpnb.client.arguments import type_names

        props = self.input_schema.get("properties")
        if not isinstance(props, dict):
            return None
        name = one_left([k for k in self.required if k in props], list(props), given)
        if name is None or not isinstance(props[name], dict):
            return None
        return name if "string" in type_names(props[name]) else None

    @cached_property
    def form_schema(self) -> dict[str, Any]:
        """``input_schema`` as a form draws it: a tool that says it runs SQL (mcp-alchemy's
        "Execute a SQL query", the PostgreSQL and DuckDB servers' ``query``) has its
        :attr:`text_parameter` marked ``contentMediaType: application/sql``, so the form gives it a
        box that keeps lines (a browser's one-line input joins a pasted ``select *`` and ``from
        t`` into ``select *from t``)."""
        name = self.text_parameter
        if name is None or not _SAYS_SQL.search(f"{self.name} {self.title or ''} {self.description or ''}"):
            return self.input_schema
        props = self.input_schema["properties"]
        marked = {**props, name: {"contentMediaType": "application/sql", **props[name]}}
        return {**self.input_schema, "properties": marked}

    @cached_property
    def signature(self) -> str:
        """``add(a*: integer, b*: integer)``: parameters in their order, ``*`` for the required ones,
        each with its JSON types. Once per tool list, not per call: every ``pool.call`` checks its
        arguments in words that name it, and working it out cost more than the check itself."""
        from mcpnb.client.arguments import signature_of

        return signature_of(self.name, self.input_schema, self.parameters, self.needed)

    @property
    def parameters(self) -> list[str]:
        return list(self.input_schema.get("properties", {}))

    @cached_property
    def argument_check(self) -> Any:
        """``input_schema`` compiled (``jsonschema-rs``, formats not checked). Once per tool list,
        not per call: every ``pool.call`` checks its arguments. A schema that breaks JSON Schema is
        compiled without what breaks it (see :func:`~mcpnb.client.schemacheck.usable_check`): the
        call still goes out, and :attr:`schema_problems` says what is wrong with it."""
        from mcpnb.client.nullable import openapi_nulls
        from mcpnb.client.schemacheck import usable_check

        return usable_check(openapi_nulls(self.input_schema))  # OpenAPI's nullable: null is taken

    @cached_property
    def schema_problems(self) -> tuple[str, ...]:
        """What is wrong with ``input_schema``, one short line each (``inputSchema is invalid:
        properties.n.type: 'integr' is not valid``; a ``required`` name it never describes), said
        where the tool is listed and shown: its author sees it before the first call, not as a
        call that is sent unchecked."""
        from mcpnb.client.schemacheck import input_schema_problems

        listed = (f"not as MCP describes a tool ({self.not_mcp}); kept as listed",) if self.not_mcp else ()
        return listed + tuple(input_schema_problems(self.input_schema))

    @classmethod
    def from_sdk(cls, server: str, tool: Any) -> ToolInfo:
        """Build from an SDK ``types.Tool`` (pydantic); keeps wire (camelCase) annotation names."""
        annotations = (
            tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else None
        )
        return cls(
            server=server,
            name=tool.name,
            title=tool.title or (annotations or {}).get("title"),
            description=tool.description,
            input_schema=dict(tool.input_schema or {}),
            output_schema=dict(tool.output_schema) if tool.output_schema else None,
            annotations=annotations or None,
            meta=dict(tool.meta) if getattr(tool, "meta", None) else None,
            task_support=_task_support(tool),
        )

    @classmethod
    def from_listing(cls, server: str, item: dict[str, Any], problem: str) -> ToolInfo:
        """Build from a ``tools/list`` entry the SDK refused (``problem``: why), keeping what can be
        read: a schema that is no object schema checks nothing (the call goes out unchecked, and the
        server says what it makes of it), where one bad tool used to lose the server's every tool."""

        def text(key: str) -> str | None:
            return item[key] if isinstance(item.get(key), str) else None

        def object_schema(key: str) -> dict[str, Any] | None:
            value = item.get(key)
            return dict(value) if isinstance(value, dict) and value.get("type") == "object" else None

        annotations = item.get("annotations")
        execution = item.get("execution")
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        return cls(
            server=server,
            name=item["name"],
            title=text("title"),
            description=text("description"),
            input_schema=object_schema("inputSchema") or {},
            output_schema=object_schema("outputSchema"),
            annotations=dict(annotations) if isinstance(annotations, dict) else None,
            meta=dict(item["_meta"]) if isinstance(item.get("_meta"), dict) else None,
            task_support=support if support in ("forbidden", "optional", "required") else "forbidden",
            not_mcp=problem,
        )

    def __repr__(self) -> str:
        params = ", ".join(p + ("*" if p in self.needed else "") for p in self.parameters)
        return f"<ToolInfo {self.server}.{self.name}({params})>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)


def _task_support(tool: Any) -> str:
    execution = getattr(tool, "execution", None)
    value = getattr(execution, "task_support", None) if execution is not None else None
    return value if value in ("optional", "required") else "forbidden"


@dataclass(frozen=True)
class ToolFilter:
    """``enabled_tools`` (an allow-list) then ``disabled_tools`` (a deny-list); shell patterns allowed."""

    enabled: tuple[str, ...] | None = None
    disabled: tuple[str, ...] = ()

    def allows(self, name: str) -> bool:
        return self.why_hidden(name) is None

    def why_hidden(self, name: str) -> str | None:
        """Which setting hides ``name`` (None when it is visible)."""
        if self.enabled is not None and not any(fnmatchcase(name, p) for p in self.enabled):
            return "it is not in enabled_tools"
        if any(fnmatchcase(name, p) for p in self.disabled):
            return "it is in disabled_tools"
        return None

    @property
    def active(self) -> bool:
        return self.enabled is not None or bool(self.disabled)

    def unmatched(self, names: list[str]) -> list[str]:
        """What to say of each pattern that matches none of ``names`` (a typo filters nothing)."""
        from mcpnb.client.errors import did_you_mean

        said = []
        for setting, patterns in (("enabled_tools", self.enabled or ()), ("disabled_tools", self.disabled)):
            for pattern in patterns:
                if not any(fnmatchcase(n, pattern) for n in names):
                    hint = did_you_mean(pattern, names)
                    said.append(
                        f"{setting}: {pattern!r} matches none of the server's tools"
                        + (f"; did you mean {hint!r}?" if hint else "")
                    )
        return said


@dataclass(frozen=True)
class Stale:
    """A listing of a server that is down: its ``state`` (``failed``), what ``%mcp status`` says
    of it, and when the list it still has was fetched (``as listed at 02:39:17, while …``)."""

    state: str
    said: str
    fetched: str

    def text(self, what: str = "tools") -> str:
        """The two lines a listing (``what``: its tools) or one tool's card (its card) starts with."""
        return f"⚠ {self.said}\n  below: its {what} {self.fetched}"


class ToolList(list[ToolInfo]):
    """Tools of one or more servers: a plain list that renders as a table and converts with ``.df``.

    ``not_listed``: the servers of the pool whose tools are missing from a listing of every server
    (not connected, or the listing failed), each with its state, so a gap is never silent.
    ``empty``: what an empty list says instead of "(no tools)" (a filter that kept none of 73).
    ``stale``: the server is down and these are the tools it listed before (:class:`Stale`), said
    above the table: a listing of a failed server once showed its old tools as if it were live.
    """

    def __init__(
        self,
        tools: Any = (),
        not_listed: dict[str, str] | None = None,
        *,
        empty: str | None = None,
        stale: Stale | None = None,
    ) -> None:
        super().__init__(tools)
        self.not_listed: dict[str, str] = dict(not_listed or {})
        self.empty = empty
        self.stale = stale

    def __getitem__(self, key: Any) -> Any:
        """``tools["server.tool"]``, ``tools["mcp__server__tool"]`` or a bare tool name when unique."""
        if not isinstance(key, str):
            result = super().__getitem__(key)
            return ToolList(result) if isinstance(key, slice) else result
        matches = [t for t in self if key in (f"{t.server}.{t.name}", t.flat_name, t.name)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise KeyError(key)
        raise KeyError(f"{key!r} is ambiguous: {', '.join(f'{t.server}.{t.name}' for t in matches)}")

    @property
    def df(self) -> Any:
        import pandas as pd

        rows = [
            {
                "server": t.server,
                "tool": t.name,
                "title": t.title,
                "description": t.description,
                "parameters": t.parameters,
                "required": t.required,
                **{
                    k: (t.annotations or {}).get(k)
                    for k in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
                },
            }
            for t in self
        ]
        columns = ["server", "tool", "title", "description", "parameters", "required"]
        return pd.DataFrame(
            rows, columns=[*columns, "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]
        )

    def __repr__(self) -> str:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)["text/plain"]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.client.display import mimebundle

        return mimebundle(self)
