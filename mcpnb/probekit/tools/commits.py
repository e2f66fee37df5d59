"""Commit messages without a diff, and the text every ``CommitMessage`` reads as.

``gencommit`` works from a unified diff (:mod:`.git`) or, as the design has it, from ``changes``: a
plain summary a person writes ("added the login form; fixed a crash in the parser"). The same
keyword rules pick the type, so a class can compare the two.
"""

from __future__ import annotations

import re
from typing import Any

from mcpnb.probekit.responses import Payload

#: First matching rule wins: (type, words that point to it).
TYPE_RULES: tuple[tuple[str, str], ...] = (
    ("fix", r"\b(fix(e[sd])?|bug|crash|error|wrong|broken)\b"),
    ("docs", r"\b(docs?|documentation|readme|typo)\b"),
    ("test", r"\btests?\b"),
    ("perf", r"\b(faster|speed|perf(ormance)?|cache)\b"),
    ("refactor", r"\b(refactor(ed)?|rename[sd]?|clean(ed)? up|simplif(y|ied))\b"),
    ("ci", r"\b(ci|pipeline|workflow)\b"),
    ("build", r"\b(dependenc(y|ies)|bump(ed)?|build)\b"),
    ("feat", r"\b(add(s|ed)?|new|introduce[sd]?|support(s|ed)?|implement(s|ed)?)\b"),
)


def issue_footers(issue: str | None) -> list[str]:
    """``Refs: #N`` for every number in ``issue`` ("#42", "42, 43")."""
    return [f"Refs: #{ref}" for ref in re.findall(r"#?(\d+)", issue or "")]


def commit_type(text: str) -> str:
    lowered = text.lower()
    return next((kind for kind, words in TYPE_RULES if re.search(words, lowered)), "chore")


def commit_from_changes(changes: str, scope: str | None = None, issue: str | None = None) -> Payload:
    """A ``CommitMessage`` from a summary: one change per line or per ``;``."""
    items = [c.strip(" -*•\t") for c in re.split(r"[\n;]+", changes) if c.strip(" -*•\t")]
    ctype = commit_type(" ".join(items))
    breaking = any(re.search(r"\bbreaking\b", i, re.I) for i in items)
    subject = items[0][0].lower() + items[0][1:] if items[0][:1].isupper() else items[0]
    subject = subject.rstrip(".")
    body = "\n".join(f"- {i}" for i in items[1:])
    footers = (
        [f"BREAKING CHANGE: {next(i for i in items if re.search('breaking', i, re.I))}"] if breaking else []
    )
    footers += issue_footers(issue)
    head = f"{ctype}{f'({scope})' if scope else ''}{'!' if breaking else ''}: {subject}"
    final = "\n\n".join(part for part in (head, body, "\n".join(footers)) if part)
    data: dict[str, Any] = {
        "type": ctype,
        **({"scope": scope} if scope else {}),
        "subject": subject,
        "body": body,
        "breaking": breaking,
        "footers": footers,
        "finalMessage": final,
        "files": [],
    }
    return Payload(data, commit_text(data))


def commit_text(data: dict[str, Any]) -> str:
    """The design's text fallback: the message, then its type, scope and whether it breaks."""
    return (
        f"{data['finalMessage']}\n\n"
        f"type: {data['type']}\n"
        f"scope: {data.get('scope') or '(none)'}\n"
        f"breaking: {'yes' if data['breaking'] else 'no'}"
    )
