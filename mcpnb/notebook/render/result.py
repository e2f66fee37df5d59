"""The mimebundle of a :class:`~mcpnb.client.results.ToolResult`.

Layout: a header line (server.tool, ok/error, time, schema badge), the content blocks, then the
structured data. When structured data is present the SDK also sends a JSON text copy of it in
``content`` for old clients; those mirror blocks are folded into one note instead of shown twice.
When the structured data shows as a table, the server's own text rendition of it (a summary, an
ASCII table) is folded under the table, one click away: a result is shown once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcpnb.client.files import files_in
from mcpnb.client.printable import printable
from mcpnb.client.results import HALF_CHARACTERS, displayable
from mcpnb.notebook.render.content import Rendered, block_type, get, render_block, save_hints
from mcpnb.notebook.render.defaults import DEFAULTS, resolve_limit
from mcpnb.notebook.render.html import badge, esc, wrap
from mcpnb.notebook.render.structured import (
    render_structured,
    render_text_lines,
    render_text_table,
    schema_badge,
    shows_lines,
    writes_lines,
)
from mcpnb.notebook.render.transcript import transcript_html


def _mirrors(result: Any) -> set[int]:
    """Indexes of text blocks that only repeat the structured content (whole, or one list item
    each: :attr:`~mcpnb.client.results.ToolResult.mirrored_texts`), or the one text of lines in it
    that its display shows as such (Jupyter MCP Server's ``{"kind": ..., "result": <the text>}``)."""
    if result.structured is None or result.is_error:
        return set()
    lines = _shown_lines(result.data)
    found = set(result.mirrored_texts)
    if lines:
        found.update(
            i
            for i, block in enumerate(result.content)
            if block_type(block) == "text"
            and isinstance(text := get(block, "text"), str)
            and text.strip() in lines
        )
    return found


def _shown_lines(data: Any) -> set[str]:
    """The texts of lines an object's display shows whole, as written (see :func:`shows_lines`)."""
    if not shows_lines(data):
        return set()
    return {v.strip() for v in data.values() if isinstance(v, str) and "\n" in v.strip()}


#: Between the header's parts: a notebook opened untrusted drops the <style>, and the parts ran
#: together ("raw.recordsok2 ms"); styled, the badges' gaps part them and it is not shown.
_SEP = '<span class="mcpnb-sep"> · </span>'


def _header(result: Any) -> tuple[str, str]:
    status = badge("error", "bad") if result.is_error else badge("ok", "ok")
    ms = f"{result.elapsed * 1000:.0f} ms"
    schema_html, schema_text = schema_badge(result)
    parts = [
        f'<span class="mcpnb-name">{esc(result.label)}</span>',
        status,
        f'<span class="mcpnb-dim">{esc(ms)}</span>',
    ]
    html = f'<div class="mcpnb-head">{_SEP.join([*parts, *([schema_html] if schema_html else [])])}</div>'
    text = f"{result.label} · {'error' if result.is_error else 'ok'} · {ms}"
    return html, text + (f" · {schema_text}" if schema_text else "")


def build_result(result: Any, limit: int, notes: Sequence[str] = ()) -> dict[str, Any]:
    """The bundle; ``notes``: warnings of the display's own, shown as the result's are."""
    head_html, head_text = _header(result)
    wrapper = result.content_wrapper()  # the blocks are the whole result: shown, the payload a note
    mirrors = set() if wrapper is not None else _mirrors(result)
    markdown = result.markdown and not result.is_error  # an error's text is the server's words, not a page
    saves = save_hints(files_in(result.content, result.label), "result")
    kept = [
        (
            b,
            render_block(
                b,
                server=result.server,
                text_limit=DEFAULTS.text_limit,
                at=f"result.content[{i}]",
                markdown=markdown,
                save_hint=saves.get(i),
            ),
        )
        for i, b in enumerate(result.content)
        if i not in mirrors
    ]
    structured = None
    if result.text_table is not None:  # a query's rows written as text: the table, the text folded
        structured = render_text_table(result.text_table, limit)
    elif writes_lines(result.text_data):  # JSON text whose strings hold lines: the lines, text folded
        structured = render_text_lines(result.text_data, DEFAULTS.json_limit)
    elif wrapper is not None:
        note = f"structured content: {{{wrapper!r}: the content above}} (result.structured)"
        structured = (f'<div class="mcpnb-block mcpnb-dim">{esc(note)}</div>', note, False)
    elif result.structured is not None:
        structured = render_structured(result, limit, DEFAULTS.json_limit)
    # a table is the data shown once: the server's text rendition of it is one click away
    fold = structured is not None and structured[2] and not result.is_error
    folded = [r for b, r in kept if fold and block_type(b) == "text"]
    blocks: list[Rendered] = [r for b, r in kept if not (fold and block_type(b) == "text")]
    body_html = "".join(b.html for b in blocks)
    texts = [b.text for b in blocks]
    if result.is_error:
        body_html = (
            f'<div class="mcpnb-error"><div class="mcpnb-error-title">The server reported an error from '
            f"<code>{esc(result.label)}</code></div>{body_html or esc('(no message)')}</div>"
        )
        texts.insert(0, "The server reported an error:")
    for said in [*result.warnings, *notes]:  # what the result broke of MCP (how it was kept), what held it up
        body_html += f'<div class="mcpnb-block">{badge("⚠ " + said, "warn")}</div>'
        texts.append(f"⚠ {said}")
    if structured is not None:
        body_html += structured[0]
        texts.append(structured[1])
    elif result.schema_valid is False:
        body_html += f'<div class="mcpnb-block">{badge("⚠ " + str(result.schema_error), "warn")}</div>'
        texts.append(f"⚠ {result.schema_error}")
    if folded:
        body_html += (
            "<details class='mcpnb-text-version'><summary class='mcpnb-dim'>the server's text version "
            f"of this result</summary>{''.join(r.html for r in folded)}</details>"
        )
        texts.append("(the server's text version of this result: result.text)")
    if mirrors:
        blocks_say = "1 text block repeats" if len(mirrors) == 1 else f"{len(mirrors)} text blocks repeat"
        note = f"{blocks_say} the structured content (result.text)"
        body_html += f'<div class="mcpnb-dim">{esc(note)}</div>'
    bundle: dict[str, Any] = {}
    for b in blocks:  # the first image also travels on its own, for frontends without HTML
        for mime, value in b.mime.items():
            bundle.setdefault(mime, value)
        if bundle:
            break
    for note in getattr(result, "answered_without_asking", ()):  # never folded: it changed the result
        mark, kind = ("ⓘ", "") if getattr(note, "accepted", False) else ("⚠", "warn")
        body_html += f'<div class="mcpnb-block">{badge(f"{mark} {note}", kind)}</div>'
        texts.append(f"{mark} {note}")
    logs = getattr(result, "logs", None)
    if logs:  # what the server logged during the call, folded under the result
        from mcpnb.notebook.forms.progress import format_log

        lines = [_log_head(format_log(p.level, p.logger, p.data)) for p in logs]
        dropped = getattr(result, "logs_dropped", 0)
        summary = "server log: 1 message" if len(lines) == 1 else f"server log: {len(lines)} messages"
        if dropped:
            total = len(lines) + dropped
            summary = f"server log: the last {len(lines)} of {total:,} messages ({dropped:,} dropped)"
        body_html += (
            f"<details class='mcpnb-logs'><summary>{esc(summary)}</summary>"
            f"<pre>{esc(chr(10).join(lines))}</pre></details>"
        )
        texts.append(f"{summary}:\n" + "\n".join("  " + line.replace("\n", "\n    ") for line in lines))
    transcript = getattr(result, "transcript", None)
    if transcript is not None:  # collapsed under the result: there for teaching, out of the way
        body_html += transcript_html(transcript)
        texts.append(f"transcript ({len(transcript)} messages):\n{transcript!r}")
    bundle["text/html"] = wrap(head_html, body_html)
    bundle["text/plain"] = printable("\n".join([head_text, *(t for t in texts if t)]))
    return bundle


#: Lines and characters of one server log message under a result: Desktop Commander logs its
#: whole configuration (150 lines) at every get_config; result.logs keeps each message (up to its size
#: bound, :mod:`mcpnb.client.call_logs`).
_LOG_LINES, _LOG_CHARS = 5, 500


def _log_head(line: str) -> str:
    """A log message's start, and how much of it is not shown."""
    rows = line.splitlines()
    head = "\n".join(rows[:_LOG_LINES])[:_LOG_CHARS]
    if head == line:
        return line
    left = len(rows) - len(head.splitlines())
    rest = f"{left} more lines" if left > 0 else f"{len(line) - len(head):,} more characters"
    return f"{head}… ({rest} in result.logs)"


def _displayable(bundle: dict[str, Any]) -> bool:
    """Put U+FFFD for each half of a character in ``bundle``'s texts (:func:`displayable`: a
    display cannot be sent to the notebook with one) and say whether there was one."""
    found = False
    for mime, value in bundle.items():
        if isinstance(value, str):
            bundle[mime], halved = displayable(value)
            found = found or halved
    return found


def result_bundle(result: Any, *, limit: int | None = None) -> dict[str, Any]:
    """``_repr_mimebundle_`` for a ToolResult: ``text/plain``, ``text/html`` and the first image.

    A rendering bug must never hide a result, so any failure degrades to the plain repr plus a note.
    Half of a character in what is shown (a server cut an emoji) is U+FFFD, and a warning says so:
    the bundle would not reach the notebook (bounded work, on what is shown only).
    """
    n = resolve_limit(limit, DEFAULTS.display_limit)
    try:
        bundle = build_result(result, n)
        if _displayable(bundle):
            bundle = build_result(result, n, [HALF_CHARACTERS])
            _displayable(bundle)
        return bundle
    except Exception as exc:
        note = f"mcpnb could not render this result ({type(exc).__name__}: {exc}); see result.json()"
        fallback = {
            "text/plain": printable(f"{result!r}\n{note}"),
            "text/html": wrap(f"<pre>{esc(repr(result))}</pre>", esc(note)),
        }
        _displayable(fallback)  # (the repr says so already)
        return fallback
