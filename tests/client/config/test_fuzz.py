"""The config loader, fuzzed: any entry, any file text ends in a config or a located ConfigError,
never another exception (a person edits these files by hand)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpnb.client.config import ServerConfig, load_file
from mcpnb.client.config.validate import schema
from mcpnb.client.errors import ConfigError

KEYS = [*sorted(schema()["$defs"]["server"]["properties"]), "comand", "disabled", "name", "server", "x"]
_scalar = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(
        ["python", "http://[::1/mcp", "http://127.0.0.1:1/mcp", "${HOME}", "${NOPE:-x}", "$", "sse", "stdio"]
    )
)
_value = st.recursive(
    _scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
_entry = st.dictionaries(st.sampled_from(KEYS), _value, max_size=6)
_plausible = st.dictionaries(
    st.sampled_from(["args", "env", "cwd", "era", "enabled", "enabledTools", "disabled_tools", "maxRetries"])
    | st.sampled_from(["toolTimeoutSec", "retryDelay", "retry_delay", "healthCheckInterval", "cache_ttl"]),
    st.integers(0, 100_000) | st.sampled_from([[], ["a*"], {"K": "v"}, "auto", True, "legacy", ["--x"]]),
    max_size=5,
).map(lambda e: {"command": "python", **e})
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.text(max_size=12) | st.just("srv"), _entry | _plausible)
def test_any_entry_is_a_config_or_a_config_error(name, entry):
    try:
        cfg = ServerConfig.from_dict(name, entry, source=".mcp.json", environ={"HOME": "/home/x"})
    except ConfigError as exc:
        assert exc.file == ".mcp.json" and str(exc).startswith(".mcp.json")
        return
    assert cfg.name == name and cfg.transport in ("stdio", "http", "sse")
    for field in ("startup_timeout", "tool_timeout", "retry_delay", "health_check_interval", "cache_ttl"):
        assert math.isfinite(getattr(cfg, field)) and getattr(cfg, field) >= 0
    assert cfg.enabled_tools is None or len(cfg.enabled_tools) > 0
    assert repr(cfg) and cfg.redacted() and cfg.target  # showing it never fails either
    assert ServerConfig.from_dict(name, cfg._settings(), source=".mcp.json") == cfg  # units survive


@SETTINGS
@given(
    st.one_of(
        st.text(max_size=80),
        st.dictionaries(st.text(max_size=8), _entry, max_size=3).map(lambda s: json.dumps({"mcpServers": s})),
        st.integers(0, 3000).map(lambda n: "[" * n + "]" * n),
        st.integers(0, 3000).map(lambda n: '{"mcpServers": ' + '{"a": ' * n + "1" + "}" * n + "}"),
    )
)
def test_any_file_is_servers_or_a_config_error(tmp_path_factory, text):
    path: Path = tmp_path_factory.mktemp("cfg") / ".mcp.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        servers = load_file(path, environ={})
    except ConfigError as exc:
        assert exc.file == str(path)
        return
    assert all(isinstance(cfg, ServerConfig) for cfg in servers.values())
