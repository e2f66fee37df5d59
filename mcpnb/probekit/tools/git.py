"""Git family: commit messages from diffs, changelogs from commit messages, PR descriptions.

Deterministic rules instead of a model, so the same diff always gives the same message and a class
can discuss why the tool chose ``feat`` over ``fix``. Running git itself (confined to the root, with
no config that starts anything) is :mod:`.gitcmd`'s job.
"""

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from mcpnb.probekit import schemas
from mcpnb.probekit.paths import confine
from mcpnb.probekit.responses import Payload, ProbeError, structured, text_table
from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.tools.commits import commit_from_changes, commit_text, issue_footers
from mcpnb.probekit.tools.gitcmd import SAFE_CONFIG, find_repository, git_log, run_git  # noqa: F401 (their old home)


@dataclass
class FileChange:
    """One file of a unified diff, with the lines it adds and removes."""

    path: str
    change: str = "modified"
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def parse_diff(diff: str) -> list[FileChange]:
    """Split a unified diff (``git diff`` or plain ``diff -u``) into per-file changes."""
    files: list[FileChange] = []
    cur: FileChange | None = None
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            m = re.match(r"diff --git a/(.+?) b/(.+)$", line)
            cur = FileChange(path=m.group(2) if m else line.split()[-1])
            files.append(cur)
        elif line.startswith("new file mode") and cur:
            cur.change = "added"
        elif line.startswith("deleted file mode") and cur:
            cur.change = "deleted"
        elif line.startswith("rename to ") and cur:
            cur.change, cur.path = "renamed", line[len("rename to ") :]
        elif line.startswith("--- "):
            if cur is None or cur.added or cur.removed:
                cur = None
            src = line[4:].split("\t")[0]
            if cur is None:
                cur = FileChange(path=src[2:] if src.startswith("a/") else src)
                files.append(cur)
            if src == "/dev/null":
                cur.change = "added"
        elif line.startswith("+++ ") and cur:
            dst = line[4:].split("\t")[0]
            if dst == "/dev/null":
                cur.change = "deleted"
            elif cur.change != "renamed":
                cur.path = dst[2:] if dst.startswith("b/") else dst
        elif line.startswith("+") and cur:
            cur.added.append(line[1:])
        elif line.startswith("-") and cur:
            cur.removed.append(line[1:])
    return files


DOC_EXT = {".md", ".rst", ".txt", ".adoc"}
BUILD_FILES = {
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "package.json",
    "requirements.txt",
    "Makefile",
    "Dockerfile",
}
DEF_RE = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z]\w*)\s*\((.*)")
CLASS_RE = re.compile(r"^\s*class\s+([A-Za-z]\w*)")


def _kind(path: str) -> str:
    p = PurePosixPath(path)
    if p.parts[:1] in ((".github",), ("ci",)):
        return "ci"
    if p.name in BUILD_FILES or p.name.startswith("requirements"):
        return "build"
    if p.suffix in DOC_EXT or "docs" in p.parts:
        return "docs"
    if p.name.startswith("test_") or p.name.endswith("_test.py") or "tests" in p.parts:
        return "test"
    return "code"


def _public_defs(lines: list[str]) -> dict[str, str]:
    out = {}
    for line in lines:
        m = DEF_RE.match(line)
        if m and line == line.lstrip():  # top-level only: indented defs are methods/helpers
            out[m.group(1)] = m.group(2).strip()
    return out


def infer_commit(files: list[FileChange], scope: str | None = None) -> dict[str, Any]:
    """Type, scope, subject, breaking flag and reasons from the parsed diff."""
    if not files:
        raise ProbeError("The diff contains no file changes; paste the output of `git diff`.")
    kinds = Counter(_kind(f.path) for f in files)
    added = [line for f in files for line in f.added]
    removed = [line for f in files for line in f.removed]
    text_added = "\n".join(added).lower()
    old_defs = {k: v for f in files if _kind(f.path) == "code" for k, v in _public_defs(f.removed).items()}
    new_defs = {k: v for f in files if _kind(f.path) == "code" for k, v in _public_defs(f.added).items()}
    gone = sorted(n for n in old_defs if n not in new_defs and not n.startswith("_"))
    changed = sorted(
        n for n in old_defs if n in new_defs and old_defs[n] != new_defs[n] and not n.startswith("_")
    )
    fresh = sorted(n for n in new_defs if n not in old_defs and not n.startswith("_"))
    breaking = (
        bool(gone)
        or "breaking change" in text_added
        or any(
            len(new_defs[n].split(",")) > len(old_defs[n].split(","))
            and "=" not in new_defs[n].split(",")[-1]
            for n in changed
        )
    )
    only = next(iter(kinds)) if len(kinds) == 1 else None
    if only in {"docs", "test", "ci", "build"}:
        ctype = only
    elif any(f.change == "added" and _kind(f.path) == "code" for f in files) or fresh:
        ctype = "feat"
    elif re.search(r"\b(fix|bug|error|crash|wrong|off-by-one)\b", text_added):
        ctype = "fix"
    elif [a.strip() for a in added if a.strip()] == [r.strip() for r in removed if r.strip()]:
        ctype = "style"
    elif re.search(r"\b(cache|faster|speed|perf|lru_cache)\b", text_added):
        ctype = "perf"
    elif removed and len(added) <= len(removed):
        ctype = "refactor"
    else:
        ctype = "chore"
    if scope is None:
        dirs = {PurePosixPath(f.path).parts[:-1] for f in files}
        common = _common_prefix([list(d) for d in dirs])
        scope = common[-1] if common else (PurePosixPath(files[0].path).stem if len(files) == 1 else None)
    subject = _subject(ctype, files, fresh, gone, changed)
    return {
        "type": ctype,
        "scope": scope,
        "subject": subject,
        "breaking": breaking,
        "gone": gone,
        "changed": changed,
        "fresh": fresh,
    }


def _common_prefix(parts: list[list[str]]) -> list[str]:
    if not parts:
        return []
    out = []
    for items in zip(*parts, strict=False):
        if len(set(items)) != 1:
            break
        out.append(items[0])
    return out


def _subject(
    ctype: str, files: list[FileChange], fresh: list[str], gone: list[str], changed: list[str]
) -> str:
    names = ", ".join(PurePosixPath(f.path).name for f in files[:3]) + (" and more" if len(files) > 3 else "")
    if fresh:
        return f"add {', '.join(fresh[:3])}"
    if gone:
        return f"remove {', '.join(gone[:3])}"
    if changed:
        return f"change signature of {', '.join(changed[:3])}"
    verb = {
        "docs": "update docs in",
        "test": "update tests in",
        "fix": "fix",
        "style": "reformat",
        "refactor": "refactor",
        "perf": "speed up",
        "ci": "update CI in",
        "build": "update build in",
        "feat": "add",
        "chore": "update",
    }.get(ctype, "update")
    return f"{verb} {names}"


def build_commit(diff: str, scope: str | None = None, issue: str | None = None) -> Payload:
    """The ``CommitMessage`` record for a diff."""
    files = parse_diff(diff)
    info = infer_commit(files, scope)
    footers = []
    if info["breaking"]:
        if info["gone"]:
            what = f"removed {', '.join(info['gone'])}"
        elif info["changed"]:
            what = f"changed the signature of {', '.join(info['changed'])}"
        else:
            what = "see the diff"
        footers.append(f"BREAKING CHANGE: {what}")
    footers += issue_footers(issue)
    body_lines = [f"- {f.change} {f.path} (+{len(f.added)} -{len(f.removed)})" for f in files]
    body = "\n".join(body_lines)
    scope_part = f"({info['scope']})" if info["scope"] else ""
    head = f"{info['type']}{scope_part}{'!' if info['breaking'] else ''}"
    final = f"{head}: {info['subject']}\n\n{body}"
    if footers:
        final += "\n\n" + "\n".join(footers)
    data = {
        "type": info["type"],
        **({"scope": info["scope"]} if info["scope"] else {}),
        "subject": info["subject"],
        "body": body,
        "breaking": info["breaking"],
        "footers": footers,
        "finalMessage": final,
        "files": [
            {"path": f.path, "change": f.change, "added": len(f.added), "removed": len(f.removed)}
            for f in files
        ],
    }
    return Payload(data, commit_text(data))


HEADER_RE = re.compile(r"^(?P<type>\w+)(?:\((?P<scope>[^)]*)\))?(?P<bang>!)?:\s*(?P<subject>.+)$")
SECTIONS = {
    "feat": "Features",
    "fix": "Bug Fixes",
    "perf": "Performance",
    "refactor": "Refactoring",
    "docs": "Documentation",
    "test": "Tests",
    "build": "Build",
    "ci": "CI",
    "style": "Style",
    "chore": "Chores",
    "revert": "Reverts",
}


def parse_commits(messages: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Conventional-commit entries from ``(hash, message)`` pairs; other messages land in 'Other'."""
    entries = []
    for sha, msg in messages:
        first, _, rest = msg.strip().partition("\n")
        m = HEADER_RE.match(first.strip())
        ctype = m.group("type").lower() if m else "other"
        section = SECTIONS.get(ctype, "Other")
        breaking = bool(m and m.group("bang")) or "BREAKING CHANGE" in rest
        entries.append(
            {
                "type": ctype,
                "section": section,
                "scope": (m.group("scope") or None) if m else None,
                "subject": m.group("subject").strip() if m else first.strip(),
                "breaking": breaking,
                "hash": sha[:7],
            }
        )
    return entries


def build_changelog(entries: list[dict[str, Any]], version: str, source: str) -> Payload:
    order = ["Breaking Changes", *SECTIONS.values(), "Other"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        if e["breaking"]:
            groups.setdefault("Breaking Changes", []).append(e)
        groups.setdefault(e["section"], []).append(e)
    lines = [f"## {version}", ""]
    for sec in order:
        if sec in groups:
            lines.append(f"### {sec}")
            for e in groups[sec]:
                scope = f"**{e['scope']}:** " if e["scope"] else ""
                lines.append(f"- {scope}{e['subject']}" + (f" ({e['hash']})" if e["hash"] else ""))
            lines.append("")
    md = "\n".join(lines).rstrip() + "\n"
    sections = [{"section": s, "count": len(groups[s])} for s in order if s in groups]
    data = {"version": version, "source": source, "entries": entries, "sections": sections, "markdown": md}
    return Payload(data, md)


def build_pr(diff: str, title: str | None = None, issue: str | None = None) -> Payload:
    commit = build_commit(diff, issue=issue).data
    files = commit["files"]
    labels = sorted({commit["type"], *(["breaking-change"] if commit["breaking"] else [])})
    has_tests = any(_kind(f["path"]) == "test" for f in files)
    checklist = [
        {"item": "Tests added or updated", "done": has_tests},
        {"item": "Docs updated", "done": any(_kind(f["path"]) == "docs" for f in files)},
        {"item": "No breaking change, or it is described", "done": not commit["breaking"]},
    ]
    head = title or commit["finalMessage"].splitlines()[0]
    body = "\n".join(
        [
            "## Summary",
            "",
            commit["subject"].capitalize() + ".",
            "",
            "## Files",
            "",
            text_table(files, ["path", "change", "added", "removed"]),
            "",
            "## Checklist",
            "",
            *[f"- [{'x' if c['done'] else ' '}] {c['item']}" for c in checklist],
            *(
                [
                    "",
                    "## Breaking changes",
                    "",
                    *[f.partition(": ")[2] for f in commit["footers"] if f.startswith("BREAKING CHANGE")],
                ]
                if commit["breaking"]
                else []
            ),
        ]
    )
    data = {
        "title": head,
        "body": body,
        "labels": labels,
        "files": files,
        "checklist": checklist,
        "breaking": commit["breaking"],
    }
    return Payload(data, f"{head}\n\n{body}")


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The git family bound to this server's state."""

    @structured(schemas.COMMIT_MESSAGE)
    def gencommit(
        diff: str = "", changes: str = "", scope: str | None = None, issue: str | None = None
    ) -> Payload:
        """Write a Conventional Commit message for a unified diff (type and scope inference,
        breaking-change detection from removed or re-signed public functions, footers), or for
        `changes`, a plain summary of what changed when there is no diff."""
        if diff.strip():
            return build_commit(diff, scope, issue)
        if changes.strip():
            return commit_from_changes(changes, scope, issue)
        raise ProbeError("Give `diff` (the output of `git diff`) or `changes` (a summary of what changed).")

    @structured(schemas.CHANGELOG)
    def genchangelog(
        commits: list[str] | None = None, version: str = "Unreleased", path: str = "."
    ) -> Payload:
        """Group commit messages into a changelog. Give `commits`, or leave it out to read the
        local `git log` of `path` (inside the allowed root)."""
        if commits:
            pairs, source = [("", c) for c in commits], "given"
        else:
            pairs, source = git_log(state.root, confine(state.root, path)), "git"
        return build_changelog(parse_commits(pairs), version, source)

    @structured(schemas.PULL_REQUEST)
    def genpr(diff: str, title: str | None = None, issue: str | None = None) -> Payload:
        """Draft a pull-request description (summary, file table, checklist, labels) from a diff."""
        return build_pr(diff, title, issue)

    return [gencommit, genchangelog, genpr]
