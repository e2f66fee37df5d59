"""An mcpnb client for ``conformance client --command "python tests/conformance/client.py"``.

The conformance runner (``@modelcontextprotocol/conformance``) starts a scenario server, then runs
this script with the server's URL as the last argument, the scenario name in
``MCP_CONFORMANCE_SCENARIO`` and, for some auth scenarios, a JSON ``MCP_CONFORMANCE_CONTEXT``.
Everything goes through the public :class:`mcpnb.Pool`: connect, list the tools, call the one the
scenario expects. Exit 0 when that worked; the runner judges the rest from what the server saw.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from mcpnb.client.interaction import Interaction
from mcpnb.client.pool import Pool

#: What each scenario wants called (scenarios not listed only connect and list).
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
    "sse-retry": ("test_reconnection", {}),
}


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


def server_config(scenario: str, context: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {"transport": "http"}
    if scenario == "auth/client-credentials-basic":
        config["auth"] = {
            "type": "oauth",
            "flow": "client_credentials",
            "client_id": context["client_id"],
            "client_secret": context["client_secret"],
        }
    return config


def main(argv: list[str]) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    # The runner hands out http://localhost:PORT while its servers listen on 127.0.0.1 only. The URL
    # is used as given: the OAuth scenarios compare it with the protected resource's (localhost)
    # address, and a localhost that resolves to ::1 first still falls back to 127.0.0.1.
    url = argv[-1]
    log(f"scenario {scenario!r}, server {url}")

    pool = Pool()
    pool.interaction = Interaction(policy="defaults")
    try:
        pool.connect("conformance", url=url, config=server_config(scenario, context))
        tools = pool.tools("conformance")
        log("tools:", [t.name for t in tools])
        if scenario in CALLS:
            name, arguments = CALLS[scenario]
        elif scenario.startswith("auth/") and tools:
            name, arguments = tools[0].name, {}
        else:
            return 0
        result = pool.call("conformance", name, arguments)
        log(f"{name} ->", result)
        if getattr(result, "is_error", False):
            log(f"{name} reported an error")
            return 1
        return 0
    finally:
        pool.close()
        pool.runtime.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
