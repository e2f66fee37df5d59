"""PEP 440 version specifiers (via ``packaging``): checking one, combining several, comparing them.

A requirement's ``version`` is checked against the version a server reports in its handshake
(``serverInfo.version``). Servers that report none, or something that is not a PEP 440 version,
cannot be checked: that is a warning, not a failure, since the server may well be fine.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class BadSpecifier(ValueError):
    """Text that is not a PEP 440 specifier (the caller locates it: file, server, key)."""


def specifier(text: str) -> str:
    """``text`` checked and normalised (``">= 2.0"`` → ``">=2.0"``); :class:`BadSpecifier` if invalid."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec = SpecifierSet(text)
    except InvalidSpecifier:
        hint = (
            f' (a specifier has an operator: ">={text.strip()}" or "=={text.strip()}")' if _bare(text) else ""
        )
        raise BadSpecifier(f"{text!r} is not a PEP 440 version specifier{hint}") from None
    if not str(spec):
        raise BadSpecifier("an empty version specifier: leave 'version' out to accept any version")
    return _canonical(spec)


def combine(specs: Iterable[str]) -> str | None:
    """Every specifier at once (what all requesters of one server accept together)."""
    from packaging.specifiers import SpecifierSet

    clauses = {str(c) for text in specs for c in SpecifierSet(text)}
    return _canonical(SpecifierSet(",".join(clauses))) if clauses else None


def compatible(specs: Iterable[str]) -> bool:
    """Whether some version satisfies every specifier.

    Checked at each boundary the specifiers name and just beside it (versions between two
    boundaries behave like the ones beside them), so ``>1`` with ``<2`` is compatible and
    ``>=2`` with ``<2`` is not.
    """
    from packaging.specifiers import SpecifierSet

    together = SpecifierSet(",".join(specs))
    return any(together.contains(v, prereleases=True) for v in _candidates(together))


def satisfies(spec: str, reported: str | None) -> bool | None:
    """True or False; None when it cannot be told (no version, or not a PEP 440 one)."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    if not reported:
        return None
    try:
        version = Version(reported)
    except InvalidVersion:
        return None
    return SpecifierSet(spec).contains(version, prereleases=True)


def floor(spec: str | None) -> Any:
    """The newest version ``spec`` insists on (its highest ``>=``, ``>``, ``==``, ``~=`` bound), or
    None: how the ``newest`` strategy ranks declarations."""
    from packaging.specifiers import SpecifierSet

    if not spec:
        return None
    bounds = [_version(c.version) for c in SpecifierSet(spec) if c.operator in (">=", ">", "==", "~=", "===")]
    bounds = [b for b in bounds if b is not None]
    return max(bounds) if bounds else None


def _canonical(spec: Any) -> str:
    return ",".join(sorted(str(c) for c in spec))


def _bare(text: str) -> bool:
    return bool(text.strip()) and text.strip()[0].isdigit()


def _version(text: str) -> Any:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text.removesuffix(".*"))
    except InvalidVersion:
        return None


def _candidates(spec: Any) -> list[Any]:
    from packaging.version import Version

    found = [Version("0")]
    for clause in spec:
        v = _version(clause.version)
        if v is None:
            continue
        release = list(v.release)
        found += [v, Version(".".join(map(str, [*release, 0, 0, 1])))]
        nonzero = [i for i, part in enumerate(release) if part]
        if nonzero:
            below = release[: nonzero[-1] + 1]
            below[-1] -= 1
            found.append(Version(".".join(map(str, [*below, 999999]))))
    return found
