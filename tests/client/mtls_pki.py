"""A private CA, a server certificate for 127.0.0.1 and client certificates, made with
``cryptography`` in a folder; and the demo MCP server over HTTPS that asks for a client certificate
(uvicorn, ``ssl_cert_reqs=CERT_REQUIRED``), for the mutual TLS tests."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from conftest import DEMO, _accepts, wait_until

#: The client key's passphrase in the tests (an environment variable holds it).
PASSPHRASE = "correct-horse-battery"


@dataclass
class Pki:
    folder: Path
    ca: Path  # the CA's certificate: the server's chain, and what it trusts clients by
    server_cert: Path
    server_key: Path
    client_cert: Path  # the certificate alone
    client_key: Path  # its key, unencrypted
    client_both: Path  # certificate and key in one file
    client_key_encrypted: Path  # the key, encrypted with PASSPHRASE
    other_key: Path  # a key that belongs to no certificate here
    stranger_cert: Path  # a client certificate signed by another CA (the server does not trust it)
    stranger_key: Path


def make_pki(folder: Path, *, rfc5280: bool = True) -> Pki:
    """``rfc5280=False``: certificates without the key identifiers and key usage RFC 5280 asks for,
    as some private CAs issue them; Python 3.13 and later refuse those (``VERIFY_X509_STRICT`` is
    in ``ssl.create_default_context``'s flags), 3.11 and 3.12 accept them."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def issue(subject: str, key, issuer_name, issuer_key, *, ca=False, server=False):
        builder = (
            x509.CertificateBuilder().subject_name(name(subject)).issuer_name(issuer_name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )  # fmt: skip
        if rfc5280:  # what a strict (Python >= 3.13) check asks of each certificate
            builder = builder.add_extension(
                x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
            ).add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False
            )
            builder = builder.add_extension(
                x509.KeyUsage(
                    digital_signature=not ca,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=ca,
                    crl_sign=ca,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
        if server:
            san = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
            builder = builder.add_extension(san, critical=False).add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
            )
        elif not ca:
            builder = builder.add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
            )
        return builder.sign(issuer_key, hashes.SHA256())

    def pem(cert) -> bytes:
        return cert.public_bytes(serialization.Encoding.PEM)

    def key_pem(key, password: str | None = None) -> bytes:
        encryption = (
            serialization.BestAvailableEncryption(password.encode())
            if password
            else serialization.NoEncryption()
        )
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)

    def write(file: str, data: bytes) -> Path:
        path = folder / file
        path.write_bytes(data)
        return path

    ca_key = ec.generate_private_key(ec.SECP256R1())
    # (a name of its own without key identifiers: beside the other CA, the issuer is found by name)
    ca_name = "mcpnb test CA" if rfc5280 else "mcpnb test CA without key identifiers"
    ca = issue(ca_name, ca_key, name(ca_name), ca_key, ca=True)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = issue("127.0.0.1", server_key, ca.subject, ca_key, server=True)
    client_key = ec.generate_private_key(ec.SECP256R1())
    client = issue("notebook", client_key, ca.subject, ca_key)
    other_ca_key = ec.generate_private_key(ec.SECP256R1())
    other_ca = issue("another CA", other_ca_key, name("another CA"), other_ca_key, ca=True)
    stranger_key = ec.generate_private_key(ec.SECP256R1())
    stranger = issue("stranger", stranger_key, other_ca.subject, other_ca_key)
    return Pki(
        folder=folder,
        ca=write("ca.pem", pem(ca)),
        server_cert=write("server.pem", pem(server)),
        server_key=write("server-key.pem", key_pem(server_key)),
        client_cert=write("client.pem", pem(client)),
        client_key=write("client-key.pem", key_pem(client_key)),
        client_both=write("client-both.pem", pem(client) + key_pem(client_key)),
        client_key_encrypted=write("client-key-enc.pem", key_pem(client_key, PASSPHRASE)),
        other_key=write("other-key.pem", key_pem(ec.generate_private_key(ec.SECP256R1()))),
        stranger_cert=write("stranger.pem", pem(stranger)),
        stranger_key=write("stranger-key.pem", key_pem(stranger_key)),
    )


_SERVE = """
import socket, ssl, sys
sys.path.insert(0, {folder!r})
import uvicorn
from demo_server import create_server
kind, cert, key, ca = sys.argv[1:5]
server = create_server()
if kind == "http":
    app = server.streamable_http_app(streamable_http_path="/mcp")
else:
    app = server.sse_app(sse_path="/sse")
sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", 0))  # the port is this process's from the start (no other can take it)
sock.listen(128)
print(sock.getsockname()[1], flush=True)
config = uvicorn.Config(app, log_level="critical", timeout_graceful_shutdown=1, ssl_certfile=cert,
                        ssl_keyfile=key, ssl_ca_certs=ca, ssl_cert_reqs=ssl.CERT_REQUIRED)
uvicorn.Server(config).run(sockets=[sock])
"""


class MtlsServer:
    """The demo server over HTTPS on 127.0.0.1 that asks every client for a certificate its CA signed."""

    def __init__(self, pki: Pki, kind: str = "http") -> None:
        code = _SERVE.format(folder=str(Path(DEMO).parent))
        args = [kind, str(pki.server_cert), str(pki.server_key), str(pki.ca)]
        self.proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        said = self.proc.stdout.readline().strip()
        assert said.isdigit(), f"the HTTPS server did not start: {said!r}"
        port = int(said)
        self.url = f"https://127.0.0.1:{port}/{'mcp' if kind == 'http' else 'sse'}"
        assert wait_until(lambda: _accepts(port)), "the HTTPS server did not start"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class MtlsGateway:
    """A TLS-terminating gateway on 127.0.0.1 (as nginx or Envoy in front of an MCP server) that asks
    for a client certificate and relays plain HTTP to ``upstream`` (``host:port``).

    Blocking ``ssl`` sockets, unlike uvicorn's asyncio ones, send the TLS alert a refused client
    certificate gets ("certificate required", "unknown CA"), as real gateways do."""

    def __init__(self, pki: Pki, upstream: str) -> None:
        import socket
        import ssl
        import threading

        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(pki.server_cert, pki.server_key)
        self.context.load_verify_locations(cafile=pki.ca)
        self.context.verify_mode = ssl.CERT_REQUIRED
        host, _, port = upstream.partition(":")
        self.upstream = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        self.port = self.listener.getsockname()[1]

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def _serve(self) -> None:
        import threading

        while not self.done.is_set():
            try:
                sock, _ = self.listener.accept()
            except OSError:
                continue
            threading.Thread(target=self._relay, args=(sock,), daemon=True).start()

    def _relay(self, sock) -> None:
        import socket
        import ssl

        sock.settimeout(10)
        tls = self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        try:
            tls.do_handshake()
        except (OSError, ssl.SSLError):
            # OpenSSL has sent its alert: read what the client sent (below TLS) before closing, or
            # the close resets the connection and the alert may be lost on the way
            try:
                socket.socket.shutdown(tls, socket.SHUT_WR)
                tls.settimeout(2)
                while socket.socket.recv(tls, 65536):
                    pass
            except OSError:
                pass
            tls.close()
            return
        try:
            inner = socket.create_connection(self.upstream)
        except OSError:
            tls.close()
            return
        self._pipe(tls, inner)

    def _pipe(self, tls, inner) -> None:
        """Both directions in this one thread (an ``SSLSocket`` is not safe to read in one thread
        while another writes): the TLS side read without blocking (a TLS record that is not data,
        or half a record, would block a read that ``select`` said was ready), and what ``ssl`` has
        already decrypted (``pending``) read before waiting on the socket again."""
        import selectors
        import socket
        import ssl

        tls.settimeout(0)
        inner.settimeout(10)
        selector = selectors.DefaultSelector()
        selector.register(tls, selectors.EVENT_READ)
        selector.register(inner, selectors.EVENT_READ)
        try:
            while not self.done.is_set():
                ready = [tls] if tls.pending() else [key.fileobj for key, _ in selector.select(0.2)]
                for src in ready:
                    try:
                        data = src.recv(65536)
                    except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                        continue
                    if not data:
                        return
                    if src is tls:
                        inner.sendall(data)
                    else:
                        tls.settimeout(10)  # sendall through ssl waits for the socket itself
                        tls.sendall(data)
                        tls.settimeout(0)
        except (OSError, ssl.SSLError):
            pass
        finally:
            selector.close()
            for end in (tls, inner):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()

    def stop(self) -> None:
        self.done.set()
        self.thread.join(5)
        self.listener.close()
