"""An mcpnb client for ``conformance client --command "python tests/conformance/client.py"``.

The conformance runner (``@modelcontextprotocol/conformance``) starts a scenario server, then runs
this script with the server's URL as the last argument, the scenario name in
``MCP_CONFORMANCE_SCENARIO`` and, for some auth scenarios, a JSON ``MCP_CONFORMANCE_CONTEXT``.
Everything goes through the public :class:`mcpnb.Pool`: connect, list the tools, call the one the
scenario expects. Exit 0 when that worked; the runner judges the rest from what the server saw.
Authorization-code scenarios sign in as a person would: mcpnb shows the link and listens on its
loopback redirect; :func:`browse` plays the browser that opens the link.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from mcpnb.client.auth import set_authorization_ui
from mcpnb.client.interaction import Interaction
from mcpnb.client.pool import Pool

#: What each scenario wants called (scenarios not listed only connect and list).
CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "tools_call": [("add_numbers", {"a": 5, "b": 3})],
    "elicitation-sep1034-client-defaults": [("test_client_elicitation_defaults", {})],
    "sse-retry": [("test_reconnection", {})],
    # SEP-2322 (2026-07-28): two tools answer with input rounds (one with requestState, one
    # without), one is plain, one answers without a resultType
    "sep-2322-client-request-state": [
        ("test_mrtr_echo_state", {}),
        ("test_mrtr_no_state", {}),
        ("test_mrtr_unrelated", {}),
        ("test_mrtr_no_result_type", {}),
    ],
}


def scenario_calls(
    scenario: str, context: dict[str, Any], tools: list[Any]
) -> list[tuple[str, dict[str, Any]]]:
    """The calls a scenario expects: its own list (``CALLS``), the runner's (``toolCalls`` in the
    context), or one made from what was listed."""
    if scenario in CALLS:
        return CALLS[scenario]
    if "toolCalls" in context:
        return [(c["name"], c.get("arguments") or {}) for c in context["toolCalls"]]
    if scenario == "http-invalid-tool-headers":  # every tool mcpnb kept; the invalid ones must be gone
        return [(t.name, {k: "x" for k in t.input_schema.get("required", [])}) for t in tools]
    if scenario == "json-schema-2020-12-preservation":  # the focal tool's schema, back as mcpnb holds it
        focal = next(t for t in tools if t.name == "json_schema_2020_12_tool")
        return [("json_schema_echo", {"schema": focal.input_schema})]
    if scenario.startswith("auth/") and tools:
        return [(tools[0].name, {})]
    return []


#: Where to write the connection's events when the client ends (set by the tests, to read them).
LOG_ENV = "MCPNB_CONFORMANCE_EVENTS"
#: Which of the runner's workload tokens ``auth/wif-jwt-bearer`` presents (default ``valid_jwt``).
WIF_TOKEN_ENV = "MCPNB_CONFORMANCE_WIF_TOKEN"


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


def server_config(scenario: str, context: dict[str, Any], url: str) -> dict[str, Any]:
    config: dict[str, Any] = {"transport": "http"}
    if scenario == "auth/client-credentials-basic":
        config["auth"] = {
            "type": "oauth",
            "flow": "client_credentials",
            "client_id": context["client_id"],
            "client_secret": context["client_secret"],
        }
    elif scenario == "auth/client-credentials-jwt":
        # as a person would: the key in a file, no algorithm given (a P-256 key signs ES256)
        key_file = Path(tempfile.mkdtemp()) / "client-key.pem"
        key_file.write_text(context["private_key_pem"])
        key_file.chmod(0o600)
        config["auth"] = {
            "type": "oauth",
            "flow": "client_credentials",
            "client_id": context["client_id"],
            "private_key_file": str(key_file),
        }
    elif scenario in ("auth/cross-app-access-complete-flow", "auth/enterprise-managed-authorization"):
        # SEP-990: the ID token as a person's tool would leave it (a variable), the identity
        # provider by its issuer (its token endpoint found from its metadata)
        os.environ["CONFORMANCE_ID_TOKEN"] = context["idp_id_token"]
        config["auth"] = {
            "type": "oauth",
            "flow": "identity_assertion",
            "client_id": context["client_id"],
            "client_secret": context["client_secret"],
            "issuer": administrators_issuer(url),
            "idp_issuer": context["idp_issuer"],
            "idp_client_id": context["idp_client_id"],
            "id_token_env": "CONFORMANCE_ID_TOKEN",
        }
    elif scenario == "auth/wif-jwt-bearer":
        # SEP-1933: the workload's JWT as its platform leaves it, in a file it rewrites
        token_file = Path(tempfile.mkdtemp()) / "workload-token"
        token_file.write_text(context[os.environ.get(WIF_TOKEN_ENV, "valid_jwt")] + "\n")
        token_file.chmod(0o600)
        config["auth"] = {
            "type": "oauth",
            "flow": "jwt_bearer",
            "client_id": context["client_id"],
            "assertion_file": str(token_file),
        }
    elif scenario.startswith("auth/"):
        config["auth"] = {"type": "oauth", "flow": "authorization_code"}
        if scenario == "auth/basic-cimd":  # the URL the scenario's authorization server expects
            config["auth"]["client_metadata_url"] = "https://conformance-test.local/client-metadata.json"
        if "client_id" in context:  # pre-registration: the runner says which client to be
            config["auth"]["client_id"] = context["client_id"]
            if context.get("client_secret"):
                config["auth"]["client_secret"] = context["client_secret"]
    return config


def administrators_issuer(url: str) -> str:
    """The authorization server an administrator configures for SEP-990 (the flow takes it as
    configuration, never from the MCP server; the scenario's context does not include it). The test
    looks it up where an administrator would: the server's protected-resource metadata."""
    import httpx2

    parts = urlsplit(url)
    prm = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}"
    return str(httpx2.get(prm, timeout=10).json()["authorization_servers"][0])


def browse(url: str) -> None:
    """The person's browser: open the authorization link, approve, follow the redirects home.

    The scenario's authorization server approves at once and redirects to mcpnb's loopback
    listener, which is where the code must arrive. The browser is its own thread, as a browser is
    its own program: mcpnb shows the link and goes on listening. Only loopback addresses are opened.
    """
    threading.Thread(target=_follow, args=(url,), name="browser", daemon=True).start()


def _follow(url: str) -> None:
    import httpx2

    log("browser opens", url)
    with httpx2.Client(timeout=10) as browser:
        for _ in range(5):
            if urlsplit(url).hostname not in ("localhost", "127.0.0.1"):
                raise RuntimeError(f"refusing to open {url}: not a loopback address")
            response = browser.get(url)
            if not response.is_redirect:
                log("browser landed:", response.status_code, response.text[:120])
                return
            url = urljoin(url, response.headers["location"])
        raise RuntimeError("too many redirects")


def use_skills(pool: Pool, *, load: bool) -> int:
    """SEP-2640 as a host uses it: list the skills (which reads no file); then, ``load``, load the
    first (its SKILL.md, checked) and, only if it passed, read its other files (each checked)."""
    from mcpnb.client.server_skills import SkillVerificationError

    skills = pool.skills("conformance")
    log("skills:", skills)
    if not load or not skills:
        return 0
    skill = skills[0]
    try:
        loaded = skill.load()
    except SkillVerificationError as exc:
        pool.connection("conformance").emit("skills", f"refused: {exc}")  # the test reads the events
        return 0
    for file in skill.files or ():
        if file.uri != skill.uri:
            log("read", file.uri, len(loaded.read(file.uri)))
    return 0


def main(argv: list[str]) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    # The runner hands out http://localhost:PORT while its servers listen on 127.0.0.1 only. The URL
    # is used as given: the OAuth scenarios compare it with the protected resource's (localhost)
    # address, and a localhost that resolves to ::1 first still falls back to 127.0.0.1.
    url = argv[-1]
    log(f"scenario {scenario!r}, server {url}")

    set_authorization_ui(show_link=browse, mode="listener", timeout=30)
    pool = Pool()
    pool.interaction = Interaction(policy="defaults")
    try:
        pool.connect("conformance", url=url, config=server_config(scenario, context, url))
        tools = pool.tools("conformance")
        log("tools:", [t.name for t in tools])
        if scenario.startswith("sep-2640-client-"):
            return use_skills(pool, load=scenario != "sep-2640-client-no-prefetch")
        failed = 0
        for name, arguments in scenario_calls(scenario, context, list(tools)):
            # the runner's own calls go as given: a null for a boolean is refused by mcpnb's check
            # of the arguments, and the runner sends it to see the header left out
            result = pool.call("conformance", name, arguments, validate="toolCalls" not in context)
            log(f"{name} ->", result)
            if getattr(result, "is_error", False):
                log(f"{name} reported an error")
                failed += 1
        return 1 if failed else 0
    finally:
        if os.environ.get(LOG_ENV) and "conformance" in pool:
            Path(os.environ[LOG_ENV]).write_text("\n".join(pool.logs("conformance")) + "\n")
        pool.close()
        pool.runtime.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
