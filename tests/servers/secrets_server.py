"""A server whose tools take secrets and whose questions ask for them: tests check that no secret
typed or passed reaches a saved notebook, a widget state, a record or an error message.

``login`` takes a password and an API key and says only their lengths (so a test knows they
arrived, and the result holds nothing secret); ``ask_secrets`` asks a form with a password, a PIN
(integer), an OTP code (number) and a ``writeOnly`` blob; ``gated_login`` wants
a page opened first (−32042, the 2025-11-25 era's) on its first call. In process
(:func:`create_server`) or over stdio (``python secrets_server.py``).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

ASK: dict[str, Any] = {
    "type": "object",
    "properties": {
        "user": {"type": "string"},
        "secret_answer": {"type": "string", "format": "password"},
        "pin": {"type": "integer"},
        "otp_code": {"type": "number"},
        "blob": {"type": "string", "writeOnly": True},
        "colour": {"type": "string", "enum": ["red", "green"]},
    },
    "required": ["user"],
}


def create_server() -> MCPServer:
    server = MCPServer("secrets", log_level="WARNING")
    gate: list[int] = []

    @server.tool()
    def login(username: str, password: str, api_key: str = "") -> str:
        """Log in: says who, and only how long the secrets were."""
        return f"logged in as {username} (password {len(password)}, key {len(api_key)})"

    @server.tool()
    def gated_login(username: str, password: str) -> str:
        """Log in, once a page has been opened (−32042 on the first call)."""
        from mcp.shared.exceptions import UrlElicitationRequiredError
        from mcp.types import ElicitRequestURLParams

        gate.append(1)
        if len(gate) == 1:
            page = ElicitRequestURLParams(
                mode="url", message="Agree first", url="https://example.com/terms", elicitation_id="t1"
            )
            raise UrlElicitationRequiredError([page])
        return f"logged in as {username} (password {len(password)})"

    @server.tool()
    async def ask_secrets(ctx: Context) -> str:
        """Ask for credentials; says which fields came back and how long each was."""
        rid = ctx.request_context.request_id
        answer = await ctx.session.elicit("Give me your secrets", ASK, related_request_id=rid)
        got = answer.content or {}
        return f"{answer.action}: " + ", ".join(f"{k}={len(str(v))}" for k, v in sorted(got.items()))

    return server


if __name__ == "__main__":
    create_server().run()
