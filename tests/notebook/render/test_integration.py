"""How the bundles meet IPython and the import-time budget."""

from __future__ import annotations

import subprocess
import sys

from IPython.core.interactiveshell import InteractiveShell
from mcp import types

from mcpnb.client.results import ToolResult
from mcpnb.client.status import ServerStatus, StatusTable
from mcpnb.client.toolinfo import ToolInfo
from mcpnb.notebook.render import DEFAULTS, ToolList
from mcpnb.notebook.render.defaults import resolve_limit

from .test_inprocess import PNG


def test_importing_render_does_not_import_pandas_or_the_sdk() -> None:
    code = (
        "import mcpnb, mcpnb.notebook.render, sys; "
        "print(sorted({'pandas', 'mcp', 'jsonschema'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_ipython_display_formatter_uses_the_bundles() -> None:
    """The real IPython formatter (what a kernel runs) picks up every mime type without complaint."""
    import base64

    shell = InteractiveShell.instance()
    image = types.ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")
    result = ToolResult(server="s", tool="t", content=[types.TextContent(type="text", text="hi"), image])
    data, _ = shell.display_formatter.format(result)
    assert {"text/plain", "text/html", "image/png"} <= set(data)
    assert data["text/plain"].startswith("s.t · ok")
    table = StatusTable([ServerStatus("a", "stdio", "connected")])
    data, _ = shell.display_formatter.format(table)
    assert "mcpnb-ok" in data["text/html"]
    guide = "Call <first> before second.\n" + "Then the rest. " * 20
    told = StatusTable([ServerStatus("a", "stdio", "connected", instructions=guide)])
    data, _ = shell.display_formatter.format(told)  # folded: one line until a person opens it
    assert "<details" in data["text/html"] and "Call &lt;first&gt; before second." in data["text/html"]
    assert data["text/plain"].endswith("instructions: Call <first> before second. … (.instructions has all)")
    both = StatusTable([*told, ServerStatus("b", "stdio", "connected", instructions="B's guide")])
    data, _ = shell.display_formatter.format(both)  # every row's guide, folded; text: the table only
    assert data["text/html"].count("<details") == 2 and "instructions" not in data["text/plain"]
    data, _ = shell.display_formatter.format(ToolList([ToolInfo(server="s", name="x")]))
    assert "<table>" in data["text/html"] and data["text/plain"].startswith("server")


def test_limits_are_clamped_and_defaults_are_settable() -> None:
    assert resolve_limit(None, 20) == 20 and resolve_limit(0, 20) == 1 and resolve_limit(-5, 20) == 1
    assert DEFAULTS.display_limit == 20
