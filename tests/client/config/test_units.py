"""Units: the plan's camelCase time keys count milliseconds, everything else seconds; a number in the
wrong unit is a located ConfigError that says which unit and what to write; the README says it too.
Also the inputs that used to escape as bare Python errors: a broken URL, a 5000-deep file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mcpnb.client.config import ServerConfig, load_file
from mcpnb.client.config.keys import ALIASES, MILLISECOND_KEYS
from mcpnb.client.config.validate import schema
from mcpnb.client.errors import ConfigError

README = Path(__file__).resolve().parents[3] / "README.md"


@pytest.mark.parametrize(
    ("key", "value", "field", "seconds"),
    [
        ("healthCheckInterval", 60_000, "health_check_interval", 60.0),  # not every 16.7 hours
        ("health_check_interval", 60, "health_check_interval", 60.0),
        ("retryDelay", 250, "retry_delay", 0.25),
        ("retry_delay", 0.25, "retry_delay", 0.25),
        ("cacheTtl", 300_000, "cache_ttl", 300.0),
        ("cache_ttl", 300, "cache_ttl", 300.0),
        ("healthCheckInterval", 0, "health_check_interval", 0.0),  # 0 switches probes off, any unit
        ("toolTimeoutSec", 20, "tool_timeout", 20.0),  # "Sec" says seconds
    ],
)
def test_each_spelling_counts_in_its_unit(key, value, field, seconds):
    assert getattr(ServerConfig.from_dict("s", {"command": "x", key: value}), field) == seconds


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "healthCheckInterval",
            60,
            "counts milliseconds, and 60 ms looks like a number of seconds; "
            "write 60000, or health_check_interval: 60 in seconds",
        ),
        (
            "health_check_interval",
            60_000,
            "counts seconds, and 60000 s (16.7 hours) looks like milliseconds; "
            "write 60, or healthCheckInterval: 60000 in milliseconds",
        ),
        (
            "retryDelay",
            2,
            "counts milliseconds, and 2 ms looks like a number of seconds; "
            "write 2000, or retry_delay: 2 in seconds",
        ),
        (
            "retry_delay",
            1000,
            "counts seconds, and 1000 s (16.7 minutes) looks like milliseconds; "
            "write 1, or retryDelay: 1000 in milliseconds",
        ),
        ("cacheTtl", 5, "counts milliseconds, and 5 ms looks like a number of seconds"),
        ("retryDelay", 0.001, "0.001 ms is outside 10..600000 ms (0 switches it off)"),
    ],
)
def test_a_number_in_the_wrong_unit_says_so(key, value, message):
    with pytest.raises(ConfigError) as info:
        ServerConfig.from_dict("s", {"command": "x", key: value}, source=".mcp.json")
    err = info.value
    assert (err.file, err.server, err.key) == (".mcp.json", "s", key)
    assert message in str(err)


def test_code_counts_seconds_like_snake_case():
    assert ServerConfig.build("s", command="x", retry_delay=0.05).retry_delay == 0.05
    with pytest.raises(ConfigError, match="looks like milliseconds"):
        ServerConfig.build("s", command="x", health_check_interval=30_000)


def test_millisecond_keys_allow_a_day_in_milliseconds():
    cfg = ServerConfig.from_dict("s", {"command": "x", "cacheTtl": 86_400_000})
    assert cfg.cache_ttl == 86400
    with pytest.raises(ConfigError, match=r"86400001 ms is absurd: the limit is 86400000 ms"):
        ServerConfig.from_dict("s", {"command": "x", "cacheTtl": 86_400_001})


def test_an_empty_enabled_tools_list_means_no_filter():
    for key in ("enabledTools", "enabled_tools"):
        assert ServerConfig.from_dict("s", {"command": "x", key: []}).enabled_tools is None
    assert ServerConfig(name="s", transport="stdio", command="x", enabled_tools=[]).enabled_tools is None
    assert ServerConfig.from_dict("s", {"command": "x", "enabledTools": ["a"]}).enabled_tools == ("a",)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[::1/mcp", "not a valid URL (Invalid IPv6 URL): 'http://[::1/mcp'"),
        ("http://127.0.0.1:port/mcp", "not a valid URL (Port could not be cast to integer value as 'port')"),
        ("http://u:pw-secret@[::1/mcp", "not a valid URL (Invalid IPv6 URL)"),
    ],
)
def test_a_broken_url_is_a_config_error(url, why):
    with pytest.raises(ConfigError) as info:
        ServerConfig.from_dict("s", {"url": url}, source=".mcp.json")
    assert info.value.key == "url" and why in str(info.value)
    assert "pw-secret" not in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        '{"mcpServers": {"a": {"command": "x", "env": ' + "[" * 5000 + "]" * 5000 + "}}}",
        "[" * 50_000 + "]" * 50_000,  # deeper than any Python's json reads (3.13's reads 5000: a list)
        '{"mcpServers": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}",
    ],
)
def test_a_5000_deep_file_is_a_config_error(tmp_path, text):
    path = tmp_path / ".mcp.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_file(path)
    assert info.value.file == str(path) and "nested too deeply" in str(info.value)


def test_a_5000_deep_setting_from_code_is_a_config_error():
    deep: dict = {}
    cur = deep
    for _ in range(5000):
        cur["k"] = {}
        cur = cur["k"]
    with pytest.raises(ConfigError, match="nested too deeply"):
        ServerConfig.from_dict("s", {"command": "x", "env": deep})


def _readme_keys() -> dict[str, str]:
    """Every spelling in the README's key table -> the unit column of its row."""
    section = README.read_text().split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| `")]
    found = {}
    for key, spellings, unit, *_ in rows:
        for name in re.findall(r"`([A-Za-z_]+)`", key + spellings):
            found[name] = ("milliseconds" if name in MILLISECOND_KEYS and "ms" in spellings else unit).strip()
    return found


def test_the_readme_table_names_every_key_and_its_unit():
    table = _readme_keys()
    keys = set(schema()["$defs"]["server"]["properties"])
    assert sorted(keys - set(table)) == []
    seconds = {
        "startup_timeout",
        "tool_timeout",
        "max_total_timeout",
        "retry_delay",
        "health_check_interval",
        "cache_ttl",
    }
    for name, unit in table.items():
        field = ALIASES.get(name, name)
        if name in MILLISECOND_KEYS:
            assert unit == "milliseconds", name
        elif field in seconds:
            assert unit == "seconds", name


def test_the_shipped_schema_knows_the_millisecond_keys():
    shipped = json.loads(json.dumps(schema()))
    props = shipped["$defs"]["server"]["properties"]
    for camel in MILLISECOND_KEYS:
        assert props[camel] == {"$ref": "#/$defs/milliseconds"}


def test_a_server_with_an_empty_enabled_tools_list_shows_every_tool(pool):
    from conftest import demo_server_object

    pool.connect("demo", server=demo_server_object(), config={"enabledTools": []})
    names = {t.name for t in pool.tools("demo")}
    assert {"echo", "add", "slow"} <= names
    assert pool.call("demo", "add", {"a": 1, "b": 2}).data == 3
