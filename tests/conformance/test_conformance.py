"""The ``@modelcontextprotocol/conformance`` client scenarios, run against ``client.py`` (mcpnb's Pool).

The runner (Node >= 22, both from ``tests/peers``: ``npm ci --prefix tests/peers``) starts one
scenario server, runs ``client.py <url>``, and prints its checks. ``client.py`` starts warm
(:mod:`tests.conformance.warm`): one process of this module imports it, and each run is a fork of
that process as it stood after the imports, handed the runner's arguments, environment and pipes.
One scenario per runner, one runner at a time: ``sse-retry`` measures the client's reconnection
delay and fails when the machine is busy. Two releases of the suite run: 0.1.16, and 0.2.0's pre-release
(``conformance-next``), which alone has the 2026-07-28 client scenarios (stateless requests,
SEP-2322 input rounds, SEP-2243 headers, SEP-2106 schemas, the issuer checks), and checks more in
some 2025-11-25 ones: those run on both (``RECHECKED_SCENARIOS``); the rest of 0.1.16's list runs
on 0.1.16 alone, as 0.2.0 checks nothing more there.

The scenario servers ``listen(0)`` on every interface and read ``server.address().port`` right
after, so the preload pins them to 127.0.0.1 with a socket bound synchronously (a ``listen(0,
"127.0.0.1")`` would only bind after a DNS round, too late for ``address()``). Every run checks, in
``/proc/net/tcp*``, that the runner's listening sockets are on 127.0.0.1 only.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import LOOPBACK, ROOT, tcp_sockets

from tests.conformance.client import LOG_ENV, WIF_TOKEN_ENV

PEERS = ROOT / "tests" / "peers" / "node_modules"
NODE = PEERS / "node" / "bin" / "node"
RUNNER = PEERS / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
NEXT_RUNNER = PEERS / "conformance-next" / "dist" / "index.js"
CLIENT = Path(__file__).resolve().parent / "client.py"
WARM = Path(__file__).resolve().parent / "warm.py"

SCENARIOS = [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",  # private_key_jwt (SEP-1046): a key file, the algorithm inferred
    # SEP-990: an ID token exchanged at the identity provider, the grant presented to the server's
    "auth/cross-app-access-complete-flow",  # authorization server (the flow identity_assertion)
    # authorization code + PKCE: discovery, registration, token endpoint authentication, scopes.
    # client.py's "browser" opens the link mcpnb shows, the scenario approves, and the code comes
    # back through mcpnb's loopback listener, as it does for a person.
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/basic-cimd",  # a URL-based client id: auth.client_metadata_url
    "auth/2025-03-26-oauth-endpoint-fallback",
    # the draft's: refuse a protected resource that names another server; offline_access
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
]

#: The 2026-07-28 client scenarios, from the 0.2.0 pre-release, and its extensions' (DPoP is not
#: among them: mcpnb has none).
NEXT_SCENARIOS = [
    "tools_call",
    "request-metadata",  # SEP-2575: _meta and MCP-Protocol-Version on every request, a retried version
    "sep-2322-client-request-state",  # input rounds; a result without resultType is complete
    "http-standard-headers",
    "http-custom-headers",  # SEP-2243: x-mcp-header parameters mirrored into Mcp-Param-* headers
    "http-invalid-tool-headers",  # ... and a tool whose x-mcp-header is malformed left out
    "json-schema-ref-no-deref",  # SEP-2106: a network $ref in a schema is never fetched
    "json-schema-2020-12-preservation",  # the schema kept as the server sent it
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "auth/enterprise-managed-authorization",  # SEP-990 under its new name
    "auth/wif-jwt-bearer",  # SEP-1933: the workload's JWT as the grant (flow jwt_bearer)
    "sep-2640-client-no-prefetch",  # skills (SEP-2640): listing reads no file
    "sep-2640-client-verify-digest",  # ... a SKILL.md that differs from the listing is refused
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
]

#: 2025-11-25 scenarios that 0.1.16 runs too, where 0.2.0 checks more: the RFC 8707 ``resource``
#: parameter (in the authorization and token requests, matching the protected resource metadata),
#: and the registration's ``application_type`` (SEP-837). Where 0.2.0's checks of a scenario are
#: 0.1.16's (initialize, elicitation-sep1034-client-defaults, sse-retry, the scope-*,
#: pre-registration, basic-cimd, resource-mismatch, the client-credentials ones,
#: 2025-03-26-oauth-endpoint-fallback), it does not run them again; token-endpoint-auth-basic and
#: -post add only the resource check of the metadata-* runs.
RECHECKED_SCENARIOS = [
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/token-endpoint-auth-none",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
]

#: The runner kills a client after this long (its own default is 30 s); the test waits a bit more.
CLIENT_TIMEOUT_MS = 60_000
RUN_TIMEOUT = 100.0

ANSI = re.compile(r"\x1b\[[0-9;]*m")
TOTALS = re.compile(r"Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings")


@pytest.fixture(scope="module")
def client_command(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The ``--command`` the runner starts for each scenario: ``client.py``, warm (see
    :mod:`tests.conformance.warm`: one process of this module imports it, every run is a fork of
    that process as it stood after the imports, so no run sees anything of another)."""
    folder = tmp_path_factory.mktemp("warm-client")
    sock = folder / "client.sock"
    log = folder / "server.txt"
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [sys.executable, str(WARM), "serve", str(sock)], cwd=ROOT, stdout=subprocess.PIPE, stderr=sink
        )
    try:
        ready = proc.stdout.readline() if proc.stdout else b""
        assert ready == b"ready\n", f"the warm client did not start:\n{log.read_text()}"
        command = f"{sys.executable} -I -S {WARM} connect {sock}"
        assert " " not in str(WARM) + str(sock), "the runner splits --command on spaces"
        yield command
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def preload() -> Path:
    if not (NODE.exists() and RUNNER.exists() and NEXT_RUNNER.exists()):
        pytest.fail(
            "node@22 and @modelcontextprotocol/conformance are not installed: run "
            "`npm ci --prefix tests/peers` (the README's test command does)"
        )
    return Path(LOOPBACK)


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        pass
    return inodes


def _listening(inodes: set[str]) -> set[str]:
    """``host:port`` of the LISTEN sockets among ``inodes`` (IPv4 dotted, IPv6 as /proc's hex)."""
    return {local for local, _, state, inode in tcp_sockets() if state == "0A" and inode in inodes}


def run_scenario(
    scenario: str,
    preload: Path,
    out: Path,
    runner: Path = RUNNER,
    log: Path | None = None,
    extra_env: dict[str, str] | None = None,
    command: str | None = None,
) -> tuple[int | None, str, set[str]]:
    """Run one scenario; ``log``: where ``client.py`` writes the connection's events at its end;
    ``command``: how the runner starts ``client.py`` (the ``client_command`` fixture's warm one),
    by default ``python client.py``."""
    command = command or f"{sys.executable} {CLIENT}"
    assert " " not in sys.executable and " " not in str(CLIENT), "the runner splits --command on spaces"
    args = [str(NODE), "-r", str(preload), str(runner), "client", "--command", command]
    args += ["--scenario", scenario, "--timeout", str(CLIENT_TIMEOUT_MS)]
    env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"}
    env.pop("MCP_CONFORMANCE_SCENARIO", None)
    env.pop("MCP_CONFORMANCE_CONTEXT", None)
    env.pop(LOG_ENV, None)
    env.pop(WIF_TOKEN_ENV, None)
    if log is not None:
        env[LOG_ENV] = str(log)
    env.update(extra_env or {})
    listened: set[str] = set()
    with out.open("w") as sink:
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + RUN_TIMEOUT
        try:
            while proc.poll() is None and time.monotonic() < deadline:
                listened |= _listening(_socket_inodes(proc.pid))
                time.sleep(0.05)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
                sink.write(f"\n[test] runner killed after {RUN_TIMEOUT:g} s\n")
    returncode = proc.returncode if proc.returncode >= 0 else None
    return returncode, ANSI.sub("", out.read_text()), listened


def _passed(scenario: str, returncode: int | None, output: str, listened: set[str]) -> None:
    report = f"conformance client --scenario {scenario} (exit {returncode}):\n{output}"

    assert listened, f"saw no listening socket of the runner\n{report}"
    assert all(address.startswith("127.0.0.1:") for address in listened), (
        f"the runner listened beyond 127.0.0.1: {sorted(listened)}\n{report}"
    )
    assert returncode == 0, report
    totals = TOTALS.search(output)
    assert totals is not None, report
    passed, total, failed, warnings = map(int, totals.groups())
    assert total > 0 and passed == total and failed == 0 and warnings == 0, report
    assert "OVERALL: PASSED" in output, report


@pytest.mark.timeout(RUN_TIMEOUT + 20)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_client_scenario(scenario, preload, client_command, tmp_path):
    _passed(scenario, *run_scenario(scenario, preload, tmp_path / "runner.txt", command=client_command))


@pytest.mark.timeout(RUN_TIMEOUT + 20)
@pytest.mark.parametrize("scenario", NEXT_SCENARIOS)
def test_client_scenario_of_2026_07_28(scenario, preload, client_command, tmp_path):
    log = tmp_path / "events.txt"
    run = run_scenario(scenario, preload, tmp_path / "runner.txt", NEXT_RUNNER, log, command=client_command)
    _passed(scenario, *run)
    refused = {
        "sep-2640-client-verify-digest": "does not match the sha256 the listing gives",
        "sep-2640-client-verify-size": "bytes where the listing says",
        "sep-2640-client-verify-frontmatter": "differs from the listing's (description)",
    }
    if scenario in refused:  # the tampered SKILL.md was read, refused, and said so
        said = log.read_text()
        assert "skills: refused: skill 'pdf-processing'" in said and refused[scenario] in said, said
    if scenario == "sep-2322-client-request-state":  # its last tool answers without a resultType
        said = log.read_text()
        assert "server: the server's tools/call result has no resultType" in said, said
        assert said.count("has no resultType") == 1, said  # once per connection


@pytest.mark.timeout(RUN_TIMEOUT + 20)
@pytest.mark.parametrize("scenario", RECHECKED_SCENARIOS)
def test_client_scenario_rechecked_by_0_2_0(scenario, preload, client_command, tmp_path):
    run = run_scenario(scenario, preload, tmp_path / "runner.txt", NEXT_RUNNER, command=client_command)
    _passed(scenario, *run)


@pytest.mark.timeout(RUN_TIMEOUT + 20)
def test_metadata_that_names_another_issuer_is_not_used(preload, client_command, tmp_path):
    """``auth/2025-03-26-oauth-metadata-backcompat`` serves, at the server's root
    ``/.well-known/oauth-authorization-server``, metadata whose ``issuer`` has a path
    (``http://localhost:PORT/oauth``). RFC 8414 §3.3 says such metadata MUST NOT be used (its issuer
    differs from the one the address was built from), and the SDK's check (SEP-2468) refuses it;
    the scenario expects a client to register and sign in there anyway. mcpnb keeps the RFC's side:
    the connect fails with that reason, and nothing is registered, authorized or asked for a token."""
    scenario = "auth/2025-03-26-oauth-metadata-backcompat"
    returncode, output, _ = run_scenario(scenario, preload, tmp_path / "runner.txt", command=client_command)
    report = f"conformance client --scenario {scenario} (exit {returncode}):\n{output}"
    assert returncode not in (0, None), report
    assert re.search(r"issuer mismatch: http://localhost:\d+/oauth != http://localhost:\d+", output), report
    assert "SUCCESS Client requested authorization server metadata" in output, report  # it got that far
    for step in ("client-registration", "authorization-request", "token-request"):
        assert f"Expected Check Missing: {step}" in output, report


@pytest.mark.timeout(RUN_TIMEOUT + 20)
def test_a_workload_token_for_another_audience_is_refused_once_and_said(preload, client_command, tmp_path):
    """``auth/wif-jwt-bearer`` with the runner's token made out to another audience: the
    authorization server refuses it, and the person reads why and where the token came from. mcpnb
    asks once: no retry with the same token, no other grant (the scenario warns of either)."""
    scenario = "auth/wif-jwt-bearer"
    env = {WIF_TOKEN_ENV: "wrong_audience_jwt"}
    returncode, output, _ = run_scenario(
        scenario, preload, tmp_path / "runner.txt", NEXT_RUNNER, extra_env=env, command=client_command
    )
    report = f"conformance client --scenario {scenario} (exit {returncode}):\n{output}"
    assert returncode not in (0, None), report
    assert "refused the workload's token (HTTP 400 invalid_grant" in output, report
    assert "read from the file auth.assertion_file names" in output, report
    assert "[wif-assertion-audience" in output and "FAILURE" in output, report
    assert "wif-no-retry" not in output and "wif-grant-fallback" not in output, report
