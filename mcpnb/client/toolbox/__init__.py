"""A notebook's MCP tools for Python code and for any LLM API (``pool.functions()``).

``functions`` (one tool as a Python function), ``signatures`` (its signature and docstring),
``schema`` (the normal form of an input schema), ``names`` (provider name rules), ``strict`` (OpenAI
strict mode), ``gemini`` (Gemini's Schema dialect), ``specs`` (tool specs per provider), ``calls``
(tool calls from any SDK), ``replies`` (results as provider messages), ``approval`` (a person's yes
before a model's call runs), ``box`` (the ``Toolbox``), ``table`` (its text table).
No LLM SDK is imported anywhere here.
"""

from __future__ import annotations

from mcpnb.client.toolbox.approval import NotApprovedError
from mcpnb.client.toolbox.box import ShortNames, Toolbox, ToolFailedError
from mcpnb.client.toolbox.calls import ToolCall, find_calls, parse_call
from mcpnb.client.toolbox.names import NameCollisionError
from mcpnb.client.toolbox.specs import FORMATS, SpecLimitWarning, StrictModeWarning, ToolSpecs

__all__ = [
    "FORMATS",
    "NameCollisionError",
    "NotApprovedError",
    "ShortNames",
    "SpecLimitWarning",
    "StrictModeWarning",
    "ToolCall",
    "ToolFailedError",
    "ToolSpecs",
    "Toolbox",
    "find_calls",
    "parse_call",
]
