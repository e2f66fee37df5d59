"""Large structured results arrive whole over every transport (the SDK's 1 MiB SSE event limit refused
them in the 2025-11-25 era, where a tool result travels as one server-sent event)."""

from __future__ import annotations

import pytest
from conftest import demo_command

ROWS = 20_000  # about 1.7 MB of JSON: over the SDK's default 1 MiB event limit


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_result_over_one_mebibyte_over_http(pool, http_url, era):
    pool.connect("demo", url=http_url, era=era)
    result = pool.call("demo", "rows", {"n": ROWS})
    assert not result.is_error, result.text[:300]
    assert len(result.data["rows"]) == ROWS and result.data["rows"][-1]["id"] == ROWS - 1
    assert result.schema_valid is True
    assert len(result.df) == ROWS


def test_a_result_over_one_mebibyte_over_stdio(pool):
    pool.connect("demo", **demo_command())
    result = pool.call("demo", "rows", {"n": ROWS})
    assert len(result.data["rows"]) == ROWS and result.schema_valid is True
