"""Planning from a tree: which files a feature touches, a Fibonacci estimate, mock data from a schema.

Deterministic on purpose (seeded randomness, keyword matching): the same call gives the same answer,
so a lesson's expected output stays true.
"""

import random
import re
import string
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from mcpnb.probekit.paths import confine
from mcpnb.probekit.responses import ProbeError
from mcpnb.probekit.tools.scan import walk

STOP = {
    "the",
    "a",
    "an",
    "and",
    "or",
    "to",
    "of",
    "for",
    "in",
    "on",
    "with",
    "add",
    "new",
    "make",
    "support",
    "feature",
    "that",
    "so",
    "be",
    "can",
    "when",
    "it",
    "is",
    "as",
    "by",
    "from",
    "into",
}


def keywords(text: str) -> list[str]:
    words = re.findall(r"[a-z][a-z0-9_]+", text.lower())
    seen: list[str] = []
    for w in words:
        if w not in STOP and len(w) > 2 and w not in seen:
            seen.append(w)
    return seen


def plan_feature(root: Path, feature: str, path: str = ".") -> dict[str, Any]:
    """Which files a feature likely touches (keyword hits in names and text) and the steps to take."""
    if not feature.strip():
        raise ProbeError("Describe the feature in a sentence.")
    base = confine(root, path)
    keys = keywords(feature)
    candidates = []
    files, _ = walk(root, base)
    for f in files:
        if f.suffix.lower() not in {".py", ".js", ".ts", ".tsx", ".md"}:
            continue
        text = f.read_text(encoding="utf-8", errors="replace").lower() if f.stat().st_size < 500_000 else ""
        hits = {k: text.count(k) + 5 * f.stem.lower().count(k) for k in keys}
        hits = {k: v for k, v in hits.items() if v}
        if hits:
            candidates.append(
                {
                    "path": f.relative_to(base).as_posix(),
                    "score": sum(hits.values()),
                    "matches": ", ".join(sorted(hits)),
                }
            )
    candidates.sort(key=lambda c: (-c["score"], c["path"]))
    candidates = candidates[:10]
    slug = "_".join(keys[:3]) or "feature"
    steps = [
        {"order": i + 1, "action": f"Update {c['path']}", "path": c["path"]}
        for i, c in enumerate(candidates[:3])
    ]
    steps.append(
        {"order": len(steps) + 1, "action": f"Add tests for {slug}", "path": f"tests/test_{slug}.py"}
    )
    steps.append({"order": len(steps) + 1, "action": "Document the feature", "path": "README.md"})
    return {"feature": feature, "keywords": keys, "candidates": candidates, "steps": steps}


COMPLEX_WORDS = {
    "auth": 2.0,
    "oauth": 3.0,
    "migration": 2.5,
    "database": 1.5,
    "concurrency": 3.0,
    "async": 1.5,
    "security": 2.0,
    "cache": 1.0,
    "api": 1.0,
    "ui": 1.0,
    "refactor": 1.5,
    "integration": 2.0,
    "payment": 3.0,
    "realtime": 2.5,
    "distributed": 3.0,
    "encryption": 2.5,
    "search": 1.5,
}
FIB = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]


def estimate_task(task: str, files: int = 1, unknowns: int = 0) -> dict[str, Any]:
    """A three-point (PERT) estimate in hours from explainable factors, plus Fibonacci story points."""
    if files < 0 or unknowns < 0:
        raise ProbeError("`files` and `unknowns` must be zero or more.")
    words = keywords(task)
    factors = [{"factor": "base", "weight": 2.0, "reason": "every change needs a read, an edit and a test"}]
    for w in words:
        if w in COMPLEX_WORDS:
            factors.append(
                {"factor": w, "weight": COMPLEX_WORDS[w], "reason": f"'{w}' work tends to hide edge cases"}
            )
    if files > 1:
        factors.append(
            {"factor": "files", "weight": round(0.75 * (files - 1), 2), "reason": f"{files} files to change"}
        )
    if unknowns:
        factors.append(
            {"factor": "unknowns", "weight": 1.5 * unknowns, "reason": f"{unknowns} open question(s)"}
        )
    likely = round(sum(f["weight"] for f in factors), 2)
    optimistic = round(likely * 0.6, 2)
    pessimistic = round(likely * (1.8 + 0.4 * unknowns), 2)
    expected = round((optimistic + 4 * likely + pessimistic) / 6, 2)
    std = round((pessimistic - optimistic) / 6, 2)
    points = next((p for p in FIB if p >= expected / 2), FIB[-1])
    return {
        "task": task,
        "optimistic": optimistic,
        "likely": likely,
        "pessimistic": pessimistic,
        "expected": expected,
        "stdDev": std,
        "points": points,
        "factors": factors,
    }


def mock_value(schema: dict[str, Any], rng: random.Random, name: str = "", depth: int = 0) -> Any:
    """One value for a JSON Schema; deterministic for a seeded ``rng``."""
    if depth > 6:
        return None
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: mock_value(v, rng, k, depth + 1) for k, v in props.items()}
    if kind == "array":
        n = rng.randint(schema.get("minItems", 1), max(schema.get("minItems", 1), schema.get("maxItems", 3)))
        return [mock_value(schema.get("items", {}), rng, name, depth + 1) for _ in range(n)]
    if kind == "integer":
        return rng.randint(int(schema.get("minimum", 0)), int(schema.get("maximum", 1000)))
    if kind == "number":
        return round(rng.uniform(float(schema.get("minimum", 0)), float(schema.get("maximum", 1000))), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    fmt = schema.get("format", "")
    if fmt == "email" or "email" in name.lower():
        return f"{_word(rng)}.{_word(rng)}@example.com"
    if fmt == "uuid" or name.lower() in {"id", "uuid"}:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if fmt == "date":
        return (date(2024, 1, 1) + timedelta(days=rng.randint(0, 730))).isoformat()
    if fmt == "date-time":
        start = datetime(2024, 1, 1, tzinfo=UTC)
        return (start + timedelta(seconds=rng.randint(0, 63_000_000))).isoformat().replace("+00:00", "Z")
    if "name" in name.lower():
        return f"{_word(rng).capitalize()} {_word(rng).capitalize()}"
    lo, hi = int(schema.get("minLength", 4)), int(schema.get("maxLength", 12))
    return "".join(
        rng.choice(string.ascii_lowercase) for _ in range(rng.randint(lo, max(lo, min(hi, lo + 8))))
    )


SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "de", "pa", "zo", "li"]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
