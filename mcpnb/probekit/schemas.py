"""Output schemas (JSON Schema 2020-12), one per tool family.

Published as each tool's ``outputSchema`` so a client can validate results and a notebook can turn
the list-valued fields into tables. Records stay flat (strings, numbers, booleans) wherever a
person would want a DataFrame.
"""

from __future__ import annotations

from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"

S: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer"}
N: dict[str, Any] = {"type": "number"}
B: dict[str, Any] = {"type": "boolean"}
OPT_S: dict[str, Any] = {"type": ["string", "null"]}
OPT_I: dict[str, Any] = {"type": ["integer", "null"]}
DATE_TIME: dict[str, Any] = {"type": "string", "format": "date-time"}


def obj(props: dict[str, Any], required: list[str] | None = None, *, extra: bool = False) -> dict[str, Any]:
    """An object schema; closed by default so a typo in a tool is caught by the contract tests."""
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": extra}
    out["required"] = list(props) if required is None else required
    return out


def arr(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def enum(*values: str) -> dict[str, Any]:
    return {"type": "string", "enum": list(values)}


def top(title: str, props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A published top-level schema: dialect, title, closed object."""
    return {"$schema": DIALECT, "title": title, **obj(props, required)}


SEVERITY = enum("info", "low", "medium", "high", "critical")
COMMIT_TYPES = ("feat", "fix", "docs", "style", "refactor", "test", "chore", "perf", "build", "ci", "revert")

WORKFLOW_REPORT = top(
    "WorkflowReport",
    {
        "workflowName": S,
        "summary": S,
        "steps": arr(
            obj(
                {
                    "name": S,
                    "status": enum("pending", "running", "completed", "failed", "skipped"),
                    "input": {"type": "object"},  # what the step was given, by name
                    "outputs": arr(S),  # what it produced, one line each
                    "notes": S,
                    "duration": N,
                },
                ["name", "status"],
            )
        ),
        "artifacts": arr(
            obj(
                {
                    "type": enum("file", "code", "config", "doc", "test"),
                    "path": S,
                    "description": S,
                    "contentPreview": S,
                },
                ["type", "path", "description"],
            )
        ),
        "risks": arr(obj({"level": enum("low", "medium", "high"), "description": S, "mitigation": S})),
        "assumptions": arr(S),
        "nextActions": arr(obj({"priority": INT, "action": S, "reason": S})),
        "timestamps": obj({"started": DATE_TIME, "completed": DATE_TIME}, ["started"]),
    },
    ["workflowName", "summary", "steps", "nextActions"],
)

COMMIT_MESSAGE = top(
    "CommitMessage",
    {
        "type": enum(*COMMIT_TYPES),
        "scope": S,  # omitted when the change has no scope
        "subject": S,
        "body": S,
        "breaking": B,
        "footers": arr(S),  # "BREAKING CHANGE: ...", "Refs: #42"
        "finalMessage": S,
        "files": arr(
            obj(
                {
                    "path": S,
                    "change": enum("added", "modified", "deleted", "renamed"),
                    "added": INT,
                    "removed": INT,
                }
            )
        ),
    },
    ["type", "subject", "finalMessage"],
)

CHANGELOG = top(
    "Changelog",
    {
        "version": S,
        "source": enum("given", "git"),
        "entries": arr(
            obj({"type": S, "section": S, "scope": OPT_S, "subject": S, "breaking": B, "hash": S})
        ),
        "sections": arr(obj({"section": S, "count": INT})),
        "markdown": S,
    },
)

PULL_REQUEST = top(
    "PullRequest",
    {
        "title": S,
        "body": S,
        "labels": arr(S),
        "files": arr(obj({"path": S, "change": S, "added": INT, "removed": INT})),
        "checklist": arr(obj({"item": S, "done": B})),
        "breaking": B,
    },
)

FINDING = obj(
    {
        "rule": S,
        "category": enum("security", "review", "perf", "debug"),
        "severity": SEVERITY,
        "file": S,
        "line": INT,
        "message": S,
        "suggestion": S,
    }
)

FINDINGS = top(
    "Findings",
    {
        "tool": S,
        "target": S,
        "findings": arr(FINDING),
        "counts": arr(obj({"severity": S, "count": INT})),
        "related": arr(obj({"file": S, "line": INT, "function": S, "code": S})),
    },
    ["tool", "target", "findings", "counts"],
)

FIX_RESULT = top(
    "FixResult",
    {
        "target": S,
        "changes": arr(obj({"rule": S, "line": INT, "before": S, "after": S})),
        "remaining": arr(FINDING),
        "fixedSource": S,
        "diff": S,
    },
)

API_DOC = top(
    "ApiDoc",
    {
        "target": S,
        "symbols": arr(
            obj(
                {
                    "name": S,
                    "kind": enum("function", "class", "method"),
                    "signature": S,
                    "line": INT,
                    "doc": S,
                    "file": S,
                }
            )
        ),
        "markdown": S,
    },
)

TEST_SKELETON = top(
    "TestSkeleton",
    {"target": S, "module": S, "tests": arr(obj({"test": S, "target": S, "line": INT})), "code": S},
)

LANG_ROW = obj({"language": S, "files": INT, "bytes": INT, "lines": INT})
DEP_ROW = obj({"name": S, "spec": S, "source": S, "ecosystem": S, "dev": B})

PROJECT_SCAN = top(
    "ProjectScan",
    {
        "root": S,
        "totals": obj({"files": INT, "bytes": INT, "lines": INT, "skippedDirs": INT}),
        "languages": arr(LANG_ROW),
        "dependencies": arr(DEP_ROW),
        "manifests": arr(S),
        "largestFiles": arr(obj({"path": S, "bytes": INT, "language": S})),
    },
)

PROJECT_CONTEXT = top(
    "ProjectContext",
    {
        "root": S,
        "name": S,
        "primaryLanguage": S,
        "languages": arr(LANG_ROW),
        "dependencies": arr(DEP_ROW),
        "commands": arr(obj({"purpose": S, "command": S})),
        "contextMarkdown": S,
    },
)

FEATURE_PLAN = top(
    "FeaturePlan",
    {
        "feature": S,
        "keywords": arr(S),
        "candidates": arr(obj({"path": S, "score": INT, "matches": S})),
        "steps": arr(obj({"order": INT, "action": S, "path": S})),
    },
)

ESTIMATE = top(
    "Estimate",
    {
        "task": S,
        "optimistic": N,
        "likely": N,
        "pessimistic": N,
        "expected": N,
        "stdDev": N,
        "points": INT,
        "factors": arr(obj({"factor": S, "weight": N, "reason": S})),
    },
)

MOCK_DATA = top(
    "MockData",
    {
        "seed": INT,
        "count": INT,
        "records": arr({"type": ["object", "string", "number", "integer", "boolean", "null"]}),
    },
)

UI_SEARCH = top(
    "UiSearch",
    {
        "query": S,
        "results": arr(obj({"rank": INT, "id": S, "name": S, "category": S, "score": N, "description": S})),
    },
)

DESIGN_SYSTEM = top(
    "DesignSystem",
    {
        "name": S,
        "tokens": arr(obj({"group": S, "name": S, "value": S})),
        "css": S,
    },
)

UI_CODE = top(
    "UiCode",
    {
        "framework": enum("html", "react", "vue"),
        "components": arr(obj({"id": S, "name": S, "props": S})),
        "files": arr(obj({"path": S, "language": S, "content": S})),
        "warnings": arr(S),
    },
)

CATALOG = top(
    "Catalog",
    {
        "version": S,
        "source": S,
        "checksum": S,
        "components": INT,
        "categories": arr(obj({"category": S, "count": INT})),
        "changed": B,
    },
)

ANSWERS = top(
    "Answers",
    {
        "action": enum("accept", "decline", "cancel", "text"),  # text: asked as text (no forms)
        "answers": arr(obj({"question": S, "answer": S})),
        "message": S,
    },
)

PAGE = top(
    "PageConsent",
    {
        "action": enum("accept", "decline", "cancel"),
        "path": S,
        "url": S,
        "title": S,
        "bytes": INT,
        "preview": S,
    },
)

SLOW_JOB = top(
    "SlowJob",
    {
        "steps": arr(obj({"step": INT, "primes": INT, "largest": INT})),
        "totalPrimes": INT,
        "upTo": INT,
        "confirmed": {"type": ["boolean", "null"]},
    },
)

DICE = top("Dice", {"rolls": arr(INT), "total": INT, "sides": INT})

DICE_HISTORY = top("DiceHistory", {"totals": arr(INT)})
