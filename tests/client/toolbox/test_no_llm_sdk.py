"""mcpnb never imports an LLM SDK: the specs and replies are plain dicts. The SDKs are an optional
extra (``llm``) and a test dependency, where they check what we produce."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import mcpnb

PACKAGE = Path(mcpnb.__file__).parent
SDKS = ("openai", "anthropic", "google")


def test_no_module_of_mcpnb_imports_an_llm_sdk():
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.relative_to(PACKAGE)}: {n}" for n in names if n.split(".")[0] in SDKS]
    assert found == []


def test_a_whole_round_loads_no_llm_sdk():
    code = (
        "import sys, mcpnb\n"
        "from mcpnb.client.pool import Pool\n"
        "from mcpnb.probekit import create_server\n"
        "pool = Pool(); pool.connect('probe', server=create_server())\n"
        "tools = pool.functions()\n"
        "for fmt in ('openai', 'openai-responses', 'anthropic', 'gemini'): tools.specs(fmt)\n"
        "call = {'type': 'tool_use', 'id': 't', 'name': 'mcp__probe__estimate', 'input': {'task': 'x'}}\n"
        "r = tools.run(call)\n"
        "print(r['is_error']); pool.close()\n"
        f"print([m for m in sys.modules if m.split('.')[0] in {SDKS!r}])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "[]"]


def test_the_llm_extra_lists_the_sdks_and_the_tests_install_them():
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    names = {d.split(">")[0].split("=")[0].split("[")[0] for d in extras["llm"]}
    assert names == {"openai", "anthropic", "google-genai"}
    assert "mcpnb[llm]" in extras["test"]
    assert not any(d.split(">")[0] in names for d in project["dependencies"])
