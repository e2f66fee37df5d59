"""The client room works in any Python process: importing all of it pulls in no IPython, no widgets
and nothing of the notebook room, and no module in it names them outside the one display door."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import mcpnb

CLIENT = Path(mcpnb.__file__).parent / "client"
FORBIDDEN = ("IPython", "ipywidgets", "mcpnb.notebook")
#: The one module allowed to reach the notebook room, and only when a frontend asks for a repr.
DOOR = CLIENT / "display.py"


def test_importing_every_client_module_loads_no_ipython_widgets_or_notebook_room() -> None:
    code = (
        "import importlib, json, pkgutil, sys, mcpnb.client\n"
        "names = [m.name for m in pkgutil.walk_packages(mcpnb.client.__path__, 'mcpnb.client.')]\n"
        "for name in names: importlib.import_module(name)\n"
        f"print(json.dumps({{'modules': names, 'loaded': [m for m in {FORBIDDEN!r} if m in sys.modules]}}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    assert "mcpnb.client.pool" in report["modules"] and "mcpnb.client.tasks.handle" in report["modules"]
    assert report["loaded"] == []


def test_a_client_call_in_a_plain_process_loads_no_ipython(tmp_path: Path) -> None:
    """Not only imports: connecting, calling, showing status and a result's repr stay IPython-free."""
    code = (
        "import sys, mcpnb\n"
        "from mcpnb.client.pool import Pool\n"
        "from mcpnb.probekit import create_server\n"
        "pool = Pool()\n"
        "pool.connect('probe', server=create_server())\n"
        "r = pool.call('probe', 'estimate', {'task': 'x', 'files': 2})\n"
        "print(repr(pool.status()).splitlines()[0]); print(r.text[:20]); print(len(r.df))\n"
        "pool.close()\n"
        f"print([m for m in {FORBIDDEN!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("name") and int(lines[-2]) >= 1
    assert lines[-1] == "[]"


def _imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_no_client_module_imports_the_notebook_side_except_the_display_door() -> None:
    offenders = {
        str(path.relative_to(CLIENT)): sorted(m for m in mods if m.startswith(FORBIDDEN))
        for path in CLIENT.rglob("*.py")
        if path != DOOR and (mods := _imported_modules(path))
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    # the door itself reaches the notebook room only by name, when asked
    assert "mcpnb.notebook" not in " ".join(_imported_modules(DOOR))


def test_probekit_imports_neither_room_but_the_config_error() -> None:
    root = CLIENT.parent / "probekit"
    used = {m for path in root.rglob("*.py") for m in _imported_modules(path) if m.startswith("mcpnb.")}
    assert {m for m in used if not m.startswith("mcpnb.probekit")} <= {"mcpnb.client.errors"}
