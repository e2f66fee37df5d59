"""Exercises that check themselves: a registry of named exercises, ``check`` and ``hint``.

A lesson ends with exercises; each has a name (``"06.arguments"``), a checker and a few hints. The
checker looks at what the student made and either raises :class:`Wrong` with a sentence that
*teaches* (what is off, in the lesson's own words, and where to look) or returns a short note on
why the right answer is right. ``check`` never raises: a notebook run top to bottom (Run All, CI)
keeps going past an exercise that is not done yet or not right yet, and the verdict shows in the
cell. Hints come one at a time, on request, so a student can ask for as little help as they need.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcpnb.notebook.frontend import current_shell

Checker = Callable[[Any], str]

#: Where the worked solutions live, for the message after the last hint: relative to the lesson's
#: own folder (``notebooks/``), where the student's file browser already is.
SOLUTIONS = "solutions/"


class Wrong(Exception):
    """Raised by a checker: the message is what the student reads, so it says what to change."""


@dataclass
class Exercise:
    name: str
    checker: Checker
    hints: list[str] = field(default_factory=list)
    notebook: str = ""  # the notebook's file name, for "the solution is in ..."
    shown: int = 0  # hints revealed so far


@dataclass(frozen=True)
class Verdict:
    """What ``check`` says: ``passed`` True/False, or None while the answer is still ``...``."""

    name: str
    passed: bool | None
    message: str

    @property
    def mark(self) -> str:
        return {True: "✓", False: "✗", None: "…"}[self.passed]

    def __bool__(self) -> bool:
        return bool(self.passed)

    def __repr__(self) -> str:
        return f"{self.mark} {self.name}: {self.message}"

    def _repr_html_(self) -> str:
        colour = {True: "#1a7f37", False: "#cf222e", None: "#6e7781"}[self.passed]
        return (
            f"<div class='mcpnb-verdict' style='border-left:4px solid {colour};padding:4px 8px'>"
            f"<b style='color:{colour}'>{self.mark} {html.escape(self.name)}</b> "
            f"{_code(self.message)}</div>"
        )


def _code(text: str) -> str:
    """Escape, then show `backticked` words as code (the messages use Markdown's backticks)."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


EXERCISES: dict[str, Exercise] = {}


def course_pool() -> Any:
    """The pool the lessons connect their servers in (the notebook's default pool).

    Checkers that ask a server (for the real schema, say) go through here, so tests can point them
    at a pool of their own.
    """
    import mcpnb

    return mcpnb.default_pool()


def lesson_variables() -> Mapping[str, Any]:
    """The notebook's variables (IPython's user namespace), or {} outside IPython.

    A checker compares an answer with what the lesson itself made (08's ``long``, say): a handle the
    lesson started is not one the student started. Tests point it at a dict of their own.
    """
    shell = current_shell()
    return shell.user_ns if shell is not None else {}


def number(value: Any) -> int | float | None:
    """A number as Python's own int or float, whatever made it: ``2``, ``2.5``, numpy's ``int64``
    and ``float64`` (what pandas and numpy hand a student), a ``Decimal``. None for a bool (Python
    counts True as 1, a student does not), text, NaN or anything else. Every checker that wants a
    number reads it through here, so one lesson does not refuse what another accepts."""
    import math
    import numbers
    from decimal import Decimal

    if isinstance(value, bool) or not isinstance(value, numbers.Real | Decimal):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    as_float = float(value)
    return None if math.isnan(as_float) else as_float


def whole_number(value: Any) -> int | None:
    """``2``, ``2.0`` or ``np.int64(2)`` as the int it is; None for what :func:`number` refuses and
    for a fraction (or an infinity)."""
    found = number(value)
    if isinstance(found, float):
        return int(found) if found.is_integer() else None
    return found


def exercise(name: str, *, hints: list[str], notebook: str = "") -> Callable[[Checker], Checker]:
    """Register the decorated checker as exercise ``name`` (other lessons add theirs the same way)."""

    def register(checker: Checker) -> Checker:
        EXERCISES[name] = Exercise(name, checker, list(hints), notebook)
        return checker

    return register


def _find(name: str) -> Exercise:
    from mcpnb.client.errors import did_you_mean_text

    try:
        return EXERCISES[name]
    except KeyError:
        raise KeyError(f"no exercise named {name!r}{did_you_mean_text(name, list(EXERCISES))}") from None


def check(name: str, value: Any) -> Verdict:
    """Check ``value`` as the answer to exercise ``name`` and say what you think of it."""
    try:
        ex = _find(name)
    except KeyError as unknown:  # a mistyped name: say so in the cell, and Run All goes on
        return Verdict(name, False, unknown.args[0])
    if _unanswered(value):
        return Verdict(
            name, None, f"not answered yet: replace `...` with your answer (`teach.hint({name!r})` helps)"
        )
    try:
        note = ex.checker(value)
    except Wrong as wrong:
        return Verdict(name, False, f"{wrong} (stuck? `teach.hint({name!r})`)")
    except Exception as exc:  # an answer shaped like nothing the checker expected: say so, go on
        return Verdict(name, False, f"the check could not read this answer ({type(exc).__name__}: {exc})")
    return Verdict(name, True, note or "right")


def _unanswered(value: Any) -> bool:
    """``...`` itself, or a dict/list the lesson handed out with ``...`` still in it."""
    if value is ...:
        return True
    if isinstance(value, dict):
        return any(v is ... for v in value.values())
    return isinstance(value, list | tuple) and any(v is ... for v in value)


@dataclass(frozen=True)
class Hint:
    name: str
    text: str

    def __repr__(self) -> str:
        return f"💡 {self.name}: {self.text}"

    def _repr_html_(self) -> str:
        return f"<div class='mcpnb-hint'>💡 <b>{html.escape(self.name)}</b> {_code(self.text)}</div>"


def hint(name: str) -> Hint:
    """The next hint for exercise ``name`` (each call reveals one more)."""
    try:
        ex = _find(name)
    except KeyError as unknown:
        return Hint(name, unknown.args[0])
    if ex.shown >= len(ex.hints):
        where = SOLUTIONS + (ex.notebook.replace(".ipynb", ".md") if ex.notebook else "")
        return Hint(name, f"no more hints; the worked solution is in `{where}` (next to this notebook)")
    ex.shown += 1
    return Hint(name, f"({ex.shown}/{len(ex.hints)}) {ex.hints[ex.shown - 1]}")
