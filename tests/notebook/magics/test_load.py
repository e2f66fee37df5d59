"""Loading: fast (no heavy imports), unloadable, and never stopped by a broken default .mcp.json."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pytest

from .conftest import line


def test_load_imports_nothing_heavy():
    code = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "ip = InteractiveShell.instance()\n"
        "ip.run_line_magic('load_ext', 'mcpnb')\n"
        "import sys\n"
        "heavy = ('pandas', 'ipywidgets', 'anywidget', 'jsonschema', 'mcp', 'httpx',\n"
        "         'mcpnb.notebook.forms', 'mcpnb.client.elicitation')  # ours: needed at a question only\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(out.stdout.strip().replace("'", '"')) == []


def test_unload_and_reload(ip, mcp):
    ip.run_line_magic("unload_ext", "mcpnb")
    assert ip.find_line_magic("mcp") is None
    assert ip.find_cell_magic("mcp") is None
    ip.run_line_magic("load_ext", "mcpnb")
    from mcpnb.notebook.magics import get_magics

    get_magics(ip).pool = mcp.pool
    assert line(ip, "status") == []


def test_unload_keeps_the_kernels_servers_and_load_finds_them_again(tmp_path):
    """As the README says: the pool is the kernel's, not the magics'."""
    code = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "import mcpnb\n"
        "ip = InteractiveShell.instance()\n"
        "ip.run_line_magic('load_ext', 'mcpnb')\n"
        "ip.run_line_magic('mcp', 'serve probe-kit')\n"
        "ip.run_line_magic('unload_ext', 'mcpnb')\n"
        "ip.run_line_magic('load_ext', 'mcpnb')\n"
        "print('rows', [r.name for r in ip.run_line_magic('mcp', 'status')])\n"
        "mcpnb.default_pool().close()\n"
        "print('after close', list(ip.run_line_magic('mcp', 'status')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True, cwd=tmp_path
    )
    assert "rows ['probe']" in out.stdout and "after close []" in out.stdout, out.stdout + out.stderr


def reloaded(ip, mcp, capsys) -> str:
    """``%load_ext mcpnb`` again, every warning shown: what it printed (its quick look at the
    default config files); the test's pool put back."""
    from mcpnb.notebook.magics import get_magics

    ip.run_line_magic("unload_ext", "mcpnb")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        ip.run_line_magic("load_ext", "mcpnb")
    get_magics(ip).pool = mcp.pool
    return capsys.readouterr().err


@pytest.mark.parametrize("content", ['{"mcpServers": {"a": ', "[1, 2]", '{"servers": {}}'])
def test_broken_default_config_warns_and_loads(ip, mcp, tmp_path, monkeypatch, content, capsys):
    (tmp_path / ".mcp.json").write_text(content)
    monkeypatch.chdir(tmp_path)
    said = reloaded(ip, mcp, capsys)
    # the message alone, as %mcp's own warnings: not Python's "…/mcpnb/__init__.py:133: UserWarning"
    assert said.startswith(f"UserWarning: mcpnb: ignoring {tmp_path / '.mcp.json'}: ") and ".py:" not in said
    if content.startswith('{"mcpServers": {"a": '):  # a JSON slip: where, as a config error says it
        assert "invalid JSON at line 1, column" in said
    assert ip.find_line_magic("mcp") is not None
    view = line(ip, "config")  # the full loader explains the problem instead of failing
    assert view.problems and "files: (none could be read)" in repr(view)


def test_a_broken_default_config_with_a_windows_path_says_to_double_the_backslashes(
    ip, mcp, tmp_path, monkeypatch, capsys
):
    """The load's quick look says what ``%mcp connect --config`` says of the same file."""
    (tmp_path / ".mcp.json").write_text(r'{"mcpServers": {"fs": {"command": "C:\Program Files\npx.cmd"}}}')
    monkeypatch.chdir(tmp_path)
    said = reloaded(ip, mcp, capsys)
    assert "invalid JSON at line 1" in said and "write each one twice" in said


def test_broken_user_config_warns_too(ip, mcp, tmp_path, monkeypatch, capsys):
    user = tmp_path / "user.json"
    user.write_text("{not json")
    monkeypatch.setenv("MCPNB_USER_CONFIG", str(user))
    monkeypatch.chdir(tmp_path)
    assert "user.json" in reloaded(ip, mcp, capsys)


def test_a_default_config_saved_as_utf16_loads_without_a_warning_and_completes(
    ip, mcp, tmp_path, monkeypatch, capsys
):
    """A ``.mcp.json`` from PowerShell's ``>`` (UTF-16 with a byte order mark) is read by
    ``%mcp connect --config``; the load's quick look said it was broken, and completion missed it."""
    from .test_completion import complete

    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"sixteen": {"command": "srv"}}}), "utf-16")
    monkeypatch.chdir(tmp_path)
    assert "ignoring" not in reloaded(ip, mcp, capsys)
    assert "sixteen" in complete(ip, "%mcp connect --config ")


def test_a_site_file_alone_is_what_a_bare_connect_config_reads(ip, mcp, tmp_path, monkeypatch):
    """An administrator's ``/etc/mcpnb/mcp.json`` and nothing else: ``--config`` connects its
    servers (it said "no .mcp.json found"), and completion offers them."""
    from conftest import DEMO

    from .test_completion import complete

    site = tmp_path / "site.json"
    site.write_text(json.dumps({"mcpServers": {"shared": {"command": sys.executable, "args": [DEMO]}}}))
    monkeypatch.setenv("MCPNB_SITE_CONFIG", str(site))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    assert "shared" in complete(ip, "%mcp connect --config ")
    table = line(ip, "connect --config")
    assert [row.name for row in table] == ["shared"] and table[0].state == "connected"
