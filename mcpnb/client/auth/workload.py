"""Workload identity (SEP-1933): a token the workload's platform issued is the grant itself.

A notebook run in a CI job, a Kubernetes pod or a cloud workbench often has an identity already: a
short-lived JWT its platform writes to a file or a variable (a service account token, a job's OIDC
token). An authorization server that trusts that platform takes the JWT as an RFC 7523 jwt-bearer
grant and answers with an access token: no secret to keep, no person to sign in. The authorization
server is found as for any OAuth flow (the MCP server's metadata, or ``auth.issuer`` to pin it),
the client authenticates with nothing but its id (``none``: the token is the proof), and the JWT is
read at each exchange, so a token the platform rotated is the one sent. A refusal is said once and
not retried: another try with the same token, or another grant, would only be refused again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE as JWT_BEARER
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

from mcpnb.client.auth.provider import _Friendly
from mcpnb.client.errors import ConfigError


class WorkloadIdentity(_Friendly, OAuthClientProvider):
    """The SDK's OAuth discovery and token handling, with the workload's JWT as the grant."""

    _flow_name = "jwt_bearer"

    def __init__(
        self,
        server: str,
        server_url: str,
        storage: Any,
        *,
        assertion: Callable[[], str],
        assertion_from: str,
        client_id: str,
        scope: str | None = None,
        issuer: str | None = None,
    ) -> None:
        metadata = OAuthClientMetadata(
            redirect_uris=None, grant_types=[JWT_BEARER], token_endpoint_auth_method="none", scope=scope
        )
        super().__init__(server_url, metadata, storage, None, None)
        self._setup(server, client_id, None, scope, issuer)
        self._fixed_client_info = OAuthClientInformationFull(
            redirect_uris=None,
            client_id=client_id,
            grant_types=[JWT_BEARER],
            token_endpoint_auth_method="none",
            scope=scope,
        )
        self._read_assertion = assertion
        self._assertion_from = assertion_from  # where the person looks when the token is refused
        self._last_assertion: str | None = None

    async def _initialize(self) -> None:
        await super()._initialize()  # stored tokens, and what _Friendly keeps of the server
        self.context.client_info = self._fixed_client_info  # no registration: the token says who

    async def _perform_authorization(self) -> httpx2.Request:
        try:
            assertion = self._read_assertion()
        except ConfigError as exc:
            raise self._error(f"the workload's token cannot be read: {exc.message}") from None
        self._last_assertion = assertion
        data = {"grant_type": JWT_BEARER, "assertion": assertion, "client_id": self._client_id or ""}
        if self.context.should_include_resource_param(self.context.protocol_version):
            data["resource"] = self.context.get_resource_url()
        if self._scope:
            data["scope"] = self._scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)

    def _secret_values(self) -> list[str | None]:
        return [*super()._secret_values(), self._last_assertion]

    def _sends(self) -> str | None:
        return f"the workload's token (from {self._assertion_from})"

    def _refused_grant(self, detail: str) -> str:
        return (
            f"the authorization server refused the workload's token ({detail}), read from "
            f"{self._assertion_from}: it may have expired (platforms rewrite it before then), be made "
            "out to another audience, or come from a platform this server does not trust"
        )

    def _credentials_hint(self) -> str:
        return (
            f"check auth.client_id, and that the authorization server trusts the token in "
            f"{self._assertion_from}"
        )
