"""A deliberately small, escaping Markdown renderer for text blocks a server marks as Markdown.

No Markdown library is a dependency, and a full one would also pass raw HTML through (a script
injection path for server text). This covers what tool output uses (headings, paragraphs, lists,
fenced code, tables, inline code, bold/italic, http(s) links) and escapes everything else, so the worst case
is plain-looking text, never live markup.
"""

from __future__ import annotations

import re

from mcpnb.client.frames import TABLE_RULE, table_cells
from mcpnb.notebook.render.html import esc

_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\((https?://[^\s)]+)\)")
_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")


def _table(head: str, rows: list[str]) -> str:
    cells = "".join(f"<th>{_inline(c)}</th>" for c in table_cells(head))
    body = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in table_cells(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _inline(text: str) -> str:
    """Escape first, then add the few inline forms; code spans and links are set aside meanwhile."""
    codes: list[str] = []

    def keep_code(m: re.Match[str]) -> str:
        codes.append(f"<code>{m.group(1)}</code>")
        return f"\x00{len(codes) - 1}\x00"

    def keep_link(m: re.Match[str]) -> str:
        # The text is already escaped, so the URL's & is &amp;: exactly what an href attribute wants.
        # An image (![alt](url)) is a link to it, not fetched: the notebook does not call a server's
        # addresses by itself (and a saved notebook would fetch it for whoever opens it).
        image, label, url = m.groups()
        if not label and not image:
            return m.group(0)
        label = f"🖼 {label or 'image'}" if image else label
        codes.append(f'<a href="{url}" target="_blank" rel="noopener noreferrer">{label}</a>')
        return f"\x00{len(codes) - 1}\x00"

    # NUL marks what is set aside: a server's own NULs (no HTML holds one) become U+FFFD first
    out = _LINK.sub(keep_link, _CODE.sub(keep_code, esc(text.replace("\x00", "\ufffd"))))
    out = _BOLD.sub(r"<strong>\1</strong>", out)
    out = _ITALIC.sub(r"<em>\1</em>", out)
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], out)


def markdown_to_html(text: str) -> str:
    """Render the supported subset; unknown constructs come out as escaped paragraphs."""
    lines = text.replace("\r\n", "\n").split("\n")
    html: list[str] = []
    para: list[str] = []
    list_tag: str | None = None
    i = 0

    def flush_para() -> None:
        if para:
            html.append("<p>" + "<br>".join(_inline(p) for p in para) + "</p>")
            para.clear()

    def close_list() -> None:
        nonlocal list_tag
        if list_tag:
            html.append(f"</{list_tag}>")
            list_tag = None

    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            flush_para()
            close_list()
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith("```"):
                body.append(lines[i])
                i += 1
            html.append(f"<pre>{esc(chr(10).join(body))}</pre>")
            i += 1
            continue
        if "|" in line and i + 1 < len(lines) and TABLE_RULE.match(lines[i + 1]):
            flush_para()
            close_list()
            end = i + 2
            while end < len(lines) and "|" in lines[end] and lines[end].strip():
                end += 1
            html.append(_table(line, lines[i + 2 : end]))
            i = end
            continue
        heading = _HEADING.match(line)
        bullet = _BULLET.match(line)
        numbered = None if bullet else _NUMBERED.match(line)
        if heading:
            flush_para()
            close_list()
            level = len(heading.group(1))
            html.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif bullet or numbered:
            flush_para()
            tag = "ul" if bullet else "ol"
            if list_tag != tag:
                close_list()
                html.append(f"<{tag}>")
                list_tag = tag
            item = (bullet or numbered).group(1)  # type: ignore[union-attr]
            html.append(f"<li>{_inline(item)}</li>")
        elif not line.strip():
            flush_para()
            close_list()
        else:
            close_list()
            para.append(line)
        i += 1
    flush_para()
    close_list()
    return "".join(html)
