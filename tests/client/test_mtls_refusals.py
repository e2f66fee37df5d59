"""An application behind a TLS gateway that took the client certificate answers 401: it wants a
token the certificate is not, and the error must not blame the certificate (it said "the server
rejected the credentials, the client certificate (tls.cert)"). The 403 case is in test_mtls.py."""

from __future__ import annotations

import http.server
import threading

import pytest

from mcpnb.client.errors import AuthError, ConnectError
from tests.client.mtls_pki import MtlsGateway, make_pki
from tests.client.test_refused_pages import _Firewall


def test_a_401_behind_a_gateway_that_took_the_certificate_asks_for_a_token(pool, tmp_path) -> None:
    pki = make_pki(tmp_path)
    app = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("App", (_Firewall,), {"status": 401}))
    threading.Thread(target=app.serve_forever, daemon=True).start()
    front = MtlsGateway(pki, f"127.0.0.1:{app.server_address[1]}")
    try:
        tls = {"ca": str(pki.ca), "cert": str(pki.client_cert), "key": str(pki.client_key)}
        with pytest.raises((ConnectError, AuthError)) as info:
            pool.connect("who", url=front.url("/mcp"), config={"tls": tls, "max_retries": 0})
        said = str(info.value)
        assert "HTTP 401" in said and "none were sent" in said, said
        assert "certificate" not in said and "rejected the credentials" not in said, said
    finally:
        front.stop()
        app.shutdown()
        app.server_close()
