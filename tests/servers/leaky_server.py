"""A server that echoes the secrets it was started with, for the redaction tests.

It prints its env to stderr at startup, logs it (``notifications/message``), returns it from a
tool and quotes it in a tool's error, and asks for credentials by elicitation (a passphrase, a PIN
and a one-time code). The SDK's ``MCPServer``; stdio only.

Run: ``python tests/servers/leaky_server.py``
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("leaky", log_level="WARNING")

#: What ``ask_unlock`` asks for: secret by name (passphrase, pin) and by ``writeOnly`` (the one-time
#: code, whose name says nothing). Answers are flat: ``ElicitResult`` takes no nested objects.
UNLOCK_SCHEMA = {
    "type": "object",
    "properties": {
        "user": {"type": "string"},
        "passphrase": {"type": "string"},
        "pin": {"type": "string"},
        "one_time_code": {"type": "string", "writeOnly": True},
    },
    "required": ["user"],
}


@server.tool()
def env(name: str) -> str:
    """The value of one of the server's environment variables."""
    return os.environ.get(name, "")


@server.tool()
def fail_env(name: str) -> str:
    """Fail with an error that quotes one of the server's environment variables."""
    raise ToolError(f"bad key {os.environ.get(name, '')}")


@server.tool()
async def log_env(name: str, ctx: Context) -> str:
    """Log an environment variable's value (as a string, and inside structured data) and print it
    on stderr."""
    value = os.environ.get(name, "")
    await ctx.info(f"log says {name}={value}")
    await ctx.log("warning", {"settings": {name: value}, "note": f"value {value}"})
    print(f"stderr says {name}={value}", file=sys.stderr, flush=True)
    return "logged"


@server.tool()
async def ask_unlock(ctx: Context) -> str:
    """Ask for credentials (a raw schema: ``writeOnly`` is beyond ``ctx.elicit``'s models)."""
    asked = ctx.request_context.request_id
    result = await ctx.session.elicit("Unlock the vault", UNLOCK_SCHEMA, related_request_id=asked)
    return f"{result.action}: {sorted((result.content or {}).keys())}"


if __name__ == "__main__":
    print(
        f"startup region={os.environ.get('REGION', '')} key={os.environ.get('API_KEY', '')}", file=sys.stderr
    )
    server.run()
