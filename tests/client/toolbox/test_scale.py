"""A toolbox of a thousand tools: its display draws at most ``listing_limit`` rows (1006 tools drew
529 KB into the notebook), and specs too big to send with every request are warned about in every
format (1006 tools made 1.45M tokens of Anthropic specs, and nothing said so)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from mcp import types
from mcp.server import Server

from mcpnb.client.toolbox import SpecLimitWarning
from mcpnb.client.toolbox.specs import FORMATS

from .test_limits import server

#: specs.SHOWN_ROWS and specs.MAX_SPEC_TOKENS, written out (so the old code fails, not errs)
SHOWN_ROWS, MAX_SPEC_TOKENS = 200, 100_000


def wide_server(tools: int, fields: int) -> Server:
    """A low-level SDK server whose tools each take ``fields`` described parameters (about 360
    characters of schema each): descriptions of parameters no API shortens."""
    about = "The value of this field, as the upstream service writes it. " * 5
    schema = {
        "type": "object",
        "properties": {f"field_{j}": {"type": "string", "description": about} for j in range(fields)},
    }

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=f"tool_{i}", description="Reads.", input_schema=schema) for i in range(tools)
            ]
        )

    return Server("wide", version="1.0", on_list_tools=list_tools)


def test_a_toolbox_and_its_specs_draw_a_bounded_table(pool):
    from mcpnb.notebook.render.defaults import DEFAULTS
    from mcpnb.notebook.render.function_table import specs_bundle, toolbox_bundle

    pool.connect("many", server=server({f"tool_{i:03d}": "Does one thing." for i in range(SHOWN_ROWS + 50)}))
    toolbox = pool.functions("many")
    assert len(toolbox) == SHOWN_ROWS + 50 and len(toolbox.rows()) == SHOWN_ROWS + 50
    text = repr(toolbox)
    assert "mcp__many__tool_199" in text and "mcp__many__tool_200" not in text
    assert "… 50 more tools (every one is in the toolbox: toolbox.tools)" in text
    before = DEFAULTS.listing_limit
    DEFAULTS.listing_limit = 10  # %config Mcp.listing_limit = 10
    try:
        bundle = toolbox_bundle(toolbox)
        assert bundle["text/html"].count("<tr>") == 11  # the head and ten rows
        assert "… 240 more tools" in bundle["text/plain"] and "tool_010" not in bundle["text/plain"]
        assert "%config Mcp.listing_limit = 250 draws every row" in bundle["text/html"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SpecLimitWarning)  # 250 tools: past OpenAI's 128
            specs = toolbox.specs("openai")
        assert len(specs) == 250  # every spec is sent: only the drawing is cut
        drawn = specs_bundle(specs)
        assert drawn["text/html"].count("<tr>") == 11 and "… 240 more specs" in drawn["text/plain"]
    finally:
        DEFAULTS.listing_limit = before


@pytest.mark.parametrize("fmt", FORMATS)
def test_specs_of_some_hundred_thousand_tokens_are_warned_about_in_every_format(pool, fmt):
    # 30 tools of 40 described parameters: about 110 000 tokens, and few enough tools for every API
    pool.connect("big", server=wide_server(30, 40))
    toolbox = pool.functions("big")
    with pytest.warns(SpecLimitWarning, match=r"about [\d,]+ tokens of tool specs") as said:
        specs = toolbox.specs(fmt)
    assert "narrow the toolbox" in str(said[0].message)
    assert any("tokens of tool specs" in line for line in specs.problems())


def test_specs_of_a_few_tools_are_not_warned_about(pool):
    pool.connect("small", server=server({f"tool_{i}": "Reads the thing." for i in range(5)}))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpecLimitWarning)
        specs = pool.functions("small").specs("anthropic")
    assert specs.problems() == [] and 0 < specs.tokens < MAX_SPEC_TOKENS
