"""The one door from the client room to the notebook room: how client objects look in Jupyter.

The client never imports IPython, ipywidgets or :mod:`mcpnb.notebook` on its own paths, so a script,
a test or a web service uses it without them. Its data objects (results, status tables, tool lists,
transcripts, task handles) still render richly in a notebook: their ``_repr_mimebundle_`` comes here,
and only then, when a frontend is asking, the notebook room's renderers are imported by name.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any

RENDERERS = "mcpnb.notebook.render"


def mimebundle(obj: Any) -> dict[str, Any]:
    """The rich display of ``obj`` (``text/plain`` always, ``text/html`` and images where they help)."""
    return import_module(RENDERERS).bundle(obj)


def show(bundle: dict[str, str], display_id: str | None = None) -> None:
    """Show ``bundle`` in the running notebook if there is one, else print its text.

    ``display_id`` lets :func:`replace` change it in place later. Only an IPython that is already
    loaded is used: a plain Python process never imports it here.
    """
    if _in_ipython():
        from IPython.display import display

        display(bundle, raw=True, display_id=display_id)
        return
    print(bundle["text/plain"], flush=True)


def replace(bundle: dict[str, str], display_id: str) -> None:
    """Replace what :func:`show` showed under ``display_id`` (elsewhere: print the news)."""
    if _in_ipython():
        from IPython.display import update_display

        update_display(bundle, raw=True, display_id=display_id)
        return
    print(bundle["text/plain"], flush=True)


def offer_paste(url: str, deliver: Any) -> Any:
    """The notebook's paste box under a sign-in link (None outside IPython, or where none shows)."""
    if not _in_ipython():
        return None
    return import_module("mcpnb.notebook.cell.signin").offer_paste(url, deliver)


def nobody_can_sign_in() -> str | None:
    """Why nobody can follow a sign-in link in the cell being run (a notebook run headless), or
    None: outside IPython someone may read a printed link."""
    if not _in_ipython():
        return None
    return import_module("mcpnb.notebook.cell.signin").why_nobody_can_sign_in()


def _in_ipython() -> bool:
    """A shell runs here (asked of the notebook room only where IPython is loaded at all)."""
    return "IPython" in sys.modules and import_module("mcpnb.notebook.frontend").current_shell() is not None
