"""One tool in full: ``%mcp tools db.execute_sql`` (or a :class:`~mcpnb.client.toolinfo.ToolInfo`).

A listing keeps each row short; before calling a tool a person wants the rest: its whole
description, each parameter's type, default, allowed values and description (a listing only shows
them as a tooltip), what it returns and how a call is written.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcpnb.client.apps import DEFAULT_VISIBILITY, view_uri, visibility
from mcpnb.client.arguments import type_names
from mcpnb.client.schemarefs import deref, read_through
from mcpnb.notebook.render.card import Entry, card_bundle, cleaned, secret_trailers, secret_variable
from mcpnb.notebook.render.tool_list import hint_labels

_VALUES_SAID = 8  # allowed values written out, then a count


def kind_words(spec: Any, root: dict[str, Any]) -> str:
    """A parameter's type as a person reads it: ``integer, 1 to 1000``, ``one of: "table", "view"``,
    ``a list of texts``, ``string (date)``, ``boolean or null``."""
    return _kind_words(spec, root, frozenset(), {})


def _kind_words(spec: Any, root: dict[str, Any], inside: frozenset[str], worded: dict[str, str]) -> str:
    """:func:`kind_words`, each ``$ref`` worded once (``worded``) and one met again inside itself
    (``inside``) named, not followed (:func:`~mcpnb.client.schemarefs.read_through`, the policy of
    every reader of a schema): a server's schema may loop (``A`` is "an ``A`` or null") or
    fan out (40 definitions each "the next or the next": 2**40 paths), and the card must still be
    drawn, at once."""
    return read_through(
        spec, root, lambda spec, inside: _words(spec, root, inside, worded), _looped, inside, worded
    )


def _looped(ref: str) -> str:
    return f"{ref.rsplit('/', 1)[-1]} (recursive)"


def _words(spec: dict[str, Any], root: dict[str, Any], inside: frozenset[str], worded: dict[str, str]) -> str:
    """:func:`kind_words` of a schema whose ``$ref`` (if any) was followed."""
    from mcpnb.client.elicitation.fields import shape_of

    if "const" in spec:
        return f"always {json.dumps(spec['const'])}"
    values = spec.get("enum")
    if isinstance(values, list) and values:
        said = ", ".join(json.dumps(v, ensure_ascii=False) for v in values[:_VALUES_SAID])
        more = f", … ({len(values)} values)" if len(values) > _VALUES_SAID else ""
        return f"one of: {said}{more}"
    options = [o for key in ("anyOf", "oneOf") for o in spec.get(key) or () if isinstance(o, dict)]
    if options and "type" not in spec:  # pydantic's ``Style | None``: a $ref or null
        return " or ".join(dict.fromkeys(_kind_words(o, root, inside, worded) for o in options))
    kinds = type_names(spec)
    if any(k in ("array", "object") for k in kinds) or isinstance(spec.get("properties"), dict):
        said = shape_of(spec, root, depth=1)
        return said + (" or null" if "null" in kinds else "")
    words = " or ".join(kinds) or "any value"
    low, high = spec.get("minimum"), spec.get("maximum")
    if low is not None and high is not None:
        words += f", {low} to {high}"
    elif low is not None or high is not None:
        words += f", ≥ {low}" if low is not None else f", ≤ {high}"
    if isinstance(spec.get("format"), str):
        words += f" ({spec['format']})"
    return words


def parameter_rows(tool: Any) -> list[Entry]:
    """One entry per parameter: name (``*`` when a call must give it), type, default, description."""
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    needed = set(tool.needed)
    rows = []
    for name in tool.parameters:
        spec = deref(props.get(name), schema)
        rows.append(
            Entry(
                name + ("*" if name in needed else ""),
                kind_words(props.get(name), schema),  # as written: a reference to itself is seen as one
                json.dumps(spec["default"], ensure_ascii=False) if "default" in spec else "",
                " ".join(str(spec.get("description") or _own_title(name, spec) or "").split()),
            )
        )
    return rows


def _own_title(name: str, spec: dict[str, Any]) -> str | None:
    """A parameter's title, where it says more than its name: pydantic titles every field with its
    name titlecased (``a`` is "A", ``user_id`` "User Id"), which read as a description said nothing."""
    title = spec.get("title")
    if not isinstance(title, str):
        return None
    same = title.replace(" ", "").replace("_", "").lower() == name.replace("_", "").lower()
    return None if same else title


def returns_words(tool: Any) -> str:
    """What the tool's ``outputSchema`` promises, in words; the SDK's ``{"result": ...}`` wrapper
    of a list or a plain value is looked through."""
    schema = tool.output_schema
    if not isinstance(schema, dict):
        return "content blocks (the tool declares no outputSchema)"
    props = schema.get("properties")
    if isinstance(props, dict) and set(props) == {"result"}:
        return "structured content under result: " + kind_words(props["result"], schema)
    return "structured content: " + kind_words(schema, schema)


def call_line(tool: Any) -> str:
    """A ``%mcp call`` line with the parameters a call must give, to copy and fill in: the first
    allowed value where the schema lists them, else ``…``. Never a value with ``{{`` in it: the
    line would run it as Python in the notebook (the server's code, on the person's Enter)."""
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    words = [f"%mcp call {tool.server}.{tool.name}"]
    for name in tool.needed:
        variable = secret_variable(name)
        if variable is not None:  # never typed onto the line: it would be kept in the notebook
            words.append(f"{name}={{{{{variable}}}}}")
            continue
        values = deref(props.get(name), schema).get("enum")
        value = values[0] if isinstance(values, list) and values else "…"
        value = "…" if "{{" in json.dumps(value) else value
        plain = isinstance(value, str) and re.fullmatch(r"[\w.…-]+", value)
        words.append(f"{name}={value if plain else json.dumps(value, ensure_ascii=False)}")
    return " ".join(words)


def page_words(tool: Any) -> str | None:
    """What an MCP App tool's page is and who may call the tool; None for a tool without either."""
    page, who = view_uri(tool), visibility(tool)
    said = []
    if page is not None:
        said.append(f"{page}, an MCP App page that %mcp call draws above the result")
    if who != DEFAULT_VISIBILITY:
        said.append(
            "called by its server's pages only (never offered to a model)"
            if "model" not in who
            else "never called from a page"
        )
    return "; ".join(said) or None


def tool_bundle(tool: Any) -> dict[str, Any]:
    """``_repr_mimebundle_`` for a :class:`~mcpnb.client.toolinfo.ToolInfo`."""
    problems = tool.schema_problems
    badges = (
        hint_labels(tool)
        + ([(f"task: {tool.task_support}", "")] if tool.task_support != "forbidden" else [])
        + ([("⚠ inputSchema", "warn")] if problems else [])
    )
    page = page_words(tool)
    return card_bundle(
        f"{tool.server}.{tool.name}" + (f" · {tool.title}" if tool.title else ""),
        badges,
        cleaned(tool.description),
        "parameter",
        parameter_rows(tool),
        "* a call must give it" if tool.needed else None,
        [
            ("returns", returns_words(tool), False),
            *([("page", page, False)] if page else []),
            ("call it", call_line(tool), True),
            *secret_trailers([v for v in map(secret_variable, tool.needed) if v is not None]),
            *(("⚠ problem", said, False) for said in problems),
        ],
    )
