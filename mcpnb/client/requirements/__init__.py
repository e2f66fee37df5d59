"""Declared requirements: a notebook (or its skills) says which MCP servers it needs; mcpnb
connects each once, however many ask for it, and says what it did.

    spec / SKILL.md / .mcp.json ─► declarations (reading, spec, skills, layers)   I/O, validated
                                ─► plan (resolver, graph, versions)                pure
                                ─► choices, for strategy "ask" (choosing)          a form, via Interaction
                                ─► pool connections + checks (connecting, checks)  runtime loop
                                ─► Resolution (the table) or one error listing every failure

``Pool.require`` / ``Pool.arequire`` are the entry points; ``%%mcp require`` is a thin magic over them.
"""

from __future__ import annotations

from mcpnb.client.requirements.errors import (
    RequiredServerError,
    RequirementConflictError,
    RequirementCycleError,
    RequirementError,
)
from mcpnb.client.requirements.model import SOURCES, Declaration, Declarations, Skill
from mcpnb.client.requirements.plan import STRATEGIES, Conflict, Option, Plan, PlannedServer
from mcpnb.client.requirements.require import arequire, gather, require
from mcpnb.client.requirements.resolution import Resolution, Row
from mcpnb.client.requirements.resolver import resolve

__all__ = [
    "SOURCES",
    "STRATEGIES",
    "Conflict",
    "Declaration",
    "Declarations",
    "Option",
    "Plan",
    "PlannedServer",
    "RequiredServerError",
    "RequirementConflictError",
    "RequirementCycleError",
    "RequirementError",
    "Resolution",
    "Row",
    "Skill",
    "arequire",
    "gather",
    "require",
    "resolve",
]
