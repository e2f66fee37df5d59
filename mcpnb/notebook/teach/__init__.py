"""``mcpnb.teach``: exercises that check themselves, for the course in ``notebooks/``.

In a lesson::

    from mcpnb import teach
    args = {"query": "date picker", "limit": "2"}
    teach.check("06.arguments", args)   # ✗ 06.arguments: your arguments send `limit` as a string ...
    teach.hint("06.arguments")          # 💡 one more hint each time

``check`` never raises (Run All goes on); an answer left as ``...`` is "not answered yet".
``teach.Wire`` speaks JSON-RPC by hand, to show what a client normally hides. Lessons register their
exercises with :func:`exercise`; the ones of notebooks 06–10 load with this package.
"""

from __future__ import annotations

from mcpnb.notebook.teach import (  # noqa: F401 (registers)
    long_tasks,
    mcp_apps,
    resilience,
    structured_output,
    two_eras,
)
from mcpnb.notebook.teach.exercises import EXERCISES, Verdict, Wrong, check, exercise, hint
from mcpnb.notebook.teach.schema_words import explain
from mcpnb.notebook.teach.wire import Exchange, Wire

__all__ = ["EXERCISES", "Exchange", "Verdict", "Wire", "Wrong", "check", "exercise", "explain", "hint"]
