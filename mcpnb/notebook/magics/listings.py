"""Displayable results of the subcommands that :mod:`mcpnb.notebook.render` has no type for yet.

Resources, prompts, a read resource, a rendered prompt, logs and the configuration: each is plain
data (a list or dict a person can index and keep with ``-o``) that renders through the same HTML
building blocks and content-block renderer as tool results, with a ``text/plain`` twin for terminals.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from mcpnb.client.contents import pick
from mcpnb.client.printable import columns_text, printable
from mcpnb.notebook.render.html import esc, pre, rtl_dir, wrap
from mcpnb.notebook.render.tool_list import more_hint, not_listed_note, short


def text_table(columns: list[str], rows: list[list[str]]) -> str:
    """The rows under their columns, each cell :func:`printable` before the columns are measured."""
    table = [columns, *([printable(cell) for cell in row] for row in rows)]
    return "\n".join(columns_text(table))


def html_table(columns: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td{rtl_dir(c)}>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


class _Table(list[Any]):
    """A list of SDK objects (with ``.server`` added by the caller) that renders as a table.

    At most ``listing_limit`` rows are drawn (as the tools listing: 10 000 resources put 2.2 MB into
    the notebook on every run), with how many more there are and where they all are; the list
    itself, and ``.df``, keep every item."""

    columns: ClassVar[list[str]] = []
    empty = "(nothing)"
    #: what a row is, in "… N more resources"
    noun = "rows"
    #: the subcommand that made it, in the hint under a cut table
    command = ""

    def __init__(
        self,
        rows: list[tuple[str, Any]] = (),  # type: ignore[assignment]
        not_listed: dict[str, str] | None = None,
    ) -> None:
        super().__init__(item for _, item in rows)
        self.servers = [server for server, _ in rows]
        #: servers a listing of every server could not ask (not connected, or the listing failed)
        self.not_listed: dict[str, str] = dict(not_listed or {})

    def cells(self, server: str, item: Any) -> list[str]:
        raise NotImplementedError

    def _rows(self, limit: int | None = None) -> list[list[str]]:
        pairs = zip(self.servers[:limit], self[:limit], strict=True)
        return [self.cells(s, item) for s, item in pairs]

    def _limit(self) -> int:
        from mcpnb.notebook.render.defaults import DEFAULTS, resolve_limit

        return resolve_limit(None, DEFAULTS.listing_limit)

    def _more(self, limit: int) -> str:
        """``… 9800 more resources (…)`` under a table cut at ``limit`` rows; "" when it is whole."""
        hidden = len(self) - limit
        if hidden <= 0:
            return ""
        return more_hint(hidden, self.noun, f"%mcp {self.command} …" if self.command else "", len(self))

    @property
    def df(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self._rows(), columns=self.columns)

    def __repr__(self) -> str:
        note = not_listed_note(self)
        limit = self._limit()
        more = self._more(limit)
        shown = text_table(self.columns, self._rows(limit)) if self else self.empty
        return printable(shown + "".join(f"\n{line}" for line in (more, note) if line))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        note = not_listed_note(self)
        note_html = f'<div class="mcpnb-dim">{esc(note)}</div>' if note else ""
        if not self:
            return {
                "text/plain": repr(self),
                "text/html": wrap(f'<div class="mcpnb-dim">{esc(self.empty)}</div>' + note_html),
            }
        limit = self._limit()
        more = self._more(limit)
        more_html = f'<div class="mcpnb-dim">{esc(more)}</div>' if more else ""
        return {
            "text/plain": repr(self),
            "text/html": wrap(html_table(self.columns, self._rows(limit)) + more_html + note_html),
        }


class ResourceList(_Table):
    """``%mcp resources``: what each server offers to read (``%mcp read NAME URI``). A template's
    ``uri`` shows its ``{placeholders}``: fill them in to read one."""

    columns: ClassVar[list[str]] = ["server", "uri", "name", "title", "mime type", "description"]
    empty = "(no resources)"
    noun, command = "resources", "resources"

    def cells(self, server: str, item: Any) -> list[str]:
        desc = pick(item, "description") or ""
        return [
            server,
            str(pick(item, "uri") or pick(item, "uri_template", "uriTemplate") or ""),
            pick(item, "name") or "",
            pick(item, "title") or "",
            pick(item, "mime_type", "mimeType") or "",
            short(desc, 80),
        ]


class SkillList(_Table):
    """``%mcp skills``: the skills each server offers (SEP-2640); ``%mcp skills NAME SKILL`` loads
    one. Listing reads none of their files."""

    columns: ClassVar[list[str]] = ["server", "skill", "files", "description"]
    empty = "(no skills)"
    noun, command = "skills", "skills"

    def cells(self, server: str, item: Any) -> list[str]:
        files = "dynamic" if item.files is None else str(len(item.files))
        return [server, item.name, files, short(item.description, 80)]


class PromptList(_Table):
    """``%mcp prompts``: prompt templates and their arguments (``*`` = required)."""

    columns: ClassVar[list[str]] = ["server", "prompt", "title", "arguments", "description"]
    empty = "(no prompts)"
    noun, command = "prompts", "prompts"

    def cells(self, server: str, item: Any) -> list[str]:
        args = pick(item, "arguments") or []
        shown = ", ".join(str(pick(a, "name")) + ("*" if pick(a, "required") else "") for a in args)
        desc = pick(item, "description") or ""
        return [
            server,
            pick(item, "name") or "",
            pick(item, "title") or "",
            shown,
            short(desc, 80),
        ]


class PromptCard:
    """``%mcp prompts NAME.PROMPT``: one prompt in full (``.prompt`` is the server's own)."""

    def __init__(self, server: str, prompt: Any) -> None:
        self.server, self.prompt = server, prompt

    def __repr__(self) -> str:
        return self._repr_mimebundle_()["text/plain"]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from mcpnb.notebook.render.prompt_card import prompt_bundle

        return prompt_bundle(self.server, self.prompt)


class TaskList(_Table):
    """``%mcp tasks``: each task's state (the handles themselves: index to act on one).

    A status table of what the servers have: a task the server no longer has (its TTL ran out, or
    the server was started again) is left out and counted under the table, as ``docker ps`` leaves
    out stopped containers; ``everything`` (``%mcp tasks --all``) lists those too, as ``expired``.
    Tasks that ended (completed, failed, cancelled) stay while the server keeps them: their results
    are still there to fetch.
    """

    columns: ClassVar[list[str]] = ["server", "task", "tool", "status", "message", "elapsed", "ttl left"]
    empty = "(no tasks)"
    noun, command = "tasks", "tasks"

    def __init__(self, handles: list[Any] = (), *, everything: bool = False) -> None:  # type: ignore[assignment]
        shown = [h for h in handles if everything or not h.expired]
        super().__init__([(h.server, h) for h in shown])
        self.notes: dict[str, str] = dict(getattr(handles, "notes", {}))  # server -> why none are listed
        #: expired tasks left out (``%mcp tasks --all`` lists them)
        self.hidden = len(handles) - len(shown)

    def _footer(self) -> list[str]:
        lines = [f"{s}: {n}" for s, n in self.notes.items()]
        if self.hidden:
            tasks = "task" if self.hidden == 1 else "tasks"
            lines.append(
                f"{self.hidden} expired {tasks} not shown (the server no longer has them): "
                "%mcp tasks --all lists them"
            )
        return lines

    def __repr__(self) -> str:
        return printable("\n".join([super().__repr__(), *self._footer()]))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(include, exclude)
        footer = self._footer()
        if footer:
            notes = "".join(f'<div class="mcpnb-dim">{esc(line)}</div>' for line in footer)
            bundle["text/html"] = bundle["text/html"] + wrap(notes)
            bundle["text/plain"] = repr(self)
        return bundle

    def cells(self, server: str, item: Any) -> list[str]:
        from mcpnb.client.tasks.summary import message_of, seconds, status_text, ttl_text

        if item.expired:  # its last known status and message are history: say what is left
            kept = "; its result is kept here" if item.landed is not None else ""
            message = f"the server no longer has it (last seen {item.state.status}){kept}"
        else:
            message = message_of(item)
        return [
            server,
            item.task_id,
            item.tool or "",  # a task attached by id: neither wire names its tool
            status_text(item),  # as the listing heard it (it asks about tasks nothing follows)
            short(message, 80),
            seconds(item.elapsed),
            ttl_text(item),
        ]


class LogView(list[str]):
    """``%mcp logs``: connection events, the server's stderr and what a stdio server printed on
    stdout that is not JSON-RPC (kind ``stdout``), oldest first (already redacted)."""

    def __init__(self, server: str, lines: list[str]) -> None:
        super().__init__(lines)
        self.server = server

    def __repr__(self) -> str:
        return printable("\n".join(_folded(self))) if self else f"(no log lines for {printable(self.server)})"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return {"text/plain": repr(self), "text/html": wrap(pre(repr(self)))}


def _folded(lines: list[str]) -> list[str]:
    """A line repeated right after itself (same second, same words) shows once, with a count: a
    server announcing its tool list four times while it starts is one line worth reading."""
    out: list[str] = []
    repeats = 0
    for i, line in enumerate(lines):
        repeats += 1
        if i + 1 < len(lines) and lines[i + 1] == line:
            continue
        out.append(f"{line} (×{repeats})" if repeats > 1 else line)
        repeats = 0
    return out


class ConfigView(dict[str, Any]):
    """``%mcp config``: every server the magics know (files and live connections), secrets hidden."""

    def __init__(
        self,
        servers: dict[str, Any],
        files: list[str],
        problems: list[str] | None = None,
        elsewhere: str | None = None,
    ) -> None:
        super().__init__(servers)
        self.files, self.problems = files, problems or []
        # where other clients' files list servers (VS Code's mcp.json, …), when no .mcp.json was found
        self.elsewhere = elsewhere

    def _files(self) -> list[str] | str:
        if self.files:
            return self.files
        if self.problems:
            return "(none could be read)"
        if self.elsewhere:
            return f"(no .mcp.json found; {self.elsewhere})"
        return "(no .mcp.json found)"

    def _text(self) -> str:
        files = self._files()
        lines = ["files: " + (files if isinstance(files, str) else ", ".join(files))]
        lines += [f"⚠ {problem}" for problem in self.problems]
        lines.append(
            json.dumps(dict(self), indent=2, default=str, ensure_ascii=False) if self else "(no servers)"
        )
        return printable("\n".join(lines))

    def __repr__(self) -> str:
        return self._text()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        files = self._files()
        files = files if isinstance(files, str) else ", ".join(f"<code>{esc(f)}</code>" for f in files)
        html = f'<div class="mcpnb-dim">files: {files}</div>'
        html += "".join(f'<div class="mcpnb-error">{esc(problem)}</div>' for problem in self.problems)
        html += pre(json.dumps(dict(self), indent=2, default=str, ensure_ascii=False)) if self else ""
        return {"text/plain": self._text(), "text/html": wrap(html)}
