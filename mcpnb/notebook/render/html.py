"""Small HTML building blocks: escaping, badges and the one stylesheet every bundle carries.

Every string that came from a server (text, names, URIs, schema messages) passes through :func:`esc`
before it reaches markup, and through :func:`~mcpnb.client.printable.printable` before it reaches a
``text/plain`` twin (a terminal acts on what markup would only show). Colours use JupyterLab's CSS
variables with fallbacks, and badges use translucent backgrounds, so one stylesheet reads well in
light and dark themes. Table cells are
left-aligned (numbers right): JupyterLab right-aligns every output table cell with a two-class
selector, so ours names the root class twice to weigh as much and, coming later, win.
"""

from __future__ import annotations

import html as _html
import re
import unicodedata
from typing import Any

from mcpnb.client.printable import bidi_shown, without_ansi

ROOT = "mcpnb-r"

STYLE = f"""<style>
.{ROOT} {{font-family: var(--jp-content-font-family, system-ui, sans-serif);
  font-size: var(--jp-content-font-size1, 13px); color: var(--jp-content-font-color1, inherit);
  line-height: 1.4; max-width: 100%;}}
.{ROOT} .mcpnb-head {{display: flex; flex-wrap: wrap; gap: .4em; align-items: center; margin-bottom: .3em;}}
.{ROOT} .mcpnb-name {{font-family: var(--jp-code-font-family, monospace); font-weight: 600;}}
.{ROOT} .mcpnb-sep {{display: none;}}
.{ROOT} .mcpnb-dim {{opacity: .8; font-size: .9em;}}
.{ROOT} .mcpnb-badge {{display: inline-block; padding: 0 .45em; border-radius: .7em; font-size: .85em;
  border: 1px solid rgba(128,128,128,.35); background: rgba(128,128,128,.12); white-space: nowrap;}}
.{ROOT} .mcpnb-ok {{background: rgba(46,160,67,.18); border-color: rgba(46,160,67,.5);}}
.{ROOT} .mcpnb-warn {{background: rgba(210,153,34,.2); border-color: rgba(210,153,34,.55);}}
.{ROOT} .mcpnb-bad {{background: rgba(218,54,51,.18); border-color: rgba(218,54,51,.55);}}
.{ROOT} .mcpnb-off {{background: rgba(128,128,128,.15); border-color: rgba(128,128,128,.4);}}
.{ROOT} .mcpnb-block {{margin: .35em 0;}}
.{ROOT} pre {{margin: .2em 0; padding: .4em .6em; white-space: pre-wrap; word-break: break-word;
  max-height: 30em; overflow: auto; font-family: var(--jp-code-font-family, monospace);
  font-size: var(--jp-code-font-size, 12px); background: var(--jp-layout-color2, rgba(128,128,128,.08));
  border-radius: 3px;}}
.{ROOT} code {{font-family: var(--jp-code-font-family, monospace);}}
.{ROOT} .mcpnb-error {{border-left: 4px solid var(--jp-error-color1, #d32f2f); padding: .3em .7em;
  background: rgba(218,54,51,.1); border-radius: 3px;}}
.{ROOT} .mcpnb-error-title {{color: var(--jp-error-color1, #d32f2f); font-weight: 600;}}
.{ROOT} .mcpnb-card {{border: 1px solid var(--jp-border-color2, rgba(128,128,128,.35)); border-radius: 4px;
  padding: .3em .6em;}}
.{ROOT} table {{border-collapse: collapse; margin: .2em 0; font-size: .95em;}}
.{ROOT}.{ROOT} th, .{ROOT}.{ROOT} td {{padding: .15em .6em; text-align: left; vertical-align: top;
  border-bottom: 1px solid var(--jp-border-color2, rgba(128,128,128,.3));}}
.{ROOT}.{ROOT} .mcpnb-num {{text-align: right;}}
.{ROOT} td.mcpnb-lines {{white-space: pre-wrap;}}
.{ROOT} .mcpnb-nested {{margin-left: 1.2em;}}
.{ROOT} th {{font-weight: 600;}}
.{ROOT} details.mcpnb-more > summary {{list-style: none;}}
.{ROOT} details.mcpnb-more[open] > summary {{display: none;}}
.{ROOT} img {{max-width: 100%; max-height: 32em;}}
.{ROOT} details > summary {{cursor: pointer;}}
</style>"""


def esc(value: Any) -> str:
    """HTML-escape anything (quotes too, so the result is safe inside attributes); a bidi override
    shows as ``<U+202E>`` (:func:`bidi_shown`): markup escaped still reads right to left after one."""
    return _html.escape(bidi_shown("" if value is None else str(value)), quote=True)


def rtl_dir(text: str) -> str:
    """`` dir="auto"`` for an element whose text has right-to-left letters (Hebrew, Arabic), else
    nothing: the browser then lays a cell or a block out from its first strong letter, so
    ``שלום, world!`` reads from the right and its comma is where the writer put it (in a left-to-right
    element the punctuation at a run's end jumps to the wrong side). Text without one keeps its
    markup as it was."""
    if text.isascii():
        return ""
    return ' dir="auto"' if any(unicodedata.bidirectional(c) in ("R", "AL") for c in text) else ""


def esc_lines(value: Any) -> str:
    """Escaped text that keeps the server's line breaks."""
    return esc(value).replace("\n", "<br>")


def badge(text: str, kind: str = "", title: str | None = None) -> str:
    """A small pill; ``kind`` is one of "ok", "warn", "bad", "off" or "" (neutral)."""
    cls = f"mcpnb-badge mcpnb-{kind}" if kind else "mcpnb-badge"
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="{cls}"{tip}>{esc(text)}</span>'


def wrap(*parts: str) -> str:
    """The outer container: scoped styles plus the content."""
    return f'{STYLE}<div class="{ROOT}">{"".join(parts)}</div>'


def pre(text: str) -> str:
    """Server text as written, its web addresses links (as JupyterLab links them in plain text: a
    Gradio app's file URL, a fetched page's links)."""
    return f"<pre{rtl_dir(text)}>{linked(without_ansi(text))}</pre>"


#: A web address in running text, up to a space, a quote or an angle bracket; the punctuation a
#: sentence puts after it (``see https://x.org/a.``) is not part of it.
_URL = re.compile(r"https?://[^\s<>\"'`]+")
_TRAILING = ".,;:!?)]}"


def web_link(url: str, inner: str, style: str | None = None) -> str:
    """An ``<a>`` to ``url`` (already known to be http(s)) around ``inner`` (HTML): a new tab that
    cannot reach back to the notebook's page (``noopener``) nor tell it where the click came from."""
    styled = f' style="{style}"' if style else ""
    return f'<a href="{esc(url)}" target="_blank" rel="noopener noreferrer"{styled}>{inner}</a>'


def linked(text: str) -> str:
    """``text`` escaped, each ``http(s)://`` address in it a link that opens in a new tab (no other
    scheme ever becomes one)."""
    out, at = [], 0
    for m in _URL.finditer(text):
        url = m.group().rstrip(_TRAILING)
        if "(" in url and m.group()[len(url) : len(url) + 1] == ")":  # a wiki URL's own (…)
            url += ")"
        out.append(esc(text[at : m.start()]))
        out.append(web_link(url, esc(url)))
        at = m.start() + len(url)
    out.append(esc(text[at:]))
    return "".join(out)


def truncate(text: str, limit: int) -> tuple[str, int]:
    """``(shown, hidden_chars)``: long server text stays in the result, not in the notebook file."""
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit
