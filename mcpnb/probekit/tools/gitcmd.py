"""How probe-kit runs git: one read-only command on a repository found inside the allowed root.

A server that reads a student's repository must not be led outside its root (a ``.git`` file, a
worktree's common dir or an object alternate pointing elsewhere) nor start anything the repository's
own config names (hooks, pagers, signature checkers, external diffs). Every git call goes through
:func:`run_git`; the git family (:mod:`.git`) only builds messages from what it returns.
"""

import os
import subprocess
from pathlib import Path

from mcpnb.probekit.responses import ProbeError

#: Settings given with ``-c`` (they beat every config file): nothing a repository's own config names
#: is started (signature checkers, fsmonitor hooks, pagers, external diffs, text converters,
#: credential helpers) and nothing is read from outside the repository (mailmap files).
SAFE_CONFIG = {
    "log.showSignature": "false",
    "gpg.program": "false",
    "gpg.ssh.program": "false",
    "gpg.x509.program": "false",
    "core.fsmonitor": "false",
    "core.pager": "cat",
    "core.hooksPath": os.devnull,
    "core.alternateRefsCommand": "",
    "core.askPass": "",
    "diff.external": "",
    "credential.helper": "",
    "protocol.allow": "never",
    "log.mailmap": "false",
    "mailmap.file": "",
    "mailmap.blob": "",
    "gc.auto": "0",
    "maintenance.auto": "false",
}
_GIT_TIMEOUT = 10


def find_repository(root: Path, start: Path) -> tuple[Path, Path]:
    """``(git dir, work tree)`` of the repository holding ``start``, looked for from ``start`` up to
    ``root`` and never above it; every part git would read (the git dir, a ``.git`` file's target,
    a worktree's common dir, object alternates) must lie inside ``root``."""
    base = root.resolve()
    here = start.resolve()
    for directory in (here, *here.parents):
        if not directory.is_relative_to(base):
            break
        dot_git = directory / ".git"
        if dot_git.exists() or dot_git.is_symlink():
            git_dir = _inside(base, _git_dir_of(dot_git), ".git")
            common = git_dir / "commondir"
            if common.is_file():
                _inside(base, git_dir / common.read_text(encoding="utf-8").strip(), "its common dir")
            alternates = git_dir / "objects" / "info" / "alternates"
            if alternates.is_file():
                for line in alternates.read_text(encoding="utf-8").splitlines():
                    if line.strip() and not line.startswith("#"):
                        _inside(base, git_dir / "objects" / line.strip(), "an object alternate")
            return git_dir, directory
    raise ProbeError(
        f"No git repository inside the allowed root {root} (probe-kit never reads one above it); "
        "pass `commits` instead"
    )


def _git_dir_of(dot_git: Path) -> Path:
    if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if not text.startswith("gitdir:"):
            raise ProbeError(f"{dot_git} is not a git directory or a 'gitdir:' file")
        return dot_git.parent / text.removeprefix("gitdir:").strip()
    return dot_git


def _inside(base: Path, path: Path, what: str) -> Path:
    real = path.resolve()
    if not real.is_relative_to(base):
        raise ProbeError(f"Refused: the repository's {what} leads outside the allowed root {base}")
    return real


def run_git(root: Path, start: Path, *args: str) -> str:
    """Run one read-only git command on the repository at ``start``, confined to ``root``.

    Every git call in probe-kit goes through here: the repository is named explicitly
    (``--git-dir``/``--work-tree``, with ``GIT_CEILING_DIRECTORIES`` as a second fence), no system or
    global config is read, :data:`SAFE_CONFIG` overrides what the repository's own config says, and
    the environment is a fresh one (no ``GIT_*`` from the server's).
    """
    git_dir, work_tree = find_repository(root, start)
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": os.devnull,  # nobody's ~/.config/git/ either
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_SYSTEM": os.devnull,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CEILING_DIRECTORIES": str(root.resolve().parent),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_OPTIONAL_LOCKS": "0",
    }
    settings = [arg for key, value in SAFE_CONFIG.items() for arg in ("-c", f"{key}={value}")]
    command = ["git", "--no-pager", f"--git-dir={git_dir}", f"--work-tree={work_tree}", *settings, *args]
    try:
        out = subprocess.run(
            command,
            cwd=work_tree,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProbeError(f"Could not run git: {exc}") from exc
    if out.returncode != 0:
        raise ProbeError(f"git {args[0]} failed in {start}: {out.stderr.strip() or 'no details'}")
    return out.stdout


def git_log(root: Path, path: Path, limit: int = 50) -> list[tuple[str, str]]:
    """Commit messages from the repository at ``path`` inside ``root`` (read-only; no network)."""
    stdout = run_git(
        root,
        path,
        "log",
        f"-n{limit}",
        "--no-show-signature",
        "--no-mailmap",
        "--no-textconv",
        "--no-ext-diff",
        "--format=%H%x1f%B%x1e",
    )
    pairs = []
    for rec in stdout.split("\x1e"):
        if "\x1f" in rec:
            sha, msg = rec.strip("\n").split("\x1f", 1)
            pairs.append((sha.strip(), msg))
    return pairs
