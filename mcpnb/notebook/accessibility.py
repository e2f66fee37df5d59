"""What keyboard and screen-reader users need of a panel that ipywidgets cannot say by itself.

ipywidgets sets no attribute of our choosing, runs no script of ours and styles only through its
``Layout``/``Style`` traits. Three things need more:

* JupyterLab and Notebook 7 read a key pressed on a ``<select>``, a checkbox, a radio or a button
  in an output as a notebook shortcut (the notebook is in command mode there): ``B`` inserted a
  cell, ``R`` turned the running cell Raw (the form vanished while the kernel waited), ``D D``
  deleted it. Lumino's key matcher (``CommandRegistry``) walks up from the key's target and stops
  at an element with ``data-lm-suppress-shortcuts`` (JupyterLab's own shortcut editor uses it);
  the notebook's selectors end in ``:focus``, so the mark goes on the focused element itself.
* A panel that answers disables its buttons or is replaced by its record: the focus fell to
  ``<body>`` and a keyboard user started again at the top of the page.
* After a failed Accept the focus should land on the first field to fix.

So every panel carries :func:`page_aids`: a hidden ``Output`` with one small ``application/javascript``
output (JupyterLab's and Notebook 7's own renderer runs it: the widget manager makes an ``Output``
widget's outputs trusted, restored widget state of a notebook never trusted included; the script is
a constant, so no server's text ever reaches it), installed once per page, and a ``<style>`` for a
visible focus ring and labels kept for screen readers only. Elsewhere (VS Code, nbconvert, a saved
notebook without widget state) nothing runs and nothing breaks: the panel works as before, without
these aids. The script sets that attribute only on the focused control inside our roots
(:data:`ROOT_CLASS`), and only for keys without Ctrl, Alt or Meta (JupyterLab's chords, Ctrl+S,
stay JupyterLab's); it names groups from ``data-mcpnb-name``; it moves the focus that one of our
panels dropped, within that panel's cell only; it sends nothing.
"""

from __future__ import annotations

import itertools
from typing import Any

from mcpnb.notebook.render.html import esc

#: Every panel that carries :func:`page_aids`: notebook shortcuts are off while the focus is inside.
ROOT_CLASS = "mcpnb-a11y"
#: An element that takes the focus a panel of ours has just dropped (its record, its status line).
FOCUS_HERE = "mcpnb-focus-here"
#: Inserted with a failed Accept's message: the focus goes to the first field marked :data:`INVALID`.
FOCUS_INVALID = "mcpnb-focus-invalid"
#: A field box whose value is wrong (its error line shown).
INVALID = "mcpnb-invalid"
#: A group of radios or checkboxes: the script names it (``role="group"``/``"radiogroup"``) after the
#: field's title, the ``data-mcpnb-name`` of its bold label, where ipywidgets names nothing.
GROUP = "mcpnb-group"
#: One field's box (its label, its input, its error line).
FIELD = "mcpnb-field"
#: An input whose ipywidgets ``description`` is its accessible name only (the bold title above it is
#: what people see).
NAMED = "mcpnb-named"

_SR_ONLY = (
    "position:absolute !important;width:1px !important;height:1px !important;overflow:hidden;"
    "clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap;margin:0 !important;padding:0 !important;"
    "border:0;min-width:0 !important"
)

STYLE = f"""<style>
.{ROOT_CLASS} :focus-visible {{outline: 2px solid var(--jp-brand-color0, #0d47a1) !important;
  outline-offset: 1px;}}
.{ROOT_CLASS} .{FOCUS_HERE}:focus {{outline: 2px solid var(--jp-brand-color0, #0d47a1); outline-offset: 2px;}}
.{NAMED} > .widget-label, .{NAMED} .widget-label-basic > span {{{_SR_ONLY}}}
</style>"""

#: Runs once per page (a flag on ``window``), however many panels carry it.
SCRIPT = f"""(() => {{
  if (window.__mcpnbA11y) return;
  window.__mcpnbA11y = true;
  const ROOT = '.{ROOT_CLASS}';
  const FIELDS = 'input:not([type=hidden]), select, textarea, button, [tabindex]:not([tabindex="-1"])';
  const cellOf = (el) => (el && el.closest ? el.closest('.jp-Cell') : null);
  let last = null;  // the element of ours that had the focus last, while the focus is ours
  let lastCell = null;  // and its cell: the focus is handed back only there
  document.addEventListener('focusin', (e) => {{
    const root = e.target && e.target.closest ? e.target.closest(ROOT) : null;
    last = root ? e.target : null;
    lastCell = root ? cellOf(e.target) : null;
  }}, true);
  // A plain key (a letter, an arrow, Enter) on a control of ours is the control's: the mark goes
  // on the element itself (a notebook shortcut's selector ends in ":focus", matched at the key's
  // target). A chord (Ctrl+S, Ctrl+Shift+C) stays JupyterLab's: Lumino skips every binding at a
  // marked target, so the mark comes off for it. Text fields need none (they are editable), and
  // keep what they did (Escape to command mode). On window, capturing: before Lumino hears it.
  const TEXTY = /^(text|search|email|url|tel|password|number|date|datetime-local|time|month|week)$/;
  window.addEventListener('keydown', (e) => {{
    const t = e.target;
    if (!t || !t.closest || !t.closest(ROOT) || t.isContentEditable) return;
    if (t.tagName === 'TEXTAREA' || (t.tagName === 'INPUT' && TEXTY.test(t.type))) return;
    if (e.ctrlKey || e.metaKey || e.altKey) t.removeAttribute('data-lm-suppress-shortcuts');
    else t.setAttribute('data-lm-suppress-shortcuts', 'true');
  }}, true);
  // the focus was last in a panel of ours, and that panel dropped it (disabled, or replaced)
  const dropped = () => {{
    const a = document.activeElement;
    if (!last) return false;
    return !a || a === document.body || (a === last && (last.disabled || !last.isConnected));
  }};
  const take = (el) => {{
    const invalid = el.classList.contains('{FOCUS_INVALID}') ? el : el.querySelector('.{FOCUS_INVALID}');
    if (invalid) {{
      const root = invalid.closest(ROOT);
      const box = root && root.querySelector('.{INVALID}');
      const field = box && box.querySelector(FIELDS);
      const a = document.activeElement;
      // never from someone typing elsewhere: only from this panel, or from nowhere in its cell
      const mine = root && (root.contains(a) || ((!a || a === document.body) && cellOf(root) === lastCell));
      if (field && mine) field.focus();
      return;
    }}
    const here = el.classList.contains('{FOCUS_HERE}') ? el : el.querySelector('.{FOCUS_HERE}');
    // (only in the cell that dropped it: a record inserted elsewhere, or again, takes nothing; the
    // focus it takes is on a record outside our panels, which ends the chain, see focusin)
    if (here && dropped() && cellOf(here) === lastCell) here.focus({{preventScroll: true}});
  }};
  // what ipywidgets leaves unnamed: a radio group, a row of checkboxes, a slider's handle
  const name = (field) => {{
    const title = field.querySelector('[data-mcpnb-name]');
    if (!title) return;
    const label = title.getAttribute('data-mcpnb-name');
    for (const g of field.querySelectorAll('.{GROUP}')) {{
      if (!g.querySelector('.widget-radio-box')) g.setAttribute('role', 'group');
      if (!g.querySelector('.widget-radio-box')) g.setAttribute('aria-label', label);
    }}
    for (const r of field.querySelectorAll('.widget-radio-box')) {{
      r.setAttribute('role', 'radiogroup');
      r.setAttribute('aria-label', label);
    }}
    for (const s of field.querySelectorAll('[role=slider], .widget-readout')) {{
      s.setAttribute('aria-label', label);
    }}
  }};
  // a widget's parts arrive in pieces (its classes, its children): name the field again a moment later
  const soon = new Set();
  const later = (f) => {{
    name(f);
    if (soon.has(f)) return;
    soon.add(f);
    setTimeout(() => {{ soon.delete(f); name(f); }}, 50);
  }};
  const fields = (n) => {{
    const own = n.closest('.{FIELD}');
    if (own) later(own);
    for (const f of n.getElementsByClassName('{FIELD}')) later(f);
  }};
  new MutationObserver((records) => {{
    for (const r of records) for (const n of r.addedNodes) {{
      if (n.nodeType !== 1) continue;
      fields(n);
      const mine = (c) => n.classList.contains(c) || n.getElementsByClassName(c).length;
      if (mine('{FOCUS_HERE}') || mine('{FOCUS_INVALID}')) take(n);
    }}
  }}).observe(document.body, {{childList: true, subtree: true}});
}})();"""


#: Buttons that warn or succeed, in colours whose white label reads at least 4.5:1 (WCAG AA) in any
#: theme: ipywidgets' ``warning`` (JupyterLab's orange, 2.7:1) and ``success`` (4.1:1) fall short.
WARNING_BUTTON = {"button_color": "#bf360c", "text_color": "#ffffff"}
SUCCESS_BUTTON = {"button_color": "#2e7d32", "text_color": "#ffffff"}


def page_aids() -> list[Any]:
    """Two invisible widgets to put in a panel's root (which then gets :func:`mark_root`)."""
    import ipywidgets as w

    style = w.HTML(STYLE, layout=w.Layout(display="none"))
    script = w.Output(layout=w.Layout(display="none"))
    script.outputs = (
        {
            "output_type": "display_data",
            "data": {"application/javascript": SCRIPT, "text/plain": ""},
            "metadata": {},
        },
    )
    return [style, script]


def mark_root(widget: Any) -> Any:
    """``widget`` is a panel of ours: its keys are its own (see the module)."""
    widget.add_class(ROOT_CLASS)
    return widget


def live(inner_html: str, *, alert: bool = False, focus: bool = False) -> str:
    """``inner_html`` in a live region, inserted with it: a screen reader says it as it appears
    (``alert``: at once, for errors; else politely). ``focus``: it takes the focus its panel has
    just dropped (an answered form's disabled buttons, a form replaced by its record)."""
    if not inner_html:
        return ""
    role = 'role="alert"' if alert else 'role="status" aria-live="polite"'
    take = f' class="{FOCUS_HERE}" tabindex="-1"' if focus else ""
    return f"<div {role}{take}>{inner_html}</div>"


_alerts = itertools.count()


def alert_to_fix(inner_html: str) -> str:
    """A failed Accept's message: said at once, and the focus goes to the first field to fix (by
    the script, which never takes it from someone typing elsewhere). Numbered, so the same failure
    twice is new HTML: inserted again, said again, and the focus moved again."""
    return f'<div role="alert" class="{FOCUS_INVALID}" data-n="{next(_alerts)}">{inner_html}</div>'


def required_name(title: str, required: bool) -> str:
    """A field's accessible name: its title, and "required" where it is (a red star is not read)."""
    return f"{title} (required)" if required else title


def sr_text(text: str) -> str:
    """Words for screen readers only (a group's name next to its visible bold title)."""
    return f'<span style="{_SR_ONLY}">{esc(text)}</span>'
