"""Which shell and kernel a call runs in, asked on every call a cell makes: cheaply, and without
importing IPython where nothing did."""

from __future__ import annotations

import subprocess
import sys

import IPython
import pytest
from IPython.core.interactiveshell import InteractiveShell

from mcpnb.notebook.cell.capture import CellUI, _captured
from mcpnb.notebook.frontend import current_kernel, current_shell


def test_plain_python_has_no_shell_and_does_not_import_ipython_to_say_so():
    code = (
        "import sys\n"
        "from mcpnb.notebook.frontend import current_kernel, current_shell\n"
        "print(current_shell(), current_kernel(), 'IPython' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["None", "None", "False"], out.stderr


@pytest.fixture
def shell():
    return InteractiveShell.instance()


def test_a_terminal_shell_is_the_shell_and_has_no_kernel(shell):
    assert current_shell() is shell
    assert current_kernel() is None


def test_a_call_made_in_a_shell_does_not_look_the_shell_up_through_ipythons_lazy_names(shell, monkeypatch):
    """IPython 9 serves ``from IPython import get_ipython`` through its package's ``__getattr__``,
    an import on every use: a call from a cell asked that several times (~20 µs each)."""
    looked_up: list[str] = []
    lazy = getattr(IPython, "__getattr__", None)  # (IPython 8 has none: its names are plain)

    def counted(name: str) -> object:
        looked_up.append(name)
        if lazy is None:
            raise AttributeError(name)
        return lazy(name)

    monkeypatch.setattr(IPython, "__getattr__", counted, raising=False)
    CellUI("widget"), _captured(), current_kernel(), current_shell()
    assert looked_up == []
