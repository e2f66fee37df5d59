"""A model's tool call, whatever SDK produced it, as one plain record; and finding the calls in a reply.

Each API hands tool calls over in its own shape, as an SDK object or its dict form (from
``model_dump()``, from JSON, or written by hand). The shape says which API it came from:

- OpenAI Chat Completions: ``{"id", "type": "function", "function": {"name", "arguments": "<json>"}}``
- OpenAI Responses: ``{"type": "function_call", "call_id", "name", "arguments": "<json>"}``
- Anthropic: ``{"type": "tool_use", "id", "name", "input": {...}}``
- Gemini: a part ``{"function_call": {"id"?, "name", "args": {...}}}`` (``functionCall`` in REST
  JSON) or the bare ``FunctionCall`` ``{"name", "args"}``.

Bad arguments are not an exception here: the record keeps the raw text, and the toolbox turns a
parse failure into an error result the model can read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcpnb.client.errors import ArgumentsError

#: The fields of Gemini's ``FunctionCall`` (snake_case and REST spelling).
_GEMINI_CALL_FIELDS = {"id", "name", "args", "partial_args", "partialArgs", "will_continue", "willContinue"}


@dataclass(frozen=True)
class ToolCall:
    """One call as the model made it."""

    format: str  # "openai" | "openai-responses" | "anthropic" | "gemini"
    id: str | None  # what the reply must quote (tool_call_id / call_id / tool_use_id / id)
    name: str  # the name the model used (a provider name)
    raw_arguments: Any  # a JSON string (OpenAI) or a dict (Anthropic, Gemini), as given
    camel: bool = False  # Gemini REST JSON spelling (functionCall): the reply answers in kind

    def arguments(self) -> dict[str, Any]:
        """The arguments as a dict; an ``ArgumentsError`` when they are not a JSON object."""
        raw = self.raw_arguments
        if raw is None or raw == "":
            return {}
        if isinstance(raw, str) and self.format in ("openai", "openai-responses"):  # JSON text there
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError as exc:
                shown = (
                    self.raw_arguments if len(self.raw_arguments) <= 200 else self.raw_arguments[:199] + "…"
                )
                raise ArgumentsError(
                    f"{self.name}: the arguments are not valid JSON ({exc.msg}: character {exc.pos}): "
                    f"{shown!r}; send a JSON object of the tool's parameters (nothing was sent)"
                ) from None
        if not isinstance(raw, Mapping):
            raise ArgumentsError(
                f"{self.name}: the arguments must be a JSON object of the tool's parameters, "
                f"not {type(raw).__name__} {json.dumps(raw, default=str)[:100]} (nothing was sent)"
            )
        return dict(raw)


def as_data(obj: Any) -> Any:
    """An SDK object as its dict form (pydantic ``model_dump``); dicts and lists as they are."""
    dump = getattr(obj, "model_dump", None)
    if callable(dump) and not isinstance(obj, type):
        return dump(exclude_none=True)
    to_dict = getattr(obj, "to_dict", None)  # some SDKs' proto-style objects
    if callable(to_dict) and not isinstance(obj, Mapping):
        return to_dict()
    return obj


def parse_call(obj: Any) -> ToolCall:
    """The :class:`ToolCall` in ``obj``; a ``TypeError`` when ``obj`` is not a tool call at all."""
    data = as_data(obj)
    if isinstance(data, Mapping):
        function = data.get("function")
        if (
            isinstance(function, Mapping)
            and "name" in function
            and data.get("type", "function") == "function"
        ):
            return ToolCall("openai", data.get("id"), str(function["name"]), function.get("arguments"))
        if data.get("type") == "function_call" and "name" in data:
            return ToolCall("openai-responses", data.get("call_id"), str(data["name"]), data.get("arguments"))
        if data.get("type") == "tool_use" and "name" in data:
            return ToolCall("anthropic", data.get("id"), str(data["name"]), data.get("input"))
        for key in ("function_call", "functionCall"):
            inner = data.get(key)
            if isinstance(inner, Mapping) and "name" in inner:
                return ToolCall(
                    "gemini", inner.get("id"), str(inner["name"]), inner.get("args"), key != "function_call"
                )
        if "name" in data and set(data) <= _GEMINI_CALL_FIELDS:  # a bare FunctionCall (args may be unset)
            return ToolCall("gemini", data.get("id"), str(data["name"]), data.get("args"))
    kind = type(obj).__name__
    shown = json.dumps(data, default=str)[:120] if isinstance(data, (Mapping, list)) else repr(obj)[:120]
    raise TypeError(
        f"not a tool call ({kind}: {shown}); expected an OpenAI tool call, a Responses function_call "
        "item, an Anthropic tool_use block or a Gemini function_call part"
    )


def is_call(obj: Any) -> bool:
    try:
        parse_call(obj)
    except TypeError:
        return False
    return True


def find_calls(reply: Any) -> list[Any]:
    """Every tool call in a model's reply, in order, as given (objects stay objects).

    ``reply`` may be a whole response (``ChatCompletion``, a Responses ``Response``, an Anthropic
    ``Message``, a Gemini ``GenerateContentResponse``), one message or ``Content``, or a list of
    calls and other items (an Anthropic ``content`` list with text blocks); what is not a call is
    skipped.
    """
    if isinstance(reply, (list, tuple)):
        return [item for item in reply if is_call(item)]
    if is_call(reply):
        return [reply]
    for path in (("choices", 0, "message", "tool_calls"), ("tool_calls",), ("output",), ("content",),
                 ("candidates", 0, "content", "parts"), ("parts",)):  # fmt: skip
        found = _follow(reply, path)
        if isinstance(found, (list, tuple)):
            return [item for item in found if is_call(item)]
    return []


def _follow(obj: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        if obj is None:
            return None
        if isinstance(step, int):
            obj = obj[step] if isinstance(obj, (list, tuple)) and len(obj) > step else None
        elif isinstance(obj, Mapping):
            obj = obj.get(step)
        else:
            obj = getattr(obj, step, None)
    return obj
