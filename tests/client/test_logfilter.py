"""The filter on other people's loggers: credentials in URLs and headers never reach a handler."""

from __future__ import annotations

import logging
import weakref

import pytest

from mcpnb.client import logfilter
from mcpnb.client.logfilter import SERVER_LOG, install, redact_text, remember_secrets

SECRET = "s3cr3t-Tok3n-value"


@pytest.fixture(autouse=True)
def no_live_connections(monkeypatch):
    """Secrets of connections other tests of this worker left alive (until collected) are scrubbed
    too: these tests see only their own."""
    monkeypatch.setattr(logfilter, "_secrets", weakref.WeakKeyDictionary())


@pytest.mark.parametrize(
    "text",
    [
        f'HTTP Request: POST http://ada:{SECRET}@127.0.0.1:8000/mcp "HTTP/1.1 200 OK"',
        f"GET http://127.0.0.1:8000/sse?token={SECRET}&x=1",
        f"GET http://127.0.0.1:8000/sse?api_key={SECRET}",
        f"https://{SECRET}@example.invalid/mcp",
        f"headers={{'Authorization': 'Bearer {SECRET}', 'accept': 'application/json'}}",
        f"Authorization: Bearer {SECRET}",
        f"[(b'content-type', b'text/plain'), (b'set-cookie', b'sid={SECRET}; Path=/')]",
        f'{{"X-Api-Key": "{SECRET}"}}',
        f"password={SECRET}",
    ],
)
def test_credentials_in_urls_and_headers_are_hidden(text):
    shown = redact_text(text)
    assert SECRET not in shown and "***" in shown


def test_ordinary_text_is_left_alone():
    text = 'HTTP Request: POST http://127.0.0.1:8000/mcp "HTTP/1.1 200 OK" content-type: application/json'
    assert redact_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "params._meta.progressToken: Field required",  # the SDK's validation words
        "sampling asked for max_tokens: 100",
        "usage input_tokens=5 output_tokens=7 token_count=12",
        "{'progressToken': 3, 'progress': 1}",
    ],
)
def test_token_counts_and_progress_tokens_are_shown(text):
    assert redact_text(text) == text


def test_a_list_of_tokens_stays_hidden():
    assert redact_text(f"API_TOKENS={SECRET}") == "API_TOKENS=***"


def test_secrets_a_connection_knows_are_scrubbed_while_it_lives():
    class Owner:
        pass

    owner = Owner()
    remember_secrets(owner, {"plain-value-with-no-name"})
    assert redact_text("the server said plain-value-with-no-name") == "the server said ***"
    del owner
    assert redact_text("plain-value-with-no-name") == "plain-value-with-no-name"


def test_records_of_watched_loggers_are_rewritten_before_any_handler(caplog):
    import mcp.client.session  # noqa: F401  (the SDK's loggers exist once it is imported)

    install()
    caplog.set_level(logging.DEBUG)
    logging.getLogger("httpx2").info("HTTP Request: %s %s", "POST", f"http://u:{SECRET}@127.0.0.1/mcp")
    try:
        raise ValueError(f"bad token={SECRET}")
    except ValueError:
        logging.getLogger("client").debug("failed", exc_info=True)  # the SDK session's logger
    assert SECRET not in caplog.text
    assert "http://u:***@127.0.0.1/mcp" in caplog.text and "token=***" in caplog.text


def test_sdk_warnings_in_a_session_go_to_its_log(caplog):
    import mcp.client.sse  # noqa: F401

    install()
    seen: list[str] = []
    caplog.set_level(logging.DEBUG)
    token = SERVER_LOG.set(lambda line, kind, traceback=(): seen.append(f"{kind}: {line}"))
    try:
        logging.getLogger("mcp.client.sse").error("Error in sse_reader", exc_info=ValueError("boom"))
        logging.getLogger("mcp.client.sse").debug("a debug line stays where it was")
    finally:
        SERVER_LOG.reset(token)
    assert seen == ["sdk: [error] Error in sse_reader (ValueError: boom)"]
    assert not any("sse_reader" in r.getMessage() for r in caplog.records)
    assert any("a debug line" in r.getMessage() for r in caplog.records)
