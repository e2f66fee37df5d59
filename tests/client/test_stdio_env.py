"""What a stdio server's environment holds: the kernel's network settings, not its secrets."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

SHOW_ENV = textwrap.dedent(
    """
    import json, os, sys
    from mcp.server import MCPServer

    print("proxy:", os.environ.get("HTTPS_PROXY"), file=sys.stderr, flush=True)  # as a server may log it

    srv = MCPServer("env", log_level="WARNING")

    @srv.tool()
    def environment() -> str:
        return json.dumps(dict(os.environ))

    srv.run()
    """
)


def test_a_stdio_server_gets_the_kernels_proxies_and_cas_but_not_its_secrets(
    pool, tmp_path: Path, monkeypatch
):
    """On a corporate machine a server that fetches needs the proxy and the private CA the kernel
    uses; it got PATH, HOME and the like only, and failed where the kernel got through."""
    monkeypatch.setenv("HTTPS_PROXY", "http://me:Pr0xy-pa55word@proxy.corp.example:3128")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "corp-ca.pem"))
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", str(tmp_path / "corp-ca.pem"))
    monkeypatch.setenv("MY_SERVICE_TOKEN", "not-for-every-server")
    script = tmp_path / "show_env.py"
    script.write_text(SHOW_ENV)
    pool.connect("env", command=sys.executable, args=[str(script)], env={"SSL_CERT_FILE": "/etc/own.pem"})
    seen = json.loads(pool.call("env", "environment", {}).text)
    assert seen["HTTPS_PROXY"] == "http://me:Pr0xy-pa55word@proxy.corp.example:3128"
    assert seen["no_proxy"] == "127.0.0.1,localhost"
    assert seen["NODE_EXTRA_CA_CERTS"] == str(tmp_path / "corp-ca.pem")
    assert seen["SSL_CERT_FILE"] == "/etc/own.pem"  # the config's env wins
    assert "MY_SERVICE_TOKEN" not in seen and "HTTP_PROXY" not in seen
    logged = [line for line in pool.logs("env") if "proxy:" in line]
    assert logged and "proxy.corp.example" in logged[0]  # what the server logged, its password hidden
    assert not any("Pr0xy-pa55word" in line for line in pool.logs("env"))
