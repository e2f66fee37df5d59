"""What the pages of a model's calls said for the model (MCP Apps), as the loop's next user turn.

A tool with a page (``_meta.ui.resourceUri``) gets it drawn when a :class:`~mcpnb.client.toolbox.Toolbox`
runs the model's call in a notebook, as a chat host draws it. The page may then speak to the model:
``ui/message`` is words for the conversation, in the person's turn but not the person's own words
(a page can write anything: each page's are headed as its own); ``ui/update-model-context`` is what
the model should know from now on, each update replacing the last. The extension
leaves carrying them to the host, and with no agent framework the host's loop is yours:
``messages += tools.from_pages("anthropic")`` before the next model call. The turn says the context
first (the newest of each page, once per change, marked as the page's), then the messages, each once,
under a line that says which page said them.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from mcpnb.client.toolbox.replies import Payload, add_blocks, anthropic_blocks, fitted


class DrawnPage(Protocol):
    """A page drawn for a call (``mcpnb.notebook.render.app_view.AppView`` is one)."""

    tool: Any

    @property
    def messages(self) -> list[dict[str, Any]]: ...

    @property
    def context(self) -> dict[str, Any] | None: ...

    def deliver(self, outcome: Any) -> None: ...


class PageNews:
    """The pages drawn for a toolbox's calls, and what of theirs has been handed to the model."""

    def __init__(self) -> None:
        self.pages: list[DrawnPage] = []
        self._given: list[dict[str, Any]] = []  # kept, so an id below is never a new object's
        self._given_ids: set[int] = set()

    def add(self, page: DrawnPage) -> None:
        self.pages.append(page)

    def waiting(self) -> int:
        """How many things (a context, a message) the model has not been handed yet."""
        return sum(len(new) for _page, _context, new in self._news())

    def take(self, fmt: str, **caps: Any) -> list[dict[str, Any]]:
        """The next user turn in ``fmt``'s terms, with all that is new (``[]`` when nothing is);
        ``caps``: the toolbox's ``max_text_chars`` and ``max_image_bytes``, as its replies keep."""
        body = Payload()
        news = self._news()
        contexts = [(page, c) for page, c, new in news if c is not None and any(item is c for item in new)]
        for page, context in contexts:
            body.texts.append(f"[{_named(page)}'s page (an MCP App) says the model should know:]")
            add_blocks(body, _blocks(context.get("content")))
            if context.get("structuredContent") is not None:
                body.texts.append(json.dumps(context["structuredContent"], ensure_ascii=False, default=str))
        for page, context, new in news:
            messages = [message for message in new if message is not context]
            if messages:  # the page's words, never the person's own: a model must tell them apart
                body.texts.append(f"[{_named(page)}'s page (an MCP App) says:]")
            for message in messages:
                add_blocks(body, _blocks(message.get("content")))
        for _page, _context, new in news:
            self._given.extend(new)
            self._given_ids.update(id(item) for item in new)
        if not body.texts and not body.images:
            return []
        return [user_turn(body, fmt, **caps)]

    def _news(self) -> list[tuple[DrawnPage, dict[str, Any] | None, list[dict[str, Any]]]]:
        """Per page: its newest context, and what it said that the model has not been handed."""
        out = []
        for page in self.pages:
            context = page.context  # read once: the page may say more meanwhile (mcpnb's thread)
            said = ([context] if context is not None else []) + list(page.messages)
            out.append((page, context, [item for item in said if id(item) not in self._given_ids]))
        return out


def _named(page: DrawnPage) -> str:
    return f"{page.tool.server}.{page.tool.name}"


def _blocks(content: Any) -> list[Any]:
    """Content blocks as a list: the extension's text writes ``ui/message`` with one block, its
    SDK's schema with a list; both reach here."""
    if isinstance(content, dict):
        return [content]
    return list(content) if isinstance(content, list) else []


def user_turn(body: Payload, fmt: str, **caps: Any) -> dict[str, Any]:
    """One user message of ``fmt`` (``openai``, ``openai-responses``, ``anthropic``, ``gemini``), with
    only the images that API takes and within ``caps`` (:func:`~mcpnb.client.toolbox.replies.fitted`)."""
    body = fitted(body, fmt, **caps)
    images = [f"data:{mime};base64,{data}" for mime, data in body.images]
    if fmt == "anthropic":
        return {"role": "user", "content": anthropic_blocks(body, empty="(the page said nothing)")}
    if fmt == "gemini":
        parts: list[dict[str, Any]] = [{"text": text} for text in body.texts]
        parts += [{"inline_data": {"mime_type": mime, "data": data}} for mime, data in body.images]
        return {"role": "user", "parts": parts}
    if fmt == "openai-responses":
        content: list[dict[str, Any]] = [{"type": "input_text", "text": text} for text in body.texts]
        content += [{"type": "input_image", "image_url": url, "detail": "auto"} for url in images]
        return {"role": "user", "content": content}
    content = [{"type": "text", "text": text} for text in body.texts]
    content += [{"type": "image_url", "image_url": {"url": url}} for url in images]
    return {"role": "user", "content": content}
