"""Project family logic on a known tree: languages, dependencies, context, plan, estimate, mocks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mcpnb.probekit.responses import ProbeError
from mcpnb.probekit.tools.planning import estimate_task, mock_value, plan_feature
from mcpnb.probekit.tools.scan import project_context, scan


def test_scan_counts_languages_and_skips_vendored(project: Path) -> None:
    data = scan(project)
    langs = {r["language"]: r["files"] for r in data["languages"]}
    assert langs == {"Python": 4, "Markdown": 1, "TOML": 1, "Text": 1, "JSON": 1, "JavaScript": 1}
    assert data["totals"]["files"] == 9
    assert data["totals"]["skippedDirs"] >= 2  # node_modules and the escaping symlinks
    assert data["manifests"] == ["pyproject.toml", "requirements-dev.txt", "package.json"]
    deps = {(d["name"], d["spec"], d["source"], d["dev"]) for d in data["dependencies"]}
    assert deps == {
        ("requests", ">=2.31", "pyproject.toml", False),
        ("pydantic", ">=2", "pyproject.toml", False),
        ("pytest", ">=8", "pyproject.toml[test]", True),
        ("ruff", "==0.6.0", "requirements-dev.txt", True),
        ("react", "^18.2.0", "package.json", False),
        ("vite", "5", "package.json", True),
    }


def test_context_names_commands(project: Path) -> None:
    ctx = project_context(project)
    assert ctx["name"] == "demo-app" and ctx["primaryLanguage"] == "Python"
    assert {"purpose": "test", "command": "pytest"} in ctx["commands"]
    assert {"purpose": "install", "command": "npm install"} in ctx["commands"]
    assert ctx["contextMarkdown"].startswith("# demo-app\n")


def test_feature_plan_ranks_matching_files(project: Path) -> None:
    plan = plan_feature(project, "Add currency to the invoice total")
    assert plan["keywords"] == ["currency", "invoice", "total"]
    assert plan["candidates"][0]["path"] == "app/billing.py"
    assert plan["steps"][-2]["path"] == "tests/test_currency_invoice_total.py"
    with pytest.raises(ProbeError):
        plan_feature(project, "  ")


def test_estimate_is_pert_from_factors() -> None:
    e = estimate_task("OAuth login with a database migration", files=3, unknowns=1)
    assert [f["factor"] for f in e["factors"]] == [
        "base",
        "oauth",
        "database",
        "migration",
        "files",
        "unknowns",
    ]
    assert e["likely"] == 2 + 3 + 1.5 + 2.5 + 1.5 + 1.5
    assert e["expected"] == round((e["optimistic"] + 4 * e["likely"] + e["pessimistic"]) / 6, 2)
    assert e["optimistic"] < e["likely"] < e["pessimistic"] and e["points"] == 8
    assert estimate_task("rename a variable")["points"] == 2  # expected 2.13 h -> 2 points


def test_mock_values_are_seeded_and_follow_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "email": {"type": "string"},
            "age": {"type": "integer", "minimum": 18, "maximum": 30},
            "role": {"enum": ["admin", "user"]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            "joined": {"type": "string", "format": "date"},
        },
    }
    a = [mock_value(schema, random.Random(7)) for _ in range(3)]
    b = [mock_value(schema, random.Random(7)) for _ in range(3)]
    assert a == b
    rec = a[0]
    assert (
        set(rec) == set(schema["properties"]) and 18 <= rec["age"] <= 30 and rec["role"] in {"admin", "user"}
    )
    assert rec["email"].endswith("@example.com") and len(rec["id"]) == 36 and 1 <= len(rec["tags"]) <= 2
    assert rec["joined"][:2] == "20"
