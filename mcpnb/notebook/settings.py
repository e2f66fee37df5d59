"""``%config Mcp.<option> = …``: the knobs a person turns from a notebook, as traitlets.

IPython's ``%config`` finds configurables by class name, so the class is called ``Mcp``. One
instance per process (:func:`get_settings`) so Python code (forms, tasks) reads the same values the
magics do, with or without IPython; ``ipython_config.py`` values (``c.Mcp.display_limit = 50``)
apply when the extension loads.
"""

from __future__ import annotations

from typing import Any

from traitlets import Bool, CaselessStrEnum, Float, Int, TraitError, default, observe, validate
from traitlets.config import Configurable

from mcpnb.client.interaction import ELICITATION_MODES, elicitation_from_env


class Mcp(Configurable):
    """mcpnb's notebook settings (``%config Mcp`` lists them with their current values)."""

    display_limit = Int(
        20, help="Rows of a table (and items of a JSON list) in a result shown before 'N more rows'."
    ).tag(config=True)
    listing_limit = Int(
        200,
        help="Rows of a listing (tools, resources, prompts, skills, tasks, functions and tool specs) "
        "shown before 'N more'; the listing object and its .df keep every row.",
    ).tag(config=True)
    startup_timeout = Float(
        30.0, help="Seconds a server connected by %mcp connect/serve may take to start."
    ).tag(config=True)
    tool_timeout = Float(
        60.0,
        help="Longest silence (seconds) a tool call may keep, for servers connected by the magics: "
        "progress restarts the clock (a server's max_total_timeout caps the whole call).",
    ).tag(config=True)
    elicitation = CaselessStrEnum(
        ELICITATION_MODES,
        help="How a server's questions are answered: widget form, text prompt, decline, or defaults "
        "(default: $MCPNB_ELICITATION, else widget).",
    ).tag(config=True)
    show_transcript = Bool(
        False, help="Show each call's JSON-RPC traffic (collapsed) under its result, as --transcript does."
    ).tag(config=True)
    draw_pages = Bool(
        True,
        help="Draw an MCP App tool's page (sandboxed) above its result in %mcp call and %mcp explore; "
        "False shows results only, as --no-view does for one call.",
    ).tag(config=True)

    @default("elicitation")
    def _elicitation_default(self) -> str:
        # Headless runs (nbclient, papermill, CI) have no one to click: the environment, which the
        # kernel inherits, is the one switch that reaches them without editing the notebook.
        # Plain Python reads the same variable (mcpnb.client.interaction), for its policy.
        return elicitation_from_env() or "widget"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._apply_limits()

    @observe("display_limit", "listing_limit")
    def _on_limit(self, change: dict[str, Any]) -> None:
        self._apply_limits()

    @validate("startup_timeout", "tool_timeout")
    def _positive(self, proposal: dict[str, Any]) -> float:
        # Zero, negative or NaN would make every connect or call fail at once, far from the typo;
        # the same words as a call's timeout=, which is the same kind of number.
        from mcpnb.client.timeouts import checked_timeout

        name = f"Mcp.{proposal['trait'].name}"
        try:
            return checked_timeout(proposal["value"], what=name, unset="")  # type: ignore[return-value]
        except (TypeError, ValueError) as exc:
            raise TraitError(str(exc)) from None

    def _apply_limits(self) -> None:
        # Renderers read one shared object; setting it here makes every later result obey.
        from mcpnb.notebook.render.defaults import DEFAULTS

        DEFAULTS.display_limit = max(1, int(self.display_limit))
        DEFAULTS.listing_limit = max(1, int(self.listing_limit))


_settings: Mcp | None = None


def get_settings() -> Mcp:
    """The process-wide settings (created on first use; the extension adopts the same object)."""
    global _settings
    if _settings is None:
        _settings = Mcp()
    return _settings


def attach_to_shell(shell: Any) -> Mcp:
    """Let ``%config Mcp`` see the settings and apply ``ipython_config.py`` values to them."""
    settings = get_settings()
    settings.parent = shell
    try:
        settings.update_config(shell.config)
    except TraitError as exc:  # a typo in ipython_config.py must not stop the magics from loading
        import warnings

        warnings.warn(f"mcpnb: ignoring invalid Mcp settings in the IPython config: {exc}", stacklevel=3)
    if settings not in shell.configurables:
        shell.configurables.append(settings)
    return settings


def detach_from_shell(shell: Any) -> None:
    settings = get_settings()
    if settings in shell.configurables:
        shell.configurables.remove(settings)
