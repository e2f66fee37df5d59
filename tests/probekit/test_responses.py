"""Contract tests: every tool publishes a 2020-12 outputSchema, returns structuredContent that
validates against it, and carries a readable text fallback — in both protocol eras."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from mcp import Client, types

from mcpnb.probekit.paths import PathRefused
from mcpnb.probekit.responses import error_response, from_error, ok_structured, ok_text, text_table
from mcpnb.probekit.toolsets import CONFORMANCE
from tests.probekit.conftest import Answers

DIFF = """diff --git a/app/billing.py b/app/billing.py
--- a/app/billing.py
+++ b/app/billing.py
@@ -1,3 +1,3 @@
-def invoice_total(items):
+def invoice_total(items, currency):
     return sum(items)
"""

SAMPLES: dict[str, dict[str, Any]] = {
    "interview": {},
    "ask_user": {"question": "Favourite colour?", "choices": ["red", "blue"]},
    "open_local_page": {"path": "README.md"},  # asked (either era), the scripted person accepts
    "analyze_project": {"path": "."},
    "init_project_context": {},
    "add_feature": {"feature": "add currency to invoice totals"},
    "estimate": {"task": "oauth login with database migration", "files": 3, "unknowns": 1},
    "gen_mock": {
        "schema": {"type": "object", "properties": {"id": {"type": "string"}, "age": {"type": "integer"}}}
    },
    "code_review": {"path": "app"},
    "security_scan": {"path": "app/vuln.py"},
    "perf": {"path": "app/vuln.py"},
    "debug": {"path": "app/vuln.py", "error": 'File "app/vuln.py", line 9, in run'},
    "fix": {"path": "app/vuln.py"},
    "genapi": {"path": "app/billing.py"},
    "gentest": {"path": "app/billing.py"},
    "gencommit": {"diff": DIFF},
    "genchangelog": {"commits": ["feat(api): add x", "fix: y", "chore!: drop py3.10"], "version": "1.0.0"},
    "genpr": {"diff": DIFF},
    "ui_search": {"query": "login form"},
    "ui_design_system": {"brand_color": "#3366ff"},
    "genui": {"component": "button", "framework": "react"},
    "design2code": {"description": "navbar, hero 'Welcome', data table"},
    "render_ui": {"components": ["navbar", "card"]},
    "init_component_catalog": {},
    "sync_ui_data": {},
    "start_feature": {"feature": "invoice currency"},
    "start_onboard": {"path": "app"},
    "start_bugfix": {"path": "app", "error": 'File "app/vuln.py", line 17, in find_user'},
    "start_ui": {"description": "login form and a data table"},
    "start_ralph": {"path": "app/vuln.py", "max_iterations": 3},
    "start_review": {"path": "app", "diff": DIFF},
    "start_release": {"version": "1.2.3", "commits": ["feat: a", "fix: b"]},
    "start_refactor": {"path": "app"},
    "start_api": {"path": "app/billing.py"},
    "start_doc": {"path": "app"},
    "slow_task": {"steps": 2, "delay": 0},
    "draft_with_model": {"topic": "tides", "points": 1, "delay": 0},  # no model here: the outline
    "client_roots": {},  # no roots declared here: says so
    "dice": {"count": 3, "sides": 8},
    "dice_history": {},
}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_every_tool_meets_its_published_schema(server: Any, mode: str) -> None:
    async with Client(server, mode=mode, elicitation_callback=Answers()) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        # the conformance fixtures answer with bare content blocks, as the suite expects
        assert all(listed[name].output_schema is None for name in CONFORMANCE)
        tools = {name: tool for name, tool in listed.items() if name not in CONFORMANCE}
        assert set(tools) == set(SAMPLES), "every tool needs a contract sample"
        for name, args in SAMPLES.items():
            schema = tools[name].output_schema
            assert schema is not None, f"{name} publishes no outputSchema"
            assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
            jsonschema.Draft202012Validator.check_schema(schema)
            result = await client.call_tool(name, args)
            assert not result.is_error, (name, result.content)
            jsonschema.Draft202012Validator(schema).validate(result.structured_content)
            texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
            assert texts and texts[0].strip(), f"{name} has no text fallback"
            assert not texts[0].lstrip().startswith("{"), f"{name}'s fallback is raw JSON, not readable text"


@pytest.mark.anyio
async def test_errors_are_is_error_results_with_a_sentence(server: Any) -> None:
    async with Client(server) as client:
        result = await client.call_tool("code_review", {})
        assert result.is_error
        assert "Give exactly one of `source`" in result.content[0].text
        result = await client.call_tool("code_review", {"source": "def broken(:\n"})
        assert result.is_error and "Could not parse <source>: line 1" in result.content[0].text
        result = await client.call_tool("genui", {"component": "zzzz-qqq"})
        assert result.is_error and "try ui_search" in result.content[0].text
        assert result.meta["error"]["code"] == "probe_error"
        assert result.meta["error"]["message"] == result.content[0].text
        refused = await client.call_tool("analyze_project", {"path": "../.."})
        assert refused.is_error and refused.meta["error"]["code"] == "path_refused"
        assert "'..' is not allowed" in refused.meta["error"]["message"]


def test_helpers_shape_results() -> None:
    ok = ok_structured({"type": "object"}, {"a": 1}, "a is 1", meta={"k": "v"})
    assert ok.structured_content == {"a": 1} and ok.content[0].text == "a is 1" and ok.meta == {"k": "v"}
    assert ok_text("hi").content[0].text == "hi" and ok_text("hi").structured_content is None
    err = error_response("No such file", hint="check the name", path="a.txt")
    assert err.is_error and err.content[0].text == "No such file\nHint: check the name"
    assert err.meta == {
        "error": {"code": "tool_error", "message": "No such file", "hint": "check the name", "path": "a.txt"}
    }
    assert from_error(PathRefused("Refused '/x'")).meta["error"] == {
        "code": "path_refused",
        "message": "Refused '/x'",
    }
    table = text_table([{"a": 1, "b": "x" * 80}, {"a": None, "b": "y"}], ["a", "b"])
    lines = table.splitlines()
    assert lines[0].startswith("a ") and lines[2].endswith("...") and lines[3].startswith("   ")
    assert text_table([], ["a"]) == "(none)"
