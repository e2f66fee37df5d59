"""UI family logic: BM25 on a known corpus and on the catalog, tokens, code generation, catalog sync."""

from __future__ import annotations

import math
from typing import Any

import pytest
from mcp import Client

from mcpnb.probekit.tools.ui import (
    BM25,
    contrast,
    design_tokens,
    hex_to_rgb,
    load_catalog,
    render_template,
    search,
    to_jsx,
    validate_catalog,
)


def test_bm25_matches_hand_computed_scores() -> None:
    docs = [["login", "form", "email"], ["data", "table"], ["login", "login", "button"]]
    index = BM25(docs, k1=1.5, b=0.75)
    avgdl = 8 / 3
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    expected0 = idf * 1 * 2.5 / (1 + 1.5 * (1 - 0.75 + 0.75 * 3 / avgdl))
    expected2 = idf * 2 * 2.5 / (2 + 1.5 * (1 - 0.75 + 0.75 * 3 / avgdl))
    assert index.score(["login"], 0) == pytest.approx(expected0)
    assert index.score(["login"], 2) == pytest.approx(expected2)
    assert index.score(["login"], 1) == 0.0
    assert index.score(["login"], 2) > index.score(["login"], 0) > 0


def test_catalog_rankings_are_known() -> None:
    catalog, checksum = load_catalog()
    assert validate_catalog(catalog) == [] and len(checksum) == 16
    assert [r["id"] for r in search(catalog, "login form with password", limit=3)] == [
        "login-form",
        "password-input",
        "email-input",
    ]
    assert search(catalog, "sortable table of rows")[0]["id"] == "data-table"
    assert search(catalog, "dashboard kpi")[0]["id"] == "stat"
    assert search(catalog, "zebra quantum") == []
    assert [r["id"] for r in search(catalog, "button", category="action")] == ["button", "icon-button"]
    scores = [r["score"] for r in search(catalog, "navigation menu links", limit=10)]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)


def test_design_tokens_and_contrast() -> None:
    tokens = {t["name"]: t["value"] for t in design_tokens("x", "#3366ff", 16, 1.25)}
    assert (
        tokens["brand-500"] == "#3366ff" and tokens["space-4"] == "16px" and tokens["text-md"] == "1.000rem"
    )
    assert tokens["text-lg"] == "1.250rem" and tokens["on-brand"] == "#ffffff"
    assert contrast(hex_to_rgb("#000000"), hex_to_rgb("#ffffff")) == pytest.approx(21.0)
    assert tokens["brand-50"] > tokens["brand-900"]  # lighter hex sorts higher here


def test_templates_and_jsx() -> None:
    assert render_template("<ul>{links:li}</ul>", {"links": "A, B"}) == "<ul><li>A</li><li>B</li></ul>"
    assert render_template("<b>{x}</b>", {"x": "<i>"}) == "<b>&lt;i></b>"
    assert (
        to_jsx('<label class="f">x<input type="text"></label>')
        == '<label className="f">x<input type="text" /></label>'
    )
    assert 'style={{gridTemplateColumns: "repeat(3, 1fr)"}}' in to_jsx(
        '<div style="grid-template-columns: repeat(3, 1fr)">'
    )


@pytest.mark.anyio
async def test_design2code_render_and_sync(server: Any) -> None:
    async with Client(server) as client:
        page = (
            await client.call_tool("design2code", {"description": "navbar, hero 'Hello', data table"})
        ).structured_content
        assert [c["id"] for c in page["components"]] == ["navbar", "hero", "data-table"]
        assert "<h1>Hello</h1>" in page["files"][0]["content"]
        react = (
            await client.call_tool(
                "genui",
                {"component": "button", "framework": "react", "props": {"label": "Pay", "bogus": "1"}},
            )
        ).structured_content
        assert 'className="btn btn-primary">Pay</button>' in react["files"][0]["content"]
        assert react["warnings"] == ["button has no prop 'bogus'"]
        html = (await client.call_tool("render_ui", {"components": ["card"]})).structured_content
        assert (
            html["files"][0]["content"].startswith("<!doctype html>")
            and "--color-brand-500" in html["files"][0]["content"]
        )
        first = (await client.call_tool("init_component_catalog", {})).structured_content
        again = (await client.call_tool("sync_ui_data", {})).structured_content
        assert first["components"] == again["components"] == 32 and again["changed"] is False
        assert {"category": "form", "count": 8} in first["categories"]
