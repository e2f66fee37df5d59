"""Shared fixtures for the probe-kit tests: a small project tree, servers, elicitation answers."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import types

from mcpnb.probekit import create_server
from tests.probekit.stores import STORES, own_redis  # noqa: F401  (a fixture: a redis-server a test may kill)

VULNERABLE = textwrap.dedent(
    """
    import os
    import subprocess

    API_KEY = "sk-live-1234567890"


    def run(cmd, items=[]):
        subprocess.run(cmd, shell=True)
        return eval(cmd)


    def find_user(cur, name):
        cur.execute(f"SELECT * FROM users WHERE name = '{name}'")
        try:
            return cur.fetchone()
        except:
            pass


    def pairs(xs):
        out = []
        for a in xs:
            for b in xs:
                if a == None:
                    continue
                out.append((a, b))
        return out
    """
).lstrip()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=STORES)
def kind(request: pytest.FixtureRequest) -> str:
    """Each task store by name (memory, sqlite, redis): ``store_url`` makes a fresh one of it."""
    return request.param


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A tiny mixed project: Python package, tests, docs, JS, manifests."""
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "web").mkdir()
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text('"""App package."""\n')
    (root / "app" / "vuln.py").write_text(VULNERABLE)
    (root / "app" / "billing.py").write_text(
        '"""Billing."""\n\n\ndef invoice_total(items: list, tax: float = 0.2) -> float:\n'
        '    """Sum the invoice lines and add tax."""\n    return sum(items) * (1 + tax)\n\n\n'
        'class Invoice:\n    """An invoice."""\n\n    def pay(self, amount: int) -> bool:\n'
        '        """Record a payment."""\n        return amount > 0\n'
    )
    (root / "tests" / "test_billing.py").write_text("def test_x():\n    assert True\n")
    (root / "web" / "app.js").write_text("console.log('hi');\nexport const x = 1;\n")
    (root / "node_modules" / "dep" / "index.js").write_text("ignored\n")
    (root / "README.md").write_text("# Demo project\n\nBilling for invoices.\n")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo-app"\ndependencies = ["requests>=2.31", "pydantic[email]>=2"]\n'
        '[project.optional-dependencies]\ntest = ["pytest>=8"]\n'
    )
    (root / "requirements-dev.txt").write_text("ruff==0.6.0  # lint\n-e .\n")
    (root / "package.json").write_text(
        '{"dependencies": {"react": "^18.2.0"}, "devDependencies": {"vite": "5"}}'
    )
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    os.symlink(secret, root / "escape.txt")
    os.symlink(tmp_path, root / "escape_dir")
    return root


@pytest.fixture
def server(project: Path) -> Any:
    return create_server(root=project, poll_interval_ms=10)


class Answers:
    """An elicitation callback with a scripted action; records what it was asked."""

    def __init__(self, action: str = "accept", content: dict[str, Any] | None = None) -> None:
        self.action, self.content = action, content
        self.seen: list[types.ElicitRequestFormParams | types.ElicitRequestURLParams] = []

    async def __call__(self, ctx: Any, params: Any) -> types.ElicitResult:
        self.seen.append(params)
        if self.action != "accept":
            return types.ElicitResult(action=self.action)
        if params.mode == "url":
            return types.ElicitResult(action="accept")
        if self.content is not None:
            return types.ElicitResult(action="accept", content=self.content)
        return types.ElicitResult(action="accept", content=fill_form(params.requested_schema))


def fill_form(schema: dict[str, Any]) -> dict[str, Any]:
    """A valid answer for any flat form: first enum value, True, 1, or 'answer-<field>'."""
    out: dict[str, Any] = {}
    for key, prop in schema.get("properties", {}).items():
        if "enum" in prop:
            out[key] = prop["enum"][0]
        elif prop.get("type") == "boolean":
            out[key] = True
        elif prop.get("type") in {"integer", "number"}:
            out[key] = 1
        else:
            out[key] = f"answer-{key}"
    return out


MODES: list[str] = ["auto", "legacy"]
Factory = Callable[..., Any]
