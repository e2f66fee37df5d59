"""Path confinement: file-reading tools may only read inside one allowed root.

A teaching server is often started from a notebook in a home directory; a tool argument must not
turn it into a way to read ``~/.ssh``. So ``..``, absolute paths and symlinks that leave the root are
refused with a message that says which rule was hit.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

from mcpnb.probekit.responses import ProbeError


class PathRefused(ProbeError):
    """A path argument that would leave the allowed root."""


def confine(root: Path, relative: str) -> Path:
    """Resolve ``relative`` inside ``root`` or raise :class:`PathRefused` with the reason."""
    raw = (relative or ".").strip()
    if PurePosixPath(raw).is_absolute() or PureWindowsPath(raw).is_absolute() or raw.startswith("~"):
        raise PathRefused(f"Refused {raw!r}: absolute paths are not allowed; give a path relative to {root}")
    parts = PurePosixPath(raw.replace("\\", "/")).parts
    if ".." in parts:
        raise PathRefused(f"Refused {raw!r}: '..' is not allowed; paths must stay inside {root}")
    base = root.resolve()
    target = (base / raw).resolve()
    if not target.is_relative_to(base):
        raise PathRefused(f"Refused {raw!r}: it is a symlink that leads outside the allowed root {root}")
    return target


def read_text(root: Path, relative: str, *, limit: int = 2_000_000) -> tuple[Path, str]:
    """Read a confined text file, with clear errors for missing files, folders and huge files."""
    path = confine(root, relative)
    if not path.exists():
        raise ProbeError(f"No such file: {relative!r} (looked inside {root})")
    if path.is_dir():
        raise ProbeError(f"{relative!r} is a folder; give a file")
    if path.stat().st_size > limit:
        raise ProbeError(f"{relative!r} is larger than {limit} bytes; probe-kit reads smaller files only")
    return path, path.read_text(encoding="utf-8", errors="replace")


def file_inside(root: Path, path: Path) -> Path | None:
    """``path`` resolved, if it is a file whose real location (after every symlink) is inside
    ``root``; None otherwise. What every tool that finds files by name (manifests) reads through."""
    try:
        real = path.resolve()
        return real if real.is_relative_to(root.resolve()) and real.is_file() else None
    except OSError:
        return None


def is_inside(root: Path, path: Path) -> bool:
    """Whether ``path`` (after following symlinks) stays inside ``root``: used while walking trees."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except OSError:
        return False
