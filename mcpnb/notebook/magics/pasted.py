"""A tool call pasted whole into a ``%%mcp call`` body.

People copy a call from where they saw it: the MCP Inspector's history, a transcript
(``%mcp call --transcript``), the spec's examples. Such a body is the whole
request (``{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {...}}``) or its params
(``{"name": "greet", "arguments": {...}}``), and was refused as "unknown argument 'jsonrpc'" (or
``'arguments'``): its arguments are what was meant. A paste that names another tool than the
line's is said, not sent; a tool that has parameters named so (``arguments``, ``method``) takes
the body as its own arguments, as written.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from IPython.core.error import UsageError

from mcpnb.notebook.magics.parser import Arguments

_REQUEST = frozenset({"jsonrpc", "id", "method", "params"})
_PARAMS = frozenset({"name", "arguments", "_meta", "task"})


def pasted_call(
    body: Mapping[str, Any], params: Collection[str], *, as_task: bool = False
) -> tuple[str | None, Arguments] | None:
    """The tool a pasted call names (None: it names none) and its arguments, or None where
    ``body`` is not such a paste, or is the arguments of a tool with ``params`` of those names.
    A paste that asks for a task (its ``task``) needs ``--task`` on the line (``as_task``): sent as
    a plain call, it would have run otherwise than pasted, unsaid."""
    if (
        "method" in body
        and "params" in body
        and set(body) <= _REQUEST
        and not {"method", "params"} & set(params)
    ):
        method = body["method"]
        if method != "tools/call":
            raise UsageError(
                f"the cell body is a whole {method!r} request, and %%mcp call sends tools/call: "
                "put the tool's arguments alone in the body"
            )
        if not isinstance(body["params"], Mapping):
            raise UsageError(
                'the cell body is a tools/call request whose "params" is no object: put the tool\'s '
                "arguments alone in the body"
            )
        body = body["params"]
    elif "arguments" not in body or "arguments" in params or not set(body) <= _PARAMS:
        return None
    if "task" in body and not as_task:
        raise UsageError(
            'the pasted call asks for a task (its "task"): add --task to the line to run it as one '
            "(nothing was sent)"
        )
    name, inner = body.get("name"), body.get("arguments", {})
    if not isinstance(inner, Mapping) or not (name is None or isinstance(name, str)):
        raise UsageError(
            'the cell body looks like a pasted tools/call, and its "arguments" is no object of '
            "arguments: put the tool's arguments alone in the body"
        )
    args = Arguments()
    for key, value in inner.items():
        args.put(str(key), value, None, None, "the pasted call's arguments")
    return name, args


def tool_in_paste(server: str, cell: str | None) -> str | None:
    """``server.tool`` where the line named a server alone and the body is a pasted call that
    names its tool (``%%mcp call probe`` over ``{"name": "greet", ...}``), else None."""
    if not cell or not cell.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(cell)
    except ValueError:
        return None
    found = pasted_call(data, (), as_task=True) if isinstance(data, dict) else None  # (only its name)
    return f"{server}.{found[0]}" if found is not None and found[0] else None
