"""The slow demo tool: real work, the halfway question in both eras, failure on purpose."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from mcpnb.probekit.tools.demo import primes_in
from tests.probekit.conftest import Answers


def test_primes() -> None:
    assert primes_in(0, 30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    assert len(primes_in(0, 1000)) == 168


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(("action", "confirmed", "steps"), [("accept", True, 4), ("decline", False, 2)])
async def test_confirmation_in_both_eras(
    server: Any, mode: str, action: str, confirmed: bool, steps: int
) -> None:
    answers = Answers(action, content={"proceed": True})
    async with Client(server, mode=mode, elicitation_callback=answers) as client:
        result = await client.call_tool("slow_task", {"steps": 4, "delay": 0, "confirm": True})
    data = result.structured_content
    assert data["confirmed"] is confirmed and len(data["steps"]) == steps
    assert data["totalPrimes"] == len(primes_in(0, steps * 1000))


@pytest.mark.anyio
async def test_fail_at_is_an_error_result(server: Any) -> None:
    async with Client(server) as client:
        result = await client.call_tool("slow_task", {"steps": 3, "delay": 0, "fail_at": 2})
        bad = await client.call_tool("slow_task", {"steps": 0})
    assert result.is_error and result.content[0].text == "Step 2 failed on purpose (fail_at=2)."
    assert bad.is_error and "steps must be 1–1000" in bad.content[0].text
