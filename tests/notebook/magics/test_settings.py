"""``%config Mcp.…``: display limit reaches the renderers, timeouts reach connections, bad values fail."""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator

import pytest
from conftest import DEMO
from traitlets import TraitError

from mcpnb.notebook.render.defaults import DEFAULTS
from mcpnb.notebook.settings import get_settings

from .conftest import bundle, line


@pytest.fixture
def settings(ip, mcp) -> Iterator:
    """The settings, put back afterwards, and the shell's own config with them: ``%config Mcp.x = v``
    writes ``ip.config`` too, and the shell is shared by every test of the process, so a later
    ``%load_ext`` (which applies ``ip.config``) brought a 0.5 s tool_timeout back to other files."""
    s = get_settings()
    saved = {k: getattr(s, k) for k in s.trait_names() if s.traits()[k].metadata.get("config")}
    had = copy.deepcopy(ip.config["Mcp"]) if "Mcp" in ip.config else None
    yield s
    if had is None:
        ip.config.pop("Mcp", None)
    else:
        ip.config["Mcp"] = had
    for key, value in saved.items():
        setattr(s, key, value)


def test_config_magic_sees_mcp(ip, settings, capsys):
    ip.run_line_magic("config", "Mcp")
    out = capsys.readouterr().out
    for name in ("display_limit", "startup_timeout", "tool_timeout", "elicitation", "show_transcript"):
        assert name in out


def test_display_limit_applies_to_results(ip, settings):
    ip.run_line_magic("config", "Mcp.display_limit = 2")
    assert DEFAULTS.display_limit == 2
    line(ip, f"connect demo -- {sys.executable} {DEMO} stdio")
    text = bundle(ip, line(ip, "call demo.people"))["text/plain"]
    assert "1 more row" in text


def test_timeouts_apply_to_magic_connections(ip, settings):
    ip.run_line_magic("config", "Mcp.tool_timeout = 0.5")
    line(ip, f"connect demo -- {sys.executable} {DEMO} stdio")
    assert line(ip, "").rows()[0]["state"] == "connected"
    from mcpnb.client.errors import CallTimeoutError

    with pytest.raises(CallTimeoutError):
        line(ip, "call demo.slow seconds=5")


def test_elicitation_default_comes_from_the_environment(monkeypatch):
    from mcpnb.notebook.settings import Mcp

    monkeypatch.setenv("MCPNB_ELICITATION", "Decline")
    assert Mcp().elicitation == "decline"
    monkeypatch.setenv("MCPNB_ELICITATION", "nonsense")
    assert Mcp().elicitation == "widget"
    monkeypatch.delenv("MCPNB_ELICITATION")
    assert Mcp().elicitation == "widget"


def test_bad_ipython_config_value_warns(ip, settings):
    from traitlets.config import Config

    from mcpnb.notebook.settings import attach_to_shell

    saved = ip.config
    ip.config = Config({"Mcp": {"tool_timeout": -1}})
    try:
        with pytest.warns(UserWarning, match="invalid Mcp settings"):
            attach_to_shell(ip)
    finally:
        ip.config = saved
    assert settings.tool_timeout > 0


def test_invalid_values_are_refused(settings):
    with pytest.raises(TraitError):
        settings.elicitation = "telepathy"
    with pytest.raises(TraitError):
        settings.tool_timeout = 0
    settings.elicitation = "DECLINE"
    assert settings.elicitation == "decline"


@pytest.mark.parametrize("value", ["nan", "inf", "1e9"])
def test_timeout_settings_refuse_what_no_deadline_can_be(ip, settings, value):
    # NaN passed a "<= 0" check and failed every later connect, far from the %config that set it
    before = settings.tool_timeout
    with pytest.raises(
        TraitError, match=r"Mcp\.tool_timeout .*accepted: seconds greater than 0, at most 86400$"
    ):
        settings.tool_timeout = float(value)
    assert settings.tool_timeout == before
