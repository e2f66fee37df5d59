"""PEP 440 specifiers: checked when declared, combined, compared, and checked against a server."""

from __future__ import annotations

import pytest

from mcpnb.client.requirements.versions import BadSpecifier, combine, compatible, floor, satisfies, specifier


def test_specifiers_are_checked_and_normalised():
    assert specifier(" >= 2.0 , <3") == "<3,>=2.0"
    with pytest.raises(BadSpecifier, match=r'">=2.0" or "==2.0"'):
        specifier("2.0")  # a bare version: the message shows the two likely meanings
    with pytest.raises(BadSpecifier, match="not a PEP 440"):
        specifier("newest please")


@pytest.mark.parametrize(
    ("specs", "ok"),
    [
        ([">=1", "<3"], True),
        ([">1", "<2"], True),  # only versions between the boundaries satisfy both
        ([">=2", "<2"], False),
        (["==1.4", "!=1.4"], False),
        (["~=2.1", ">=2.5"], True),
        (["==1.*", ">=2"], False),
    ],
)
def test_compatibility(specs, ok):
    assert compatible(specs) is ok


def test_combine_and_floor():
    assert combine([">=1", "<3", ">=1"]) == "<3,>=1"
    assert combine([]) is None
    assert str(floor(">=1.5,<3,!=2")) == "1.5"
    assert floor("<3") is None and floor(None) is None


@pytest.mark.parametrize(
    ("spec", "reported", "expected"),
    [
        (">=2", "2.0.0", True),  # satisfied
        (">=2026", "2.0.0", False),  # not satisfied
        (">=2", None, None),  # the server reports no version: cannot tell
        (">=2", "", None),
        (">=2", "nightly", None),  # not a PEP 440 version: cannot tell either
        (">=2", "2.1rc1", True),  # a pre-release the server runs still counts
    ],
)
def test_satisfies(spec, reported, expected):
    assert satisfies(spec, reported) is expected
