"""Real servers for the toolbox tests: probe-kit and a shapes server in-process, server-everything
(npm) and mcp-server-time (PyPI) over stdio, all in one pool for the whole session (the tests only
read tool lists and make calls that change nothing); plus helpers that check what we produce with
each LLM SDK's own types."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SERVERS = Path(__file__).resolve().parents[2] / "servers"
sys.path.insert(0, str(SERVERS))

from shapes_server import create_server as create_shapes  # noqa: E402


@pytest.fixture(scope="session")
def peers(everything: str) -> Iterator[Any]:
    """A pool with probe, everything, time and shapes connected."""
    from mcpnb.client.pool import Pool
    from mcpnb.client.runtime import Runtime
    from mcpnb.probekit import create_server

    runtime = Runtime(name="mcpnb-toolbox-tests")
    pool = Pool(runtime)
    pool.connect("probe", server=create_server())
    pool.connect("everything", command="node", args=[everything, "stdio"])
    pool.connect("time", command=sys.executable, args=["-m", "mcp_server_time", "--local-timezone", "UTC"])
    pool.connect("shapes", server=create_shapes())
    try:
        yield pool
    finally:
        pool.close()
        runtime.close()


@pytest.fixture(scope="session")
def toolbox(peers: Any) -> Any:
    return peers.functions()


@pytest.fixture
def shapes(pool: Any) -> Any:
    """A fresh shapes server of its own (its rendezvous starts empty) in this test's pool."""
    pool.connect("shapes", server=create_shapes())
    return pool


def exactly(adapter: Any, value: Any) -> Any:
    """Validate ``value`` with a pydantic TypeAdapter over an SDK TypedDict and insist that nothing
    was dropped or coerced on the way (TypedDicts ignore unknown keys: a round trip shows them)."""
    validated = adapter.validate_python(value)
    assert adapter.dump_python(validated, mode="json") == json.loads(json.dumps(value))
    return validated


def gemini_exactly(model: Any, value: dict[str, Any], *, camel: bool = True) -> Any:
    """Validate with a google-genai model (it forbids unknown keys) and compare the round trip
    (``camel``: the value uses the REST spelling, as our specs do)."""
    parsed = model.model_validate(value)
    dumped = parsed.model_dump(mode="json", by_alias=camel, exclude_none=True)
    assert dumped == _normal(json.loads(json.dumps(value)))
    return parsed


def _normal(value: Any) -> Any:
    """Gemini's dump spells types in capitals and enums as their values: compare like with like
    (``parametersJsonSchema`` is JSON Schema, kept as it is)."""
    if isinstance(value, dict):
        return {
            k: v
            if k == "parametersJsonSchema"
            else v.upper()
            if k == "type" and isinstance(v, str)
            else _normal(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value
