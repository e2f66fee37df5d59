"""One token file, several processes: how a provider keeps in step with the other kernels (and
papermill runs, and scripts) of the person's that keep their tokens for the same server in the
same file (``token_storage: "file"``; :class:`.storage.FileTokenStorage`).

Every process writes there, so tokens on file that differ from the ones held are the newer (another
process refreshed, or signed in again) and are used instead of refreshing or signing in again;
tokens gone from it are a sign-out there, which holds here too. A refresh waits for any other
process's refresh of the file, and a browser sign-in for any other process's sign-in to the server
(their turns are the storage's locks), so that each reads and uses what the other stored. Tokens
are stored with the client they were issued to, and with its registration where it registered:
another process, registered as another client, takes them only together with that registration.

Tokens kept in process memory are shared by this process's providers of one server: there too, a
refresh first takes newer tokens another provider stored (:meth:`SharedTokenFile._catch_up`); the
rest needs a file.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any

import httpx2
from mcp.shared.auth import OAuthClientInformationFull

from mcpnb.client.auth.sides import SIDE_REQUEST_TIMEOUT

logger = logging.getLogger("mcpnb.client.auth")

#: A token file's signature no provider has seen yet (:meth:`SharedTokenFile._follow_file`).
_NOT_LOOKED = object()


class SharedTokenFile:
    """Mixed into the providers (through ``provider._Friendly``), between them and the SDK's flow:
    each request is sent with what the token file holds now, and a 401 reads it before anyone is
    asked to sign in. The flows add their hooks (:meth:`_sign_in_turn`, :meth:`_adopt_client`,
    :meth:`_after_sign_out`: the authorization code flow's)."""

    context: Any  # OAuthContext, set by the SDK base class (None for the identity assertion one)
    _server: str  # the server's name, for what is said (provider._Friendly._setup)
    _client_id: str | None  # the configured client id, None where the client registered
    _tell: Callable[[str], None]  # said to the person, once per connection (provider._Friendly)
    _file_seen: Any = _NOT_LOOKED  # the token file's signature when last read (_follow_file)

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow for ``request``, kept in step with the file: what another process stored
        or removed since the last request is read first, a refresh waits for another process's, and
        a 401 reads the file before the SDK signs in again (:meth:`_unauthorized`). The flow's own
        requests pass through, to be sent by the provider."""
        await self._follow_file()  # a sign-out or a sign-in in another process, since the last request
        turn = await self._catch_up()  # held until any refresh is stored: this request goes out
        flow = super().async_auth_flow(request)  # type: ignore[misc]
        restarts = 0  # flows started over with tokens on file after a 401 (at most 2: no loop)
        signing_in: Any = None  # this process's turn to sign in (sign_in_turn), until tokens are stored
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is request:
                    if turn is not None:  # any refresh is stored: another process's may go
                        turn.release()
                        turn = None
                    if signing_in is not None:  # the sign-in's tokens are stored: another's may go
                        signing_in.release()
                        signing_in = None
                response = yield outgoing
                if outgoing is request and response.status_code == 401 and signing_in is None:
                    signing_in, again = await self._unauthorized(request, adopt=restarts < 2)
                    if again:  # tokens on file this request did not carry: the flow starts over
                        restarts += 1
                        await flow.aclose()
                        request.headers.pop("authorization", None)
                        turn = await self._catch_up()
                        flow = super().async_auth_flow(request)  # type: ignore[misc]
                        outgoing = await flow.__anext__()
                        continue
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            for held in (turn, signing_in):
                if held is not None:
                    held.release()
            await flow.aclose()

    async def _follow_file(self) -> None:
        """Before each request, where the tokens are kept in a file other processes share and it
        changed since this provider last looked (one ``stat`` otherwise): tokens gone from it are a
        sign-out there, which holds here too (:meth:`_signed_out`): the person who signed out in one
        notebook had this kernel go on calling as them, and its next refresh wrote the tokens back.
        Tokens of this client that differ from the ones held are newer (another process refreshed,
        or signed in again) and are used."""
        context = self.context
        look = getattr(getattr(context, "storage", None), "signature", None)
        if look is None or not getattr(self, "_initialized", False):
            return
        async with context.lock:  # not while a flow of this provider changes the tokens
            seen = look()
            if seen == self._file_seen:
                return
            self._file_seen = seen
            if context.current_tokens is None:  # nothing to lose or to compare: a 401 reads the file
                return
            await self._read_file(context.storage)

    async def _read_file(self, storage: Any) -> None:
        """What the file holds now, for the tokens this provider holds: a sign-out there holds here
        (:meth:`_signed_out`); this client's tokens there that differ are newer, and used."""
        stored = await storage.get_tokens()
        signed_out = getattr(storage, "signed_out", None)
        if stored is None:
            if self.context.current_tokens is not None and signed_out is not None and signed_out():
                self._signed_out()
        elif stored != self.context.current_tokens and self._adoptable(storage):
            self._use_stored(stored, storage, "using the tokens another process stored")

    def _use_stored(self, stored: Any, storage: Any, why: str) -> None:
        logger.debug("oauth %s: %s", self._server, why)
        self.context.current_tokens = stored
        self.context.token_expiry_time = getattr(storage, "expires_at", None)

    def _signed_out(self) -> None:
        """The token file no longer holds tokens while this provider holds some: the person signed
        out in another process (or deleted the file). This one lets go of its tokens and its
        registration too (the next sign-in registers anew and keeps a whole record in the file), so
        its next request signs in again; said here, and with the sign-in link."""
        context = self.context
        context.clear_tokens()
        if getattr(self, "_fixed_client_info", None) is None:
            context.client_info = None
        self._file_seen = _NOT_LOOKED
        path = getattr(context.storage, "path", "its token file")
        self._tell(
            f"server {self._server!r}: signed out in another kernel or process (the sign-in kept in "
            f"{path} was removed): this kernel no longer uses it either, and signs in again"
        )
        self._after_sign_out()

    def _after_sign_out(self) -> None:
        """What a flow that asks a person says with its next link (the authorization code flow)."""

    async def _unauthorized(self, request: httpx2.Request, *, adopt: bool = True) -> tuple[Any, bool]:
        """The server answered ``request`` 401. Before the SDK signs in again: another process
        sharing the token file may hold newer tokens (it refreshed, or signed in again), and a
        browser sign-in may be under way there (:meth:`_sign_in_turn`, waited for). Returns this
        process's sign-in turn, if it took one (held until the new tokens are stored), and whether
        the file holds tokens the request did not carry, now this provider's (``adopt=False``: never,
        the request was sent again often enough): then the request is sent again with them
        (refreshed first if due), and nobody is asked."""
        context = self.context
        storage = getattr(context, "storage", None)
        if storage is None or not hasattr(storage, "signature"):
            return None, False
        turn = await self._sign_in_turn(storage)
        try:  # (the SDK's flow holds context.lock meanwhile: no other request changes the tokens)
            adopted = adopt and await self._adopt_file(storage, request.headers.get("authorization", ""))
        except BaseException:
            if turn is not None:
                turn.release()
            raise
        if adopted and turn is not None:
            turn.release()
            turn = None
        return turn, adopted

    async def _adopt_file(self, storage: Any, sent: str) -> bool:
        """Take the tokens on file if the refused request did not carry them: this client's, or
        another client's together with its registration (two kernels that each registered, one of
        which signed in again since; or a first sign-in in another process, this one having
        registered nothing yet), where this flow can use that registration (:meth:`_adopt_client`)."""
        self._file_seen = storage.signature()
        stored = await storage.get_tokens()
        if stored is None or sent == f"Bearer {stored.access_token}":
            return False
        if self.context.client_info is None or not self._adoptable(storage):
            info = storage.stored_client_info() if hasattr(storage, "stored_client_info") else None
            issued_to = storage.tokens_client_id()
            if info is None or issued_to not in (None, info.client_id) or not self._adopt_client(info):
                return False
            self.context.client_info = info
        self._use_stored(stored, storage, "refused; using the tokens another process stored since")
        self._initialized = True
        return True

    def _adopt_client(self, info: OAuthClientInformationFull) -> bool:
        """Whether this provider can go on as the client ``info`` registered (a flow with a client of
        its own configured cannot)."""
        return False

    async def _sign_in_turn(self, storage: Any) -> Any:
        """Where a person signs in (the authorization code flow): this process's turn to, waited for
        while another process signs in to the same server. Flows without a person: None."""
        return None

    async def _catch_up(self) -> Any:
        """Before a token is refreshed: what another process keeping its tokens in the same file
        (a second kernel, a papermill run, a script) stored since this provider read it. A server
        that rotates refresh tokens spent the one held here when that process refreshed, and the
        SDK, refreshing with it, was refused and sent the person to sign in again (a server that
        detects the reuse may revoke the whole sign-in). Tokens on file that differ from the ones
        held are the newer (every process writes there), and are used, refreshed only if they are
        due too; none on file is a sign-out there (:meth:`_signed_out`). The refresh then waits for
        any other process's refresh of that file, so that it reads what that one stored (said to the
        person after a few seconds, and not for longer than one token request takes there); the
        turn (``release()``) is returned while a refresh is still due, None otherwise."""
        context = self.context
        if context is None or not await self._refresh_due():
            return None
        storage = context.storage
        take = getattr(storage, "refresh_turn", None)
        patience = SIDE_REQUEST_TIMEOUT + 5

        def slow() -> None:
            self._tell(
                f"server {self._server!r}: waiting for another kernel or process of yours that is "
                f"refreshing this server's sign-in (kept in {storage.path}), to use what it gets; up "
                f"to {patience:g} s, then this kernel refreshes it itself"
            )

        turn = await take(patience, slow=slow) if take is not None else None
        try:
            if getattr(self, "_initialized", False):
                await self._read_file(storage)
            due = await self._refresh_due()
        except BaseException:  # the turn is never kept by a failure (every kernel would wait on it)
            if turn is not None:
                turn.release()
            raise
        if turn is not None and not due:
            turn.release()
            return None
        return turn

    def _adoptable(self, storage: Any) -> bool:
        """Whether the stored tokens were issued to this provider's client (or nobody said whose they
        are): two kernels that each registered a client keep their tokens in one file, and the other
        client's would be refused at their refresh."""
        issued_to = getattr(storage, "tokens_client_id", None)
        ours = getattr(self.context.client_info, "client_id", None)
        return issued_to is None or ours is None or issued_to() in (None, ours)

    def _tokens_for_this_client(self) -> None:
        """Tokens about to be stored are said to be this client's (:meth:`_adoptable`), and stored
        with its registration where it registered (no client id configured)."""
        storage = self.context.storage
        if hasattr(storage, "tokens_client_id"):
            info = self.context.client_info
            storage.client_id = getattr(info, "client_id", None)
            storage.registration = info if self._client_id is None else None

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        self._tokens_for_this_client()
        await super()._handle_token_response(response)  # type: ignore[misc]

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        self._tokens_for_this_client()
        storage = self.context.storage
        replacing = getattr(storage, "replacing", None)
        if replacing is None:
            handled: bool = await super()._handle_refresh_response(response)  # type: ignore[misc]
            return handled
        with replacing():  # a sign-out in another process during the refresh is not undone
            handled = await super()._handle_refresh_response(response)  # type: ignore[misc]
        if handled and storage.gone:
            self._signed_out()
            return False  # the SDK sends the request without a token: its 401 signs in again
        return handled

    async def _refresh_due(self) -> bool:
        """Whether the next request refreshes first: its token has a refresh token and expired (before
        the SDK read the storage, the stored token's)."""
        context = self.context
        if getattr(self, "_initialized", False):
            tokens, expiry = context.current_tokens, context.token_expiry_time
        else:
            tokens = await context.storage.get_tokens()
            expiry = getattr(context.storage, "expires_at", None)
        return bool(tokens and tokens.refresh_token and expiry and time.time() > expiry)
