"""Whole %mcp lines, fuzzed, through IPython's magic machinery against a real (in-process) server:
anything a person can type ends in a result or in one of the documented errors, never a crash."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError

from mcpnb import McpnbError

from .conftest import line

#: Subcommands that only read or call harmless tools (never connect: that would start programs).
SUBCOMMANDS = ["call", "tools", "status", "help", "prompt", "prompts", "read", "resources", "logs"]
TARGETS = ["demo.echo", "demo.add", "demo.point", "demo.fail", "demo.nope", "demo", "nope.x", "demo."]
_words = st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=12)
_pairs = st.tuples(
    st.sampled_from(["text", "a", "b", "x", "y", "message", "-o", "--raw", "--timeout"]), _words
)


@pytest.fixture
def mcp_with_demo(ip: Any, mcp: Any) -> Any:
    from conftest import demo_server_object

    mcp.pool.connect("demo", server=demo_server_object(), health_check_interval=0)
    return ip


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from(SUBCOMMANDS),
    st.sampled_from(TARGETS),
    st.lists(_pairs, max_size=4),
)
def test_any_line_ends_in_a_result_or_a_documented_error(mcp_with_demo: Any, sub, target, pairs):
    ip = mcp_with_demo
    text = " ".join([sub, target, *(f"{k}={v}" if not k.startswith("-") else f"{k} {v}" for k, v in pairs)])
    try:
        line(ip, text)
    except (UsageError, McpnbError) as exc:
        assert str(exc).strip()  # a message a person can read
