"""Requirements that cannot be met. Each error carries the :class:`Resolution` (``.resolution``):
the plan, and the table when servers were connected, so a cell can show it before the error."""

from __future__ import annotations

from typing import Any

from mcpnb.client.errors import McpnbError


class RequirementError(McpnbError):
    """The declarations cannot be met; nothing was connected (see the subclasses for why)."""

    def __init__(self, message: str, resolution: Any = None) -> None:
        super().__init__(message)
        self.resolution = resolution


class RequirementCycleError(RequirementError):
    """Skills require each other in a cycle; the message shows its path (``a → b → a``)."""


class RequirementConflictError(RequirementError):
    """Declarations of a server disagree and the strategy does not choose (``error``, or a tie)."""


class RequiredServerError(RequirementError):
    """Servers were connected, and some required one failed: it did not start, reports a version
    its requesters do not accept, or lacks a tool they need. The others were left as they are."""


def plan_error(resolution: Any) -> RequirementError:
    """The one error for a plan with problems, listing every problem."""
    plan = resolution.plan
    kind: type[RequirementError] = RequirementError
    if plan.cycles:
        kind = RequirementCycleError
    elif any(c.chosen is None for c in plan.conflicts):
        kind = RequirementConflictError
    lines = "\n".join(f"  - {p}" for p in plan.problems)
    return kind(f"the requirements cannot be met, so nothing was connected:\n{lines}", resolution)


def failure_error(resolution: Any) -> RequiredServerError:
    """The one error for required servers that failed after connecting, listing every failure."""
    failed = resolution.failures
    lines = "\n".join(f"  - {row.name}: {'; '.join(row.problems)}" for row in failed)
    many = "s are" if len(failed) != 1 else " is"
    return RequiredServerError(f"{len(failed)} required server{many} not ready:\n{lines}", resolution)
