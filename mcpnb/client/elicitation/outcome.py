"""Answers from a person, as plain data the connection callbacks turn into protocol results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass
class FormOutcome:
    """What a person (or a headless policy) answered to a form or URL elicitation.

    ``reason`` says why a policy or the text fallback declined or cancelled, so a notebook run
    headless can tell "nobody could answer" from "the answers were wrong".
    """

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None
    reason: str | None = None


@dataclass
class SamplingOutcome:
    """A person's reply to a sampling request: ``accept`` with ``text``, or ``reject``."""

    action: Literal["accept", "reject"]
    text: str | None = None
    reason: str | None = None

    def to_result(self, model: str = "mcpnb-person") -> Any:
        """The sampling callback's return value: a ``CreateMessageResult``, or ``ErrorData`` on reject.

        ``-1`` with "User rejected sampling request" is what server-everything's reference client sends.
        """
        from mcp import types

        if self.action != "accept":
            return types.ErrorData(code=-1, message="User rejected sampling request")
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=self.text or ""),
            model=model,
            stop_reason="endTurn",
        )
