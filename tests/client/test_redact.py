"""Secret-hiding helpers: names that mark secrets, URLs, headers, env, and scrubbing free text."""

from __future__ import annotations

import pytest

from mcpnb.client.redact import (
    REDACTED,
    is_secret_key,
    redact_env,
    redact_headers,
    redact_url,
    scrub,
    url_secrets,
)


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "authorization",
        "Proxy-Authorization",
        "Cookie",
        "set-cookie",
        "X-Api-Key",
        "api_key",
        "apiKey",
        "API_KEY",
        "APIKEY",
        "key",
        "GITHUB_TOKEN",
        "X-Auth-Token",
        "client_secret",
        "DB_PASSWORD",
        "passwd",
        "aws_credentials",
        "API_TOKENS",
        "tokens",
        "refresh_token",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_key(name)


@pytest.mark.parametrize(
    "name",
    [
        *["Accept", "Content-Type", "PATH", "MONKEY", "keyboard", "User-Agent", "HOME"],
        # language-model token counts and MCP's progress token are not credentials
        *["max_tokens", "maxTokens", "MAX_TOKENS", "output_tokens", "token_count", "progressToken"],
    ],
)
def test_ordinary_names(name: str) -> None:
    assert not is_secret_key(name)


def test_redact_headers_shows_only_headers_that_never_carry_a_credential() -> None:
    """A custom header is how many servers take their key (``X-Custom-Thing: {{tok}}`` went out in
    full): only well-known plain headers keep their values."""
    shown = redact_headers(
        {
            "X-Api-Key": "k-123456",
            "Authorization": "Bearer abcdef",
            "X-Custom-Thing": "SECRETVAR2",
            "X-Auth": "SECRETXAUTH",
            "Accept": "text/plain",
            "User-Agent": "notebook",
        }
    )
    assert shown == {
        "X-Api-Key": REDACTED,
        "Authorization": REDACTED,
        "X-Custom-Thing": REDACTED,
        "X-Auth": REDACTED,
        "Accept": "text/plain",
        "User-Agent": "notebook",
    }


def test_redact_env_hides_every_value_and_keeps_names() -> None:
    assert redact_env({"DEBUG": "1", "PATH": "/bin", "TOKEN": "t0ken-value"}) == {
        "DEBUG": REDACTED,
        "PATH": REDACTED,
        "TOKEN": REDACTED,
    }


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com/mcp", "https://example.com/mcp"),
        ("https://user:hunter22@example.com/mcp", f"https://user:{REDACTED}@example.com/mcp"),
        ("https://ghp_abcdef@example.com/mcp", f"https://{REDACTED}@example.com/mcp"),
        ("http://h/sse?token=abc123&x=1", f"http://h/sse?token={REDACTED}&x=1"),
        ("http://h/sse?access_token=abc123", f"http://h/sse?access_token={REDACTED}"),
        (
            "http://h/?api_key=zzzz&apiKey=yyyy&key=kkkk",
            f"http://h/?api_key={REDACTED}&apiKey={REDACTED}&key={REDACTED}",
        ),
        ("http://h/?secret=s3cr3t&page=2", f"http://h/?secret={REDACTED}&page=2"),
        ("http://h/cb#access_token=frag-tok&state=9", f"http://h/cb#access_token={REDACTED}&state=9"),
        # the scheme left out (a typo the URL check then reports): still a password, still hidden
        ("user:hunter22@example.com/mcp", f"user:{REDACTED}@example.com/mcp"),
        ("ghp_abcdef@example.com/mcp?token=t0k3n", f"{REDACTED}@example.com/mcp?token={REDACTED}"),
        ("example.com/a@b", "example.com/a@b"),
        # secret paths of hosted servers (base64, a UUID); slugs, versions and ports stay
        ("https://h/api/mcp/s/ZjQ2YTk4MmEtNzY4Ny00ZDU2==/mcp", f"https://h/api/mcp/s/{REDACTED}/mcp"),
        ("https://h/server/3f2a9c1e-8b7d-4e6f-a5b4-1c2d3e4f5a6b/mcp", f"https://h/server/{REDACTED}/mcp"),
        (
            "https://h/weather-forecast-tools/my-server-2024/mcp",
            "https://h/weather-forecast-tools/my-server-2024/mcp",
        ),
        ("http://127.0.0.1:8080/v1/2025-11-25/sse", "http://127.0.0.1:8080/v1/2025-11-25/sse"),
    ],
)
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected


def test_a_url_without_its_scheme_is_refused_without_showing_its_password() -> None:
    """The config check quoted ``u:hunter22@host/mcp`` whole: redaction only knew URLs with a scheme."""
    from mcpnb.client.config import ServerConfig
    from mcpnb.client.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        ServerConfig.from_dict("w", {"url": "u:hunter22@mcp.example.com/mcp"})
    said = str(info.value)
    assert "hunter22" not in said and "did you mean 'https://u:***@mcp.example.com/mcp'?" in said
    with pytest.raises(ConfigError, match=r"did you mean 'http://127\.0\.0\.1:8765/mcp'\?"):
        ServerConfig.from_dict("w", {"url": "127.0.0.1:8765/mcp"})  # a local one: http
    with pytest.raises(ConfigError, match=r"did you mean 'http://u:\*\*\*@localhost:8765/mcp'\?"):
        ServerConfig.from_dict(
            "w", {"url": "u:hunter22@localhost:8765/mcp"}
        )  # the host decides, not the user
    with pytest.raises(ConfigError, match="expected an http:// or https:// URL"):
        ServerConfig.from_dict("w", {"url": "[::1/mcp"})  # no host to read: still the config error
    # a mistyped scheme is mended, not prefixed ("did you mean 'https://htp:/127.0.0.1:1/mcp'?")
    with pytest.raises(ConfigError, match=r"did you mean 'http://127\.0\.0\.1:1/mcp'\?"):
        ServerConfig.from_dict("w", {"url": "htp:/127.0.0.1:1/mcp"})
    with pytest.raises(ConfigError, match=r"did you mean 'https://mcp\.example\.com/mcp'\?"):
        ServerConfig.from_dict("w", {"url": "htps://mcp.example.com/mcp"})


@pytest.mark.parametrize("url", ["uvx mcp-server-fetch", "/usr/local/bin/srv", "./server.py", "mcp-server-x"])
def test_a_program_given_as_the_url_says_where_a_command_goes(url: str) -> None:
    """It was "did you mean 'https://uvx mcp-server-fetch'?"."""
    from mcpnb.client.config import ServerConfig
    from mcpnb.client.errors import ConfigError

    with pytest.raises(ConfigError, match=r"looks like a program to start.*takes 'command'") as info:
        ServerConfig.from_dict("w", {"url": url})
    assert "did you mean" not in str(info.value)


def test_url_secrets_are_the_hidden_values() -> None:
    assert url_secrets("https://u:pw-9999@h/sse?token=abc%2F123&x=1") == {"pw-9999", "abc%2F123", "abc/123"}
    assert url_secrets("https://h/mcp?page=2") == set()
    assert url_secrets("https://h/s/ZjQ2YTk4MmEtNzY4Ny00ZDU2/mcp") == {"ZjQ2YTk4MmEtNzY4Ny00ZDU2"}


def test_scrub_replaces_every_occurrence_longest_first() -> None:
    text = "auth abcd1234efgh failed; retry with abcd1234 then abcd1234"
    out = scrub(text, ["abcd1234", "abcd1234efgh"])
    assert out == f"auth {REDACTED} failed; retry with {REDACTED} then {REDACTED}"


def test_scrub_ignores_short_and_missing_values() -> None:
    assert scrub("on port 123 with abc", ["on", "123", "abc", None, ""]) == "on port 123 with abc"


def test_scrub_escapes_regex_characters() -> None:
    assert scrub("key a+b(c)*d. end", ["a+b(c)*d."]) == f"key {REDACTED} end"
