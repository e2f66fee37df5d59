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


# ---------------------------------------------------------------- manifests that lead out of the root
OUTSIDE = "outside-secret-dependency==6.6.6\nroot:x:0:0:root:/root:/bin/bash\n"


@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    """A root whose manifests are symlinks to files outside it (as if to /etc/passwd)."""
    root = tmp_path / "leaky"
    root.mkdir()
    (root / "app.py").write_text("print('hi')\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(OUTSIDE)
    (outside / "pyproject.toml").write_text(
        '[project]\nname = "outside-name"\ndependencies = ["outside-pkg"]\n'
    )
    (outside / "package.json").write_text('{"dependencies": {"outside-npm": "1"}}')
    (root / "requirements.txt").symlink_to(outside / "passwd")
    (root / "requirements-dev.txt").symlink_to(outside / "passwd")
    (root / "pyproject.toml").symlink_to(outside / "pyproject.toml")
    (root / "package.json").symlink_to(outside / "package.json")
    (root / "requirements-ok.txt").write_text("inside-dep==1.0\n")
    return root


def test_symlinked_manifests_out_of_the_root_are_not_read(leaky: Path) -> None:
    data = scan(leaky)
    assert data["manifests"] == ["requirements-ok.txt"]
    assert [d["name"] for d in data["dependencies"]] == ["inside-dep"]
    ctx = project_context(leaky)
    assert ctx["name"] == "leaky"  # not the outside pyproject's name
    assert "outside" not in ctx["contextMarkdown"] and "root:x" not in ctx["contextMarkdown"]


@pytest.mark.anyio
async def test_no_tool_reads_a_manifest_outside_the_root(leaky: Path) -> None:
    from mcp import Client

    from mcpnb.probekit import create_server

    async with Client(create_server(root=leaky, poll_interval_ms=10)) as client:
        texts = []
        for tool, args in (
            ("analyze_project", {}),
            ("init_project_context", {}),
            ("start_onboard", {}),
        ):
            result = await client.call_tool(tool, args)
            assert not result.is_error, (tool, result.content)
            texts.append(
                str(result.structured_content) + " ".join(getattr(c, "text", "") for c in result.content)
            )
    for text in texts:
        assert "outside" not in text and "root:x" not in text
    assert "inside-dep" in texts[0]
