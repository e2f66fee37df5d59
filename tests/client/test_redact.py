"""Secret-hiding helpers: names that mark secrets, URLs, headers, env, and scrubbing free text."""

from __future__ import annotations

import pytest

from mcpnb.client.redact import (
    FRAGMENT_CHARS,
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
    basic = "dTpwdy05OTk5"  # base64("u:pw-9999"): what the HTTP client sends for the userinfo
    assert url_secrets("https://u:pw-9999@h/sse?token=abc%2F123&x=1") == {
        "pw-9999",
        basic,
        "abc%2F123",
        "abc/123",
    }
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


# ------------------------------------------------------------------ a URL's credentials as sent
@pytest.mark.parametrize(
    "url",
    [
        "http://bob:BobPass-9876@127.0.0.1:8000/mcp",
        "http://b%40corp:p%3Ass%20word@127.0.0.1:8000/mcp",  # percent-encoded: sent decoded
        "http://ghp_Q7rT2xLm9KpZ4vWb8NcY1dHs6JfA3eGu@127.0.0.1:8000/mcp",  # a token as the username
    ],
)
def test_url_secrets_hold_the_basic_credential_the_http_client_sends(url: str) -> None:
    # a server whose error quotes its Authorization header showed "Basic Ym9iOkJvYlBhc3MtOTg3Ng=="
    import httpx2

    sent: list[str] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append(request.headers["authorization"])
        return httpx2.Response(200)

    with httpx2.Client(transport=httpx2.MockTransport(answer)) as client:
        client.get(url)
    scheme, credential = sent[0].split(" ")
    assert scheme == "Basic" and credential in url_secrets(url)
    assert scrub(f"you sent {sent[0]}", url_secrets(url)) == f"you sent Basic {REDACTED}"


# ------------------------------------------------------------------ pieces of a long secret
TOKEN = "eyJhbGciOiJIUzI1NiJ9.A0aH1dO2gV3jC4mJ5pQ6sX7vE8yL9bS0eZ1hG2kN3nU4qB5tI6wP7zW8cD9fK0iR1lY2oF3rM4uT5"


def test_a_long_secret_folded_across_lines_is_hidden_in_every_line() -> None:
    # rich folds a token longer than the free width: no line holds the whole value
    lines = [
        f"12:00:01 WARNING using credential {TOKEN[:41]}",
        f"      {TOKEN[41:80]}  ",
        f"  {TOKEN[80:]} end",
    ]
    assert [scrub(line, [TOKEN]) for line in lines] == [
        f"12:00:01 WARNING using credential {REDACTED}",
        f"      {REDACTED}  ",
        f"  {REDACTED} end",
    ]


def test_pieces_side_by_side_are_hidden_as_one() -> None:
    assert scrub(f"a {TOKEN[3:40]}{TOKEN[50:80]} b", [TOKEN]) == f"a {REDACTED} b"


def test_a_long_word_inside_a_secret_is_hidden_in_pieces() -> None:
    # an env value "Bearer <token>": rich folds the token, not the words before it
    assert scrub(f"x {TOKEN[20:60]} y", [f"Bearer {TOKEN}"]) == f"x {REDACTED} y"


def test_runs_shorter_than_a_fragment_and_pieces_of_short_secrets_stay() -> None:
    # ordinary text shares short runs with secrets; a secret shorter than FRAGMENT_CHARS fits a line
    assert (
        scrub(f"id {TOKEN[5 : 5 + FRAGMENT_CHARS - 1]} ok", [TOKEN])
        == f"id {TOKEN[5 : 5 + FRAGMENT_CHARS - 1]} ok"
    )
    short = "apiSECRETz9y8x7"
    assert len(short) < FRAGMENT_CHARS
    assert scrub("key apiSECRETz9y8 cut", [short]) == "key apiSECRETz9y8 cut"


def test_plain_paths_in_a_path_list_are_not_taken_for_pieces_of_a_secret() -> None:
    # PYTHONPATH="/home/ann/project/src:/opt/lib" is scrubbed whole (not plain as a whole), but the
    # paths in it are in every traceback the server prints
    line = 'File "/home/ann/project/src/app/main.py", line 3'
    assert scrub(line, ["/home/ann/project/src:/opt/lib/python3.11"]) == line


@pytest.mark.parametrize(
    ("secret", "text"),
    [
        (
            "postgresql://admin:pw@db.internal.example.com:5432/analytics_warehouse",
            "could not connect to server db.internal.example.com port 5432; "
            "relation analytics_warehouse.events",
        ),
        ("--max-old-space-size=4096 --enable-source-maps", "use --enable-source-maps for traces"),
    ],
)
def test_words_of_a_secret_that_are_no_token_are_not_hidden_wherever_they_show(
    secret: str, text: str
) -> None:
    """A DSN's host and database, an option in NODE_OPTIONS: hidden in pieces, they broke the very
    errors people debug with (the whole value is still hidden)."""
    assert scrub(text, [secret]) == text
    assert scrub(f"DSN={secret}", [secret]) == "DSN=***"


def test_what_a_person_typed_is_hidden_quoted_always_bare_where_it_stands_alone():
    from mcpnb.client.redact import hide_typed

    assert hide_typed("not a whole number: '97x'", "97x", "•") == "not a whole number: •"  # quoted
    assert hide_typed("97x is no number", "97x", "•") == "97x is no number"  # bare and short: a word
    assert hide_typed("pin 5432 is not 54321 nor 15432", "5432", "•") == "pin • is not 54321 nor 15432"
    assert hide_typed("pin 5432x or a5432", "5432", "•") == "pin •x or a•"  # only digits spare it
    assert hide_typed("got hunter22 at port 8080", "hunter22", "•") == "got • at port 8080"
    assert hide_typed("xxhunter22xx", "hunter22", "•") == "xx•xx"  # long: hidden wherever it is
    # short, not all digits: hidden inside words too, as before
    assert hide_typed("/users/hunter2/ token=xAb12cd flag x-pw12 unknown", "hunter", "•") == (
        "/users/•2/ token=xAb12cd flag x-pw12 unknown"
    )
    assert hide_typed("token=xAb12cd x-pw12", "Ab12cd", "•") == "token=x• x-pw12"
    assert hide_typed("flag x-pw12 unknown", "-pw12", "•") == "flag x• unknown"
    assert hide_typed('said "a\\"b12"', 'a"b12', "•") == "said •"  # its JSON form
