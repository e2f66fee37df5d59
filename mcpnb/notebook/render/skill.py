"""How a server's skill, loaded (``%mcp skills NAME SKILL``, ``skill.load()``), looks: its name and
description, then its ``SKILL.md`` body drawn as Markdown, and the files it holds.

The body is the server's text. Handed to JupyterLab as ``text/markdown`` it ran as markup: a trusted
output's Markdown is not sanitized there (an ``<img onerror>`` or a ``<script>`` ran in the
notebook's origin) and a Markdown image is fetched as the output is drawn, with no click (a
tracking pixel, in an untrusted notebook too). So it is drawn here as ``text/html`` by mcpnb's own
escaping renderer (:func:`~mcpnb.notebook.render.markdown.markdown_to_html`: markup shown as text,
an image a link to it), and its ``text/plain`` made :func:`printable`.
"""

from __future__ import annotations

from typing import Any

from mcpnb.client.printable import printable, without_ansi
from mcpnb.notebook.render.defaults import DEFAULTS
from mcpnb.notebook.render.html import esc, rtl_dir, truncate, wrap
from mcpnb.notebook.render.markdown import markdown_to_html

#: Files of a skill named under it (a server may list thousands: their names stay in ``.skill.files``).
FILES_NAMED = 20


def skill_bundle(loaded: Any) -> dict[str, Any]:
    """The display of a :class:`~mcpnb.client.server_skills.LoadedSkill`; its body past
    ``DEFAULTS.text_limit`` stays in ``.body``, not in the notebook file."""
    skill = loaded.skill
    shown, hidden = truncate(loaded.body, DEFAULTS.text_limit)
    more = f"… {hidden:,} more characters (the loaded skill's .body has all of it)" if hidden else ""
    others = [f.uri.removeprefix(skill.folder) for f in skill.files or () if f.uri != skill.uri]
    named = ", ".join(others[:FILES_NAMED]) + (
        f" and {len(others) - FILES_NAMED:,} more" if len(others) > FILES_NAMED else ""
    )
    files = f"its files: {named} (read one: .read('{others[0]}'))" if others else ""
    head = f'<div class="mcpnb-head"><span class="mcpnb-name">{esc(skill.server)}:{esc(skill.name)}</span>'
    described = without_ansi(skill.description)
    head += f'<span class="mcpnb-dim"{rtl_dir(described)}>{esc(described)}</span></div>'
    body = f'<div class="mcpnb-md"{rtl_dir(shown)}>{markdown_to_html(without_ansi(shown))}</div>'
    tail = "".join(f'<div class="mcpnb-dim">{esc(line)}</div>' for line in (more, files) if line)
    said = f" — {skill.description}" if skill.description else ""
    text = "\n".join(line for line in (f"{skill.server}:{skill.name}{said}", shown, more, files) if line)
    return {"text/plain": printable(text), "text/html": wrap(head, body, tail)}
