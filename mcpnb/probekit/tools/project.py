"""Project family: scan a folder, write a context summary, plan a feature, estimate, mock data.

These give a notebook real tables about a real tree (files by language, dependencies from the
manifests), which is what a person exploring a server wants to see first.
"""

import json
import random
import re
import string
import tomllib
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from mcpnb.probekit import schemas
from mcpnb.probekit.paths import confine, is_inside
from mcpnb.probekit.responses import Payload, ProbeError, structured, text_table
from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.tools.code import SKIP_DIRS

LANGUAGES = {
    ".py": "Python",
    ".pyi": "Python",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".jsx": "JavaScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".c": "C",
    ".h": "C",
    ".cpp": "C++",
    ".rb": "Ruby",
    ".md": "Markdown",
    ".rst": "reStructuredText",
    ".json": "JSON",
    ".toml": "TOML",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".html": "HTML",
    ".css": "CSS",
    ".sh": "Shell",
    ".ipynb": "Jupyter",
    ".txt": "Text",
    ".cfg": "INI",
    ".ini": "INI",
}
MAX_WALK = 5000


def walk(root: Path, start: Path) -> tuple[list[Path], int]:
    """Files under ``start`` that stay inside ``root``; skips vendored and cache folders."""
    files: list[Path] = []
    skipped = 0
    stack = [start]
    while stack and len(files) < MAX_WALK:
        cur = stack.pop()
        try:
            entries = sorted(cur.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink() and not is_inside(root, entry):
                skipped += 1
                continue
            if entry.is_dir():
                if entry.name in SKIP_DIRS or entry.name.startswith(".") or entry.is_symlink():
                    skipped += 1
                else:
                    stack.append(entry)
            elif entry.is_file():
                files.append(entry)
    return sorted(files), skipped


def _req_line(line: str) -> tuple[str, str] | None:
    line = line.split("#", 1)[0].strip()
    if not line or line.startswith(("-", "git+", "http")):
        return None
    m = re.match(r"([A-Za-z0-9_.\-\[\]]+)\s*(.*)", line)
    if not m:
        return None
    return re.sub(r"\[.*\]", "", m.group(1)), m.group(2).strip()


def dependencies(base: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Dependencies declared in pyproject.toml, requirements*.txt and package.json at ``base``."""
    deps: list[dict[str, Any]] = []
    manifests: list[str] = []
    pyproject = base / "pyproject.toml"
    if pyproject.is_file():
        manifests.append("pyproject.toml")
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ProbeError(f"pyproject.toml is not valid TOML: {exc}") from exc
        project = data.get("project", {})
        for spec in project.get("dependencies", []):
            if parsed := _req_line(spec):
                deps.append(
                    {
                        "name": parsed[0],
                        "spec": parsed[1],
                        "source": "pyproject.toml",
                        "ecosystem": "pypi",
                        "dev": False,
                    }
                )
        for group, specs in sorted(project.get("optional-dependencies", {}).items()):
            for spec in specs:
                if parsed := _req_line(spec):
                    deps.append(
                        {
                            "name": parsed[0],
                            "spec": parsed[1],
                            "source": f"pyproject.toml[{group}]",
                            "ecosystem": "pypi",
                            "dev": True,
                        }
                    )
    for req in sorted(base.glob("requirements*.txt")):
        manifests.append(req.name)
        for line in req.read_text(encoding="utf-8", errors="replace").splitlines():
            if parsed := _req_line(line):
                deps.append(
                    {
                        "name": parsed[0],
                        "spec": parsed[1],
                        "source": req.name,
                        "ecosystem": "pypi",
                        "dev": "dev" in req.name or "test" in req.name,
                    }
                )
    pkg = base / "package.json"
    if pkg.is_file():
        manifests.append("package.json")
        try:
            data = json.loads(pkg.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ProbeError(f"package.json is not valid JSON: {exc}") from exc
        for key, dev in (("dependencies", False), ("devDependencies", True)):
            for name, spec in sorted((data.get(key) or {}).items()):
                deps.append(
                    {
                        "name": name,
                        "spec": str(spec),
                        "source": "package.json",
                        "ecosystem": "npm",
                        "dev": dev,
                    }
                )
    return deps, manifests


def scan(root: Path, path: str = ".") -> dict[str, Any]:
    """The ``ProjectScan`` record for a folder inside the root."""
    base = confine(root, path)
    if not base.is_dir():
        raise ProbeError(f"{path!r} is not a folder inside {root}")
    files, skipped = walk(root, base)
    per_lang: dict[str, dict[str, int]] = {}
    sizes = []
    total_lines = 0
    for f in files:
        lang = LANGUAGES.get(f.suffix.lower(), "Other")
        size = f.stat().st_size
        try:
            lines = f.read_bytes().count(b"\n") if size < 2_000_000 else 0
        except OSError:
            lines = 0
        row = per_lang.setdefault(lang, {"files": 0, "bytes": 0, "lines": 0})
        row["files"] += 1
        row["bytes"] += size
        row["lines"] += lines
        total_lines += lines
        sizes.append({"path": f.relative_to(base).as_posix(), "bytes": size, "language": lang})
    languages = sorted(
        ({"language": k, **v} for k, v in per_lang.items()), key=lambda r: (-r["files"], r["language"])
    )
    deps, manifests = dependencies(base)
    largest = sorted(sizes, key=lambda r: (-r["bytes"], r["path"]))[:10]
    totals = {
        "files": len(files),
        "bytes": sum(s["bytes"] for s in sizes),
        "lines": total_lines,
        "skippedDirs": skipped,
    }
    return {
        "root": path,
        "totals": totals,
        "languages": languages,
        "dependencies": deps,
        "manifests": manifests,
        "largestFiles": largest,
    }


def project_context(root: Path, path: str = ".") -> dict[str, Any]:
    """A short context document for a project: name, main language, how to test and run it."""
    info = scan(root, path)
    base = confine(root, path)
    name = base.name or "project"
    pyproject = base / "pyproject.toml"
    if pyproject.is_file():
        name = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("name", name)
    code_langs = [
        r
        for r in info["languages"]
        if r["language"] not in {"Markdown", "JSON", "TOML", "YAML", "Text", "Other"}
    ]
    primary = (
        code_langs[0]["language"]
        if code_langs
        else (info["languages"][0]["language"] if info["languages"] else "none")
    )
    names = {d["name"].lower() for d in info["dependencies"]}
    commands = []
    if "pyproject.toml" in info["manifests"] or any(m.startswith("requirements") for m in info["manifests"]):
        commands.append(
            {
                "purpose": "install",
                "command": "pip install -e ."
                if "pyproject.toml" in info["manifests"]
                else "pip install -r requirements.txt",
            }
        )
    if "pytest" in names or (base / "tests").is_dir():
        commands.append({"purpose": "test", "command": "pytest"})
    if "ruff" in names:
        commands.append({"purpose": "lint", "command": "ruff check ."})
    if "package.json" in info["manifests"]:
        commands += [
            {"purpose": "install", "command": "npm install"},
            {"purpose": "test", "command": "npm test"},
        ]
    md = "\n".join(
        [
            f"# {name}",
            "",
            f"Primary language: {primary}. {info['totals']['files']} files, {info['totals']['lines']} lines.",
            "",
            "## Languages",
            "",
            *[f"- {r['language']}: {r['files']} files" for r in info["languages"]],
            "",
            "## Dependencies",
            "",
            *[
                f"- {d['name']} {d['spec']}".rstrip() + (" (dev)" if d["dev"] else "")
                for d in info["dependencies"]
            ],
            "",
            "## Commands",
            "",
            *[f"- {c['purpose']}: `{c['command']}`" for c in commands],
        ]
    )
    return {
        "root": path,
        "name": name,
        "primaryLanguage": primary,
        "languages": info["languages"],
        "dependencies": info["dependencies"],
        "commands": commands,
        "contextMarkdown": md + "\n",
    }


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


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The project family bound to this server's allowed root."""

    @structured(schemas.PROJECT_SCAN)
    def analyze_project(path: str = ".") -> Payload:
        """Scan a folder inside the allowed root: files, sizes and lines by language, and the dependencies
        declared in pyproject.toml, requirements*.txt and package.json."""
        data = scan(state.root, path)
        text = (
            f"{data['totals']['files']} files, {data['totals']['lines']} lines in {path}\n\n"
            + text_table(data["languages"], ["language", "files", "bytes", "lines"])
            + "\n\nDependencies:\n"
            + text_table(data["dependencies"], ["name", "spec", "source", "dev"])
        )
        return Payload(data, text)

    @structured(schemas.PROJECT_CONTEXT)
    def init_project_context(path: str = ".") -> Payload:
        """Write a short project context (name, main language, dependencies, install/test commands) as
        Markdown, ready to paste into a README or an agent's context file. Nothing is written to disk."""
        data = project_context(state.root, path)
        return Payload(data, data["contextMarkdown"])

    @structured(schemas.FEATURE_PLAN)
    def add_feature(feature: str, path: str = ".") -> Payload:
        """Plan a feature: keywords, the files that mention them (ranked), and the steps to take."""
        data = plan_feature(state.root, feature, path)
        return Payload(
            data,
            text_table(data["candidates"], ["path", "score", "matches"])
            + "\n\nSteps:\n"
            + text_table(data["steps"], ["order", "action", "path"]),
        )

    @structured(schemas.ESTIMATE)
    def estimate(task: str, files: int = 1, unknowns: int = 0) -> Payload:
        """Estimate a task in hours (optimistic/likely/pessimistic, PERT expected) and story points."""
        data = estimate_task(task, files, unknowns)
        return Payload(
            data,
            f"{data['points']} points; expected {data['expected']} h "
            f"({data['optimistic']}–{data['pessimistic']} h)\n\n"
            + text_table(data["factors"], ["factor", "weight", "reason"]),
        )

    @structured(schemas.MOCK_DATA)
    def gen_mock(schema: dict[str, Any], count: int = 5, seed: int = 0) -> Payload:
        """Generate `count` mock records from a JSON Schema; the same seed gives the same records."""
        if not 0 < count <= 1000:
            raise ProbeError("`count` must be between 1 and 1000.")
        rng = random.Random(seed)
        records = [mock_value(schema, rng) for _ in range(count)]
        flat = [r for r in records if isinstance(r, dict)]
        cols = list(flat[0])[:6] if flat else []
        text = text_table(flat, cols) if cols else json.dumps(records, indent=1)
        return Payload({"seed": seed, "count": count, "records": records}, text)

    return [analyze_project, init_project_context, add_feature, estimate, gen_mock]
