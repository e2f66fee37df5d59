"""Git family logic on known inputs: diff parsing, type/scope inference, breaking changes, changelog."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcpnb.probekit.tools.git import build_changelog, build_commit, build_pr, parse_commits, parse_diff

BREAKING = """diff --git a/src/shop/cart.py b/src/shop/cart.py
index 1..2 100644
--- a/src/shop/cart.py
+++ b/src/shop/cart.py
@@ -1,6 +1,4 @@
-def add_item(cart, item):
+def add_item(cart, item, quantity):
     cart.append(item)
-def remove_item(cart, item):
-    cart.remove(item)
diff --git a/src/shop/util.py b/src/shop/util.py
--- a/src/shop/util.py
+++ b/src/shop/util.py
@@ -1 +1,2 @@
 x = 1
+y = 2
"""

NEW_FILE = """diff --git a/pkg/search.py b/pkg/search.py
new file mode 100644
--- /dev/null
+++ b/pkg/search.py
@@ -0,0 +1,2 @@
+def search(q):
+    return []
"""

DOCS = """diff --git a/docs/guide.md b/docs/guide.md
--- a/docs/guide.md
+++ b/docs/guide.md
@@ -1 +1 @@
-Old
+New
"""


def test_parse_diff_counts_and_change_kinds() -> None:
    files = parse_diff(BREAKING + NEW_FILE)
    assert [(f.path, f.change, len(f.added), len(f.removed)) for f in files] == [
        ("src/shop/cart.py", "modified", 1, 3),
        ("src/shop/util.py", "modified", 1, 0),
        ("pkg/search.py", "added", 2, 0),
    ]


def test_breaking_change_detected_with_footer_and_bang() -> None:
    data = build_commit(BREAKING, issue="#42").data
    assert data["breaking"] is True
    assert data["scope"] == "shop"
    assert data["subject"] == "remove remove_item"
    assert data["footers"] == ["BREAKING CHANGE: removed remove_item", "Refs: #42"]
    first = data["finalMessage"].splitlines()[0]
    assert first == f"{data['type']}(shop)!: remove remove_item"
    assert data["finalMessage"].endswith("BREAKING CHANGE: removed remove_item\nRefs: #42")


def test_type_inference() -> None:
    new = build_commit(NEW_FILE).data
    assert (new["type"], new["scope"], new["subject"], new["breaking"]) == (
        "feat",
        "pkg",
        "add search",
        False,
    )
    assert build_commit(DOCS).data["type"] == "docs"
    fix = DOCS.replace("docs/guide.md", "app/calc.py").replace("+New", "+x = 1  # fix off-by-one bug")
    assert build_commit(fix).data["type"] == "fix"
    assert build_commit(DOCS, scope="guide").data["finalMessage"].startswith("docs(guide): ")


def test_same_diff_same_message() -> None:
    assert build_commit(BREAKING).data == build_commit(BREAKING).data


def test_changelog_groups_by_type_with_breaking_section() -> None:
    entries = parse_commits(
        [
            ("a" * 40, "feat(api): add search"),
            ("b" * 40, "fix: crash on empty cart"),
            ("c" * 40, "refactor!: drop legacy cart\n\nBREAKING CHANGE: gone"),
            ("d" * 40, "update readme"),
        ]
    )
    assert [(e["type"], e["scope"], e["breaking"]) for e in entries] == [
        ("feat", "api", False),
        ("fix", None, False),
        ("refactor", None, True),
        ("other", None, False),
    ]
    log = build_changelog(entries, "2.0.0", "given").data
    assert [s["section"] for s in log["sections"]] == [
        "Breaking Changes",
        "Features",
        "Bug Fixes",
        "Refactoring",
        "Other",
    ]
    assert "- **api:** add search (aaaaaaa)" in log["markdown"]
    assert log["markdown"].startswith("## 2.0.0\n")


def test_pr_from_diff() -> None:
    pr = build_pr(BREAKING).data
    assert "breaking-change" in pr["labels"]
    assert {"item": "Tests added or updated", "done": False} in pr["checklist"]
    assert "## Breaking changes" in pr["body"] and "src/shop/cart.py" in pr["body"]


@pytest.mark.anyio
async def test_genchangelog_reads_local_git_log(tmp_path: Path) -> None:
    from mcpnb.probekit import create_server

    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@x",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@x",
        "HOME": str(tmp_path),
        "PATH": "/usr/bin:/bin",
    }
    run: Any = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    for msg in ("feat: first feature", "fix(core): a bug"):
        (repo / "f.txt").write_text(msg)
        run("add", ".")
        run("commit", "-qm", msg)
    async with Client(create_server(root=repo)) as client:
        result = await client.call_tool("genchangelog", {"version": "0.2.0"})
    data = result.structured_content
    assert data["source"] == "git"
    assert [(e["type"], e["subject"]) for e in data["entries"]] == [
        ("fix", "a bug"),
        ("feat", "first feature"),
    ]
    assert all(len(e["hash"]) == 7 for e in data["entries"])


# ---------------------------------------------------------------- git stays inside the root
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@x",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@x",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PATH": "/usr/bin:/bin",
}


def _git(repo: Path, *args: str, stdin: str | None = None) -> str:
    env = {**GIT_ENV, "HOME": str(repo)}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True, input=stdin
    )
    return done.stdout.strip()


def _repo_with(repo: Path, *messages: str) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q")
    for msg in messages:
        (repo / "f.txt").write_text(msg)
        _git(repo, "add", ".")
        _git(repo, "commit", "-qm", msg)
    return repo


async def _changelog(root: Path) -> Any:
    from mcpnb.probekit import create_server

    async with Client(create_server(root=root)) as client:
        return await client.call_tool("genchangelog", {"version": "1.0.0"})


@pytest.mark.anyio
async def test_git_history_above_the_root_is_not_read(tmp_path: Path) -> None:
    from mcpnb.probekit import create_server

    outer = _repo_with(tmp_path / "outer", "feat: a commit of the enclosing repository")
    root = outer / "inner"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    result = await _changelog(root)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert result.is_error and "No git repository inside the allowed root" in text
    assert "enclosing repository" not in text
    async with Client(create_server(root=root)) as client:
        release = await client.call_tool("start_release", {"version": "1.0.0"})
    assert "enclosing repository" not in str(release.structured_content)
    assert release.structured_content["steps"][0]["status"] == "failed"


@pytest.mark.anyio
async def test_a_repository_inside_the_root_still_works_from_a_subfolder(tmp_path: Path) -> None:
    from mcpnb.probekit import create_server

    root = _repo_with(tmp_path / "root", "feat: inside")
    (root / "sub").mkdir()
    async with Client(create_server(root=root)) as client:
        result = await client.call_tool("genchangelog", {"path": "sub"})
    assert [e["subject"] for e in result.structured_content["entries"]] == ["inside"]


@pytest.mark.anyio
async def test_a_repositorys_own_config_cannot_start_programs(tmp_path: Path) -> None:
    root = _repo_with(tmp_path / "root", "feat: plain")
    # a commit that carries a (fake) signature, so that showing signatures would call gpg
    tree = _git(root, "write-tree")
    parent = _git(root, "rev-parse", "HEAD")
    signed = (
        f"tree {tree}\nparent {parent}\nauthor t <t@x> 1700000000 +0000\n"
        "committer t <t@x> 1700000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEfake\n -----END PGP SIGNATURE-----\n"
        "\nfix: signed\n"
    )
    sha = _git(root, "hash-object", "-t", "commit", "-w", "--stdin", stdin=signed)
    _git(root, "update-ref", "HEAD", sha)
    marker = tmp_path / "ran"
    evil = tmp_path / "evil.sh"
    evil.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat >/dev/null\nexit 0\n')
    evil.chmod(0o755)
    with (root / ".git" / "config").open("a") as config:
        config.write(
            f"[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {evil}\n"
            f"[core]\n\tpager = {evil}\n\tfsmonitor = {evil}\n[diff]\n\texternal = {evil}\n"
        )
    result = await _changelog(root)
    assert not result.is_error, result.content
    assert [e["subject"] for e in result.structured_content["entries"]] == ["signed", "plain"]
    assert not marker.exists(), marker.read_text()


@pytest.mark.anyio
async def test_a_git_dir_outside_the_root_is_refused(tmp_path: Path) -> None:
    elsewhere = _repo_with(tmp_path / "elsewhere", "feat: someone else's history")
    root = tmp_path / "root"
    root.mkdir()
    (root / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n")
    result = await _changelog(root)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert result.is_error and "leads outside the allowed root" in text
    assert "someone else" not in text

    os.remove(root / ".git")
    (root / ".git").symlink_to(elsewhere / ".git")
    result = await _changelog(root)
    assert result.is_error and "someone else" not in " ".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.anyio
async def test_object_alternates_outside_the_root_are_refused(tmp_path: Path) -> None:
    elsewhere = _repo_with(tmp_path / "elsewhere", "feat: borrowed objects")
    root = _repo_with(tmp_path / "root", "feat: own")
    (root / ".git" / "objects" / "info" / "alternates").write_text(str(elsewhere / ".git" / "objects") + "\n")
    result = await _changelog(root)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert result.is_error and "object alternate leads outside the allowed root" in text
