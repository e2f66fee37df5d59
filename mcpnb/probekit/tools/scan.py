"""Reading a project tree: files by language, dependencies from the manifests, a context summary.

Every path is confined to probe-kit's root (:mod:`mcpnb.probekit.paths`), so a lesson can point the
server at any folder without it reading anything outside.
"""

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from mcpnb.probekit.paths import confine, file_inside, is_inside
from mcpnb.probekit.responses import ProbeError
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


def dependencies(root: Path, base: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Dependencies declared in pyproject.toml, requirements*.txt and package.json at ``base``.

    A manifest that is a symlink out of ``root`` is not read (``/etc/passwd`` as requirements.txt).
    """
    deps: list[dict[str, Any]] = []
    manifests: list[str] = []
    pyproject = file_inside(root, base / "pyproject.toml")
    if pyproject is not None:
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
    for found in sorted(base.glob("requirements*.txt")):
        req = file_inside(root, found)
        if req is None:
            continue
        manifests.append(found.name)
        for line in req.read_text(encoding="utf-8", errors="replace").splitlines():
            if parsed := _req_line(line):
                deps.append(
                    {
                        "name": parsed[0],
                        "spec": parsed[1],
                        "source": found.name,
                        "ecosystem": "pypi",
                        "dev": "dev" in found.name or "test" in found.name,
                    }
                )
    pkg = file_inside(root, base / "package.json")
    if pkg is not None:
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
    deps, manifests = dependencies(root, base)
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
    pyproject = file_inside(root, base / "pyproject.toml")
    if pyproject is not None:
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
