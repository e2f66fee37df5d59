"""Code family logic: the ast rules on source with known problems, fixes, API and test skeletons."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from mcpnb.probekit.responses import ProbeError
from mcpnb.probekit.tools.analysis import analyze
from mcpnb.probekit.tools.code import api_symbols, apply_fixes, pytest_skeleton, traceback_frames
from tests.probekit.conftest import VULNERABLE


def rules(source: str, category: str | None = None) -> list[tuple[int, str]]:
    return [(f.line, f.rule) for f in analyze(source) if category is None or f.category == category]


def test_security_rules_on_known_vulnerabilities() -> None:
    assert rules(VULNERABLE, "security") == [
        (4, "S-HARDCODED-SECRET"),
        (8, "S-SHELL"),
        (9, "S-EVAL"),
        (13, "S-SQL-STRING"),
    ]
    more = (
        "import pickle, os, yaml, requests\npickle.loads(b)\nos.system('ls')\n"
        "yaml.load(s)\nrequests.get(u, verify=False)\n"
    )
    assert [r for _, r in rules(more)] == ["S-PICKLE", "S-OS-SYSTEM", "S-YAML-LOAD", "S-TLS-VERIFY"]


def test_no_false_positives_on_safe_code() -> None:
    safe = (
        'import subprocess\n\n\ndef f(x: int) -> int:\n    """Doc."""\n'
        '    subprocess.run(["ls"])\n    password = ""\n    return x\n'
    )
    assert rules(safe) == []
    assert rules('cur.execute("SELECT 1 WHERE id = ?", (x,))\n') == []


def test_review_perf_debug_rules() -> None:
    assert rules(VULNERABLE, "review") == [
        (7, "R-MUTABLE-DEFAULT"),
        (7, "R-NO-DOCSTRING"),
        (12, "R-NO-DOCSTRING"),
        (16, "R-BARE-EXCEPT"),
        (20, "R-NO-DOCSTRING"),
        (24, "R-NONE-COMPARE"),
    ]
    assert rules(VULNERABLE, "perf") == [(23, "P-NESTED-LOOP")]
    assert rules(VULNERABLE, "debug") == [(16, "D-SWALLOWED-EXCEPTION")]
    triple = "for a in x:\n    for b in x:\n        for c in x:\n            s += f'{c}'\n"
    found = {(f.rule, f.severity) for f in analyze(triple)}
    assert {("P-NESTED-LOOP", "medium"), ("P-NESTED-LOOP", "high"), ("P-STR-CONCAT-LOOP", "low")} <= found
    dbg = (
        "def f():\n    breakpoint()\n    assert (x, 'm')\n    if y is 'a':\n"
        "        return 1\n    return 2\n    z = 3\n"
    )
    assert {r for _, r in rules(dbg, "debug")} == {
        "D-BREAKPOINT",
        "D-ASSERT-TUPLE",
        "D-IS-LITERAL",
        "D-UNREACHABLE",
    }


def test_syntax_errors_are_readable() -> None:
    with pytest.raises(ProbeError, match=r"Could not parse x.py: line 1"):
        analyze("def (:\n", "x.py")


def test_fixes_are_mechanical_and_reanalysed() -> None:
    fixed, changes = apply_fixes(VULNERABLE, "vuln.py")
    assert {c["rule"] for c in changes} == {"R-BARE-EXCEPT", "R-NONE-COMPARE", "R-MUTABLE-DEFAULT"}
    assert "def run(cmd, items=None):\n    if items is None:\n        items = []\n" in fixed
    assert "except Exception:" in fixed and "if a is None:" in fixed
    remaining = {f.rule for f in analyze(fixed)}
    assert not remaining & {"R-BARE-EXCEPT", "R-NONE-COMPARE", "R-MUTABLE-DEFAULT"}
    assert "S-EVAL" in remaining  # not auto-fixable: still reported
    assert apply_fixes(fixed, "vuln.py")[1] == []  # idempotent


def test_api_symbols_and_skeleton() -> None:
    src = (
        'def add(a: int, b: int = 1) -> int:\n    """Add."""\n\n\nclass Cart:\n    """A cart."""\n\n'
        "    def total(self) -> int:\n        return 0\n\n    def _hidden(self):\n        pass\n\n\n"
        "def _private():\n    pass\n"
    )
    syms = api_symbols(src, "cart.py")
    assert [(s["kind"], s["name"], s["line"]) for s in syms] == [
        ("function", "add", 1),
        ("class", "Cart", 5),
        ("method", "Cart.total", 8),
    ]
    assert syms[0]["signature"] == "def add(a: int, b: int=1) -> int" and syms[0]["doc"] == "Add."
    tests, code = pytest_skeleton(syms, "cart")
    assert [t["test"] for t in tests] == ["test_add", "test_cart"]
    compile(code, "test_cart.py", "exec")
    assert "import cart" in code and "cart.add(...)" in code


def test_traceback_frames_point_at_source() -> None:
    frames = traceback_frames(
        'Traceback:\n  File "app/vuln.py", line 9, in run\n', [("app/vuln.py", VULNERABLE)]
    )
    assert frames == [{"file": "app/vuln.py", "line": 9, "function": "run", "code": "return eval(cmd)"}]


@pytest.mark.anyio
async def test_folder_review_and_counts(server: Any) -> None:
    async with Client(server) as client:
        result = await client.call_tool("security_scan", {"path": "app"})
        data = result.structured_content
        assert {f["file"] for f in data["findings"]} == {"app/vuln.py"}
        assert data["counts"] == [{"severity": "high", "count": 4}]
        fixed = await client.call_tool("fix", {"path": "app/vuln.py"})
        assert fixed.structured_content["diff"].startswith("--- a/app/vuln.py")
        assert "+    if items is None:" in fixed.structured_content["diff"]
