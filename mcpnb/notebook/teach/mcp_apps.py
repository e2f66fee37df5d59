"""Exercises of ``10-mcp-apps.ipynb``: where a tool's page lives, who may call which tool, and the
order of the handshake between a page and its host."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcpnb.notebook.teach import exercises
from mcpnb.notebook.teach.exercises import Wrong, exercise

NOTEBOOK = "10-mcp-apps.ipynb"

#: The handshake, as the extension's text orders it: the page asks, then says it is ready, and only
#: then does the host send the call's input and its result.
HANDSHAKE = [
    "ui/initialize",
    "ui/notifications/initialized",
    "ui/notifications/tool-input",
    "ui/notifications/tool-result",
]


#: The lesson's first cell: probe-kit with its two app tools, not the full toolset.
SERVE = "%mcp serve probe-kit --toolset apps"


def _probe_tools() -> list[Any]:
    from mcpnb.client.errors import McpnbError

    pool = exercises.course_pool()
    if "probe" not in pool and pool.was_disconnected("probe"):  # after Run All: the last cell does that
        raise Wrong(
            "this check asks probe-kit, which was disconnected (the notebook's last cell does that): "
            "run `%mcp reconnect probe`, then check again"
        )
    if "probe" not in pool:
        raise Wrong(f"this check asks probe-kit: run the lesson's first cell (`{SERVE}`)")
    try:
        return list(pool.tools("probe"))
    except McpnbError as exc:
        raise Wrong(
            f"could not list probe's tools to check against them ({exc}); rerun the first cells"
        ) from None


@exercise(
    "10.page",
    notebook=NOTEBOOK,
    hints=[
        "`%mcp tools probe.dice` shows the tool in full; one line says where its page is.",
        "The address starts with `ui://`: the tool's `_meta.ui.resourceUri`.",
    ],
)
def _page(uri: Any) -> str:
    from mcpnb.client.apps import view_uri

    dice = next((t for t in _probe_tools() if t.name == "dice"), None)
    if dice is None:
        raise Wrong("probe has no `dice` tool here: serve it with `--toolset apps` (or the full one)")
    expected = view_uri(dice)
    given = str(uri).strip()
    if given == expected:
        return "a host reads it with resources/read (`%mcp read probe " + given + "` shows its HTML)"
    if given.startswith(("http://", "https://")):
        raise Wrong("a page is no web address: it is a resource of the server, read over MCP")
    if given.startswith("ui://"):
        raise Wrong(f"`{given}` is a ui:// address, but not the one `dice` names")
    raise Wrong("a tool's page is a resource whose address starts with `ui://`")


@exercise(
    "10.visibility",
    notebook=NOTEBOOK,
    hints=[
        "`%mcp tools probe` marks a tool its server keeps for its pages: `pages only`.",
        "`pool.functions('probe')` is what a model would be offered; `.pages_only` lists what it left out.",
    ],
)
def _visibility(names: Any) -> str:
    from mcpnb.client.apps import for_model
    from mcpnb.probekit.toolsets import APPS

    if isinstance(names, str | bytes) or not isinstance(names, Iterable):
        raise Wrong("give the tool names as a set, like {'a', 'b'}")
    given = {_bare(str(n).strip()) for n in names}  # a set, a list, toolbox.keys(): any names will do
    tools = _probe_tools()
    offered = {t.name for t in tools if for_model(t)}
    kept = sorted({t.name for t in tools} - offered)
    if given != offered and {t.name for t in tools} - set(APPS):
        raise Wrong(
            f"probe serves {len(tools)} tools here, not the lesson's two: the question is about "
            f"`{SERVE}`; run it (it replaces this probe), then check again"
        )
    if given == offered:
        return f"{', '.join(kept) or 'nothing'} stays with the page: a host must never offer it to a model"
    if given & set(kept):
        raise Wrong(f'`{sorted(given & set(kept))[0]}` is for the page only (visibility ["app"])')
    cased = sorted(name for name in given - offered if name.lower() in {t.lower() for t in offered})
    if cased:
        right = next(t for t in sorted(offered) if t.lower() == cased[0].lower())
        raise Wrong(f"tool names are case-sensitive: the tool is `{right}`, not `{cased[0]}`")
    missing = sorted(offered - given)
    if missing:
        raise Wrong(f"a model would be offered `{missing[0]}` too")
    raise Wrong(f"probe has no tool named `{sorted(given - offered)[0]}` here")


def _bare(name: str) -> str:
    """A tool named the way the lesson's tables show it (``mcp__probe__dice``, ``probe.dice``), bare."""
    from mcpnb.client.toolinfo import split_flat_name

    try:
        server, tool = split_flat_name(name)
    except ValueError:
        server, _, tool = name.rpartition(".")
    if server not in ("", "probe"):
        raise Wrong(f"`{name}` names a tool of {server!r}; the question is about probe's tools")
    return tool


@exercise(
    "10.handshake",
    notebook=NOTEBOOK,
    hints=[
        "The page speaks first: it cannot hear anything before it has loaded.",
        "The host sends nothing to the page before the page says it is initialized.",
        "The arguments of the call come before its result.",
    ],
)
def _handshake(order: Any) -> str:
    if isinstance(order, str) or not isinstance(order, list | tuple):
        raise Wrong("give the four methods as a list, in the order they travel")
    given = [str(m).strip() for m in order]
    twice = next((m for m in given if given.count(m) > 1), None)
    if twice is not None:
        raise Wrong(f"`{twice}` is listed twice; each of the four methods travels once")
    if sorted(given) != sorted(HANDSHAKE):
        extra = sorted(set(given) - set(HANDSHAKE)) or sorted(set(HANDSHAKE) - set(given))
        raise Wrong(f"the list should hold the four methods of the lesson, each once (look at `{extra[0]}`)")
    if given == HANDSHAKE:
        return (
            "the host waits for `initialized` before it says anything: a page that is not ready hears nothing"
        )
    if given[0] != "ui/initialize":
        raise Wrong("the page speaks first: `ui/initialize` is its request to the host")
    if given.index("ui/notifications/initialized") > given.index("ui/notifications/tool-input"):
        raise Wrong("the host sends nothing to the page before the page says `ui/notifications/initialized`")
    raise Wrong("the call's arguments (tool-input) come before its result (tool-result)")
