"""What sits between mcpnb and an HTTP server: a proxy named by the environment, a middlebox that
closes idle connections, a certificate the client does not trust.

Real local peers only: the demo server, and ``tests/servers/net_proxy.py`` (a forward proxy with
``--map``, so the server's address is one only the proxy can reach, or a relay that cuts idle
connections).
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator

import pytest
from conftest import HttpServer, free_port

from mcpnb.client.errors import describe
from mcpnb.client.retry import is_retryable

QUIET = {"health_check_interval": 0, "retry_delay": 0.05, "max_retries": 3, "startup_timeout": 15}
#: a name only the proxy knows (``.test`` is reserved: never resolved here, the proxy maps it to the
#: server on 127.0.0.1); a loopback address would go direct, as this machine's servers always do
UNREACHABLE = "mcp.corp.test:9"


@pytest.fixture
def demo() -> Iterator[HttpServer]:
    server = HttpServer("http")
    yield server
    server.stop()


def _port(url: str) -> str:
    return url.split("/")[2].split(":")[1]


def test_http_proxy_from_the_environment_carries_mcp(pool, demo, start_proxy, no_proxy_env) -> None:
    port = start_proxy("--map", f"{UNREACHABLE}=127.0.0.1:{_port(demo.url)}")
    no_proxy_env.setenv("HTTP_PROXY", f"http://user:pw@127.0.0.1:{port}")
    pool.connect("p", url=f"http://{UNREACHABLE}/mcp", config=QUIET)
    assert pool.call("p", "echo", {"text": "through"}).text == "through"


def test_no_proxy_goes_direct(pool, demo, no_proxy_env) -> None:
    no_proxy_env.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    no_proxy_env.setenv("NO_PROXY", "127.0.0.1")
    pool.connect("d", url=demo.url, config=QUIET)
    assert pool.call("d", "echo", {"text": "direct"}).text == "direct"


def test_this_machines_own_server_goes_direct_whatever_the_proxy(pool, demo, no_proxy_env) -> None:
    """A corporate HTTP_PROXY (set for pip and the web) without NO_PROXY: a notebook's own
    127.0.0.1 or localhost server is reached directly, as it always was and as browsers do."""
    no_proxy_env.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    pool.connect("d", url=demo.url, config=QUIET)
    assert pool.call("d", "echo", {"text": "direct"}).text == "direct"
    pool.connect("l", url=demo.url.replace("127.0.0.1", "localhost"), config=QUIET)
    assert pool.call("l", "echo", {"text": "local"}).text == "local"


def test_a_socks_proxy_in_the_environment_breaks_nothing(pool, demo, no_proxy_env) -> None:
    """GNOME and KDE export all_proxy=socks://…: building its transport raised ("Unknown scheme
    for proxy URL") before any request, so no HTTP server connected, 127.0.0.1's neither."""
    no_proxy_env.setenv("all_proxy", "socks://127.0.0.1:1080/")
    pool.connect("s", url=demo.url, config=QUIET)
    assert pool.call("s", "echo", {"text": "fine"}).text == "fine"


def test_a_proxy_that_is_down_is_named_not_the_server(pool, no_proxy_env) -> None:
    port = free_port()
    no_proxy_env.setenv("HTTP_PROXY", f"http://user:hunter2@127.0.0.1:{port}")
    with pytest.raises(Exception) as caught:
        pool.connect("p", url=f"http://{UNREACHABLE}/mcp", config={**QUIET, "max_retries": 0})
    said = str(caught.value)
    assert f"proxy http://***@127.0.0.1:{port}" in said, said
    assert "hunter2" not in said and "is the server at" not in said


def test_a_proxy_asking_for_credentials_is_named(pool, start_proxy, no_proxy_env) -> None:
    port = start_proxy("--mode", "407")
    no_proxy_env.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    with pytest.raises(Exception) as caught:
        pool.connect("p", url=f"http://{UNREACHABLE}/mcp", config={**QUIET, "max_retries": 0})
    said = str(caught.value)
    assert f"said by the proxy http://127.0.0.1:{port}" in said and "user:password@" in said, said


def test_a_relay_cutting_idle_connections_ends_no_session(pool, demo, start_proxy, no_proxy_env) -> None:
    """The idle GET stream of server messages is cut again and again; calls go on, on one session."""
    port = start_proxy("--mode", "relay-idle5", "--idle", "1", "--relay", f"127.0.0.1:{_port(demo.url)}")
    pool.connect("r", url=f"http://127.0.0.1:{port}/mcp", config={**QUIET, "era": "legacy"})
    for n in range(3):
        time.sleep(2.2)  # the GET stream idles past the relay's limit: cut
        assert pool.call("r", "echo", {"text": f"still {n}"}).text == f"still {n}"
    row = pool.status()["r"]
    assert row.state == "connected" and row.retries == 0, row
    assert not [line for line in pool.logs("r") if "lost" in line or "reconnecting" in line]


@pytest.fixture
def untrusted_tls(tmp_path) -> Iterator[str]:
    """A TLS server on 127.0.0.1 whose self-signed certificate nobody trusts (it answers nothing)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mcpnb test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256())
    )  # fmt: skip
    (tmp_path / "c.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "k.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "c.pem", tmp_path / "k.pem")
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                sock, _ = listener.accept()
            except OSError:
                continue
            try:
                with context.wrap_socket(sock, server_side=True):
                    pass
            except (OSError, ssl.SSLError):
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{listener.getsockname()[1]}/mcp"
    done.set()
    thread.join(5)
    listener.close()


def _failure(url: str) -> BaseException:
    import httpx2

    try:
        httpx2.get(url, timeout=5)
    except Exception as exc:
        return exc
    raise AssertionError("no failure")


def test_an_untrusted_certificate_is_said_and_not_retried(untrusted_tls, no_proxy_env) -> None:
    no_proxy_env.delenv("SSL_CERT_FILE", raising=False)
    exc = _failure(untrusted_tls)
    said = describe(exc)
    assert said.startswith("TLS certificate problem") and "SSL_CERT_FILE" in said, said
    assert "is the server" not in said
    assert not is_retryable(exc)


def test_https_to_a_plain_http_port_is_not_retried(demo, no_proxy_env) -> None:
    exc = _failure(demo.url.replace("http://", "https://"))
    assert "plain HTTP" in describe(exc)
    assert not is_retryable(exc)


def test_a_missing_ssl_cert_file_is_named(no_proxy_env, tmp_path) -> None:
    missing = tmp_path / "nowhere" / "ca.pem"
    no_proxy_env.setenv("SSL_CERT_FILE", str(missing))
    exc = _failure("https://127.0.0.1:9/")
    said = describe(exc)
    assert "SSL_CERT_FILE" in said and str(missing) in said, said


def test_a_missing_ssl_cert_dir_is_not_blamed_for_another_missing_file(no_proxy_env, tmp_path) -> None:
    """httpx reads SSL_CERT_DIR only where it is a folder: a missing one breaks nothing, and a file
    not found elsewhere was put down to it."""
    no_proxy_env.delenv("SSL_CERT_FILE", raising=False)
    no_proxy_env.setenv("SSL_CERT_DIR", str(tmp_path / "no-such-dir"))
    said = describe(FileNotFoundError(2, "No such file or directory"))
    assert "SSL_CERT_DIR" not in said and "file not found" in said, said
