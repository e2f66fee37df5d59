"""The forms answer the real server-everything: its own request, its own validation of our answer.

A raw SDK ``Client`` (legacy era, for server→client requests) stands in for the connection wiring;
each callback builds the UI piece, plays the person, and returns what the piece produced.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp.types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from mcpnb.notebook.forms import (
    ElicitationForm,
    FormOutcome,
    ProgressView,
    SamplingPanel,
    UrlConsent,
    apply_policy,
    ask_text,
    validate,
)

pytestmark = pytest.mark.timeout(60)


def _client(everything: str, **callbacks):
    params = StdioServerParameters(command="node", args=[everything, "stdio"])
    return Client(params, mode="legacy", read_timeout_seconds=20, **callbacks)


def _text(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def _answered(got: list) -> Any:
    """The outcome a click gives. Inside a running loop a click that reads the fields waits for an
    edit it may have overtaken (``forms.settle``): the answer comes a moment later."""
    for _ in range(100):
        if got:
            return got[0]
        await asyncio.sleep(0.05)
    raise AssertionError("the form never answered")


def _result(outcome: FormOutcome) -> types.ElicitResult:
    return types.ElicitResult(action=outcome.action, content=outcome.content)


def test_form_answers_trigger_elicitation_request(everything):
    seen = {}

    async def on_elicit(ctx, params):
        got: list[FormOutcome] = []
        form = ElicitationForm(
            params.requested_schema, message=params.message, server="everything", on_done=got.append
        )
        seen["fields"] = [f.name for f in form.fields]
        form.inputs["name"].value = "Ada Lovelace"
        form.inputs["email"].value = "ada@example.com"
        form.inputs["homepage"].value = "https://example.com/ada"
        form.inputs["birthdate"].value = "1815-12-10"
        form.inputs["check"].value = True
        form.inputs["titledSingleSelectEnum"].label = "Green Lantern"
        form.buttons["accept"].click()
        outcome = await _answered(got)
        seen["content"] = outcome.content
        return _result(outcome)

    async def main():
        async with _client(everything, elicitation_callback=on_elicit) as client:
            return await client.call_tool("trigger-elicitation-request", {})

    result = asyncio.run(main())
    text = _text(result)
    assert not result.is_error, text
    assert "User provided the requested information" in text
    assert "Name: Ada Lovelace" in text and "Agreed to terms: true" in text
    raw = json.loads(text.split("Raw result:", 1)[1])
    assert raw["action"] == "accept" and raw["content"] == seen["content"]
    assert raw["content"]["titledSingleSelectEnum"] == "hero-2"
    assert raw["content"]["untitledMultipleSelectEnum"] == ["Guitar"]  # the default multi-select kept
    assert raw["content"]["number"] == 3.14 and raw["content"]["integer"] == 42
    assert len(seen["fields"]) == 13


def test_text_fallback_and_policies_against_everything(everything):
    answers = iter(["Grace Hopper", "n", "", "", "", "", "", "", "", "", "", "", ""])
    outcomes = []

    async def on_elicit(ctx, params):
        if not outcomes:
            outcome = ask_text(
                params.requested_schema,
                message=params.message,
                server="everything",
                input_fn=lambda _prompt: next(answers),
                print_fn=lambda *a: None,
            )
        else:
            outcome = apply_policy(params.requested_schema, "defaults")  # name has no default
        assert validate(params.requested_schema, outcome.content or {}) == {} or outcome.action != "accept"
        outcomes.append(outcome)
        return _result(outcome)

    async def main():
        async with _client(everything, elicitation_callback=on_elicit) as client:
            first = await client.call_tool("trigger-elicitation-request", {})
            second = await client.call_tool("trigger-elicitation-request", {})
            return first, second

    first, second = asyncio.run(main())
    assert "Name: Grace Hopper" in _text(first) and "Agreed to terms: false" in _text(first)
    assert outcomes[1].action == "decline" and "name" in outcomes[1].reason
    assert "User declined" in _text(second)


def test_url_consent_sampling_and_progress_against_everything(everything):
    progress = ProgressView()
    progress.min_interval = 0

    async def on_elicit(ctx, params):
        assert params.mode == "url"
        got: list[FormOutcome] = []
        panel = UrlConsent(params.url, message=params.message, server="everything", on_done=got.append)
        assert "127.0.0.1" in panel.info.value and "<a href" in panel.link.value
        panel.buttons["accept"].click()
        return _result(got[0])

    async def on_sample(ctx, params):
        got = []
        panel = SamplingPanel(params, server="everything", on_done=got.append)
        assert "Say hi" in panel.info.value and "token limit 20" in panel.info.value
        panel.reply.value = "hi from a person"
        panel.buttons["accept"].click()
        return (await _answered(got)).to_result()

    async def on_progress(value, total, message):
        progress.update(value, total, message)

    async def main():
        async with _client(everything, elicitation_callback=on_elicit, sampling_callback=on_sample) as client:
            url = await client.call_tool(
                "trigger-url-elicitation", {"url": "http://127.0.0.1:9/callback", "elicitationId": "e-1"}
            )
            sample = await client.call_tool("trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20})
            long = await client.call_tool(
                "trigger-long-running-operation", {"duration": 1, "steps": 2}, progress_callback=on_progress
            )
            try:
                args = {"url": "https://example.com", "errorPath": True}
                await client.call_tool("trigger-url-elicitation", args)
            except MCPError as exc:
                required = exc
            else:
                raise AssertionError("expected -32042")
            return url, sample, long, required

    url, sample, long, required = asyncio.run(main())
    assert "completed the URL elicitation" in _text(url)
    assert "hi from a person" in _text(sample)
    assert "100%" in progress.label.value and not long.is_error
    assert required.error.code == -32042
    elicitations = required.error.data["elicitations"]
    retried = []
    panel = UrlConsent.retry_panel(
        elicitations[0]["url"],
        message=elicitations[0]["message"],
        server="everything",
        on_done=lambda o: None,
        on_retry=lambda: retried.append(True),
    )
    assert "modelcontextprotocol.io" in panel.info.value
    panel.buttons["retry"].click()
    assert retried == [True]
