"""A person's trip through a browser: the sign-in link shown, the code coming back.

Used by every flow where a person approves: the MCP server's own authorization server
(``authorization_code``) and the company's identity provider (``identity_assertion`` without an
ID token at hand). The code comes back through a loopback listener or a pasted address, whichever
:func:`~mcpnb.client.auth.redirect.authorization_ui` says; either way the redirect URI is
``http://127.0.0.1:<port>/callback``, so one registration serves both.

Where nobody can follow the link (a notebook run headless: nbconvert, papermill, nbclient), the
sign-in fails at once with an :class:`AuthError` that says so and what to do instead, before any
link shows or listener waits: :func:`nobody_to_sign_in` asks the UI.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import weakref
from typing import Any
from urllib.parse import urlsplit

from mcp.shared.auth import AuthorizationCodeResult

from mcpnb.client.auth.redirect import (
    HOST,
    SIGN_IN_PURPOSE,
    CallbackListener,
    authorization_ui,
    call_hook,
    check_state,
    default_show_link,
    parse_redirect,
    state_of,
)
from mcpnb.client.errors import AuthError
from mcpnb.client.timeouts import connect_clock_paused

logger = logging.getLogger("mcpnb.client.auth")

#: What an :class:`~mcpnb.client.auth.redirect.AuthorizationUI` (a subclass, say) may define:
#: ``nobody_can_sign_in() -> str | None``, why no person can follow a link it would show now (None:
#: someone may). The notebook's own UI says so for a run nobody watches.
NOBODY_HOOK = "nobody_can_sign_in"


def nobody_to_sign_in(ui: Any) -> str | None:
    """Why no person can sign in through ``ui`` now, or None. Asked before the link shows: a
    listener would otherwise wait ``ui.timeout`` for a browser nobody opens (the cell's timeout
    ended a headless run first, saying only "Interrupted"), and a paste prompt failed as the
    server's 401. A ``show_link`` of the person's own (a chat, a mail) may reach someone wherever
    the code runs: only the UI that made it knows, so only its hook is asked."""
    try:
        hook = getattr(ui, NOBODY_HOOK, None)
        if callable(hook):
            return hook() or None
        if ui.show_link is not default_show_link:
            return None
        from mcpnb.client.display import nobody_can_sign_in  # the notebook's side, if in one

        return nobody_can_sign_in() or None
    except Exception as exc:  # a check that fails must not stop a person who is there: the link shows
        logger.debug("oauth: could not tell whether anyone can sign in (%s)", type(exc).__name__)
        return None


class BrowserSignIn:
    """One sign-in at a time per loop: :meth:`show_link`, then :meth:`receive_code`; the turn is
    given up when the code came back or the sign-in failed (:meth:`release`, safe to repeat)."""

    def __init__(self, server: str, redirect_uri: str) -> None:
        self.server = server
        self.redirect_uri = redirect_uri
        self.state: str | None = None  # what this sign-in's redirect must bring back
        self._listener: CallbackListener | None = None
        self._link: str | None = None  # the sign-in link shown, until it is spent
        self._turn: asyncio.Lock | None = None  # the one-sign-in-at-a-time turn, while held
        self._offer: Any = None  # what ui.offer_paste showed, closed when the sign-in ends
        self.purpose: str | None = None  # why this sign-in is asked beyond the first (a step-up)

    async def show_link(self, url: str) -> None:
        self._check_somebody()
        # One sign-in at a time: a person faced with two links and two identical prompts cannot tell
        # which address belongs where (two OAuth servers in one --config, say); the next link shows
        # once this one is spent.
        turn = _turn()
        with connect_clock_paused():  # waiting for another sign-in is not this server being slow
            await turn.acquire()
        self._turn = turn
        ui = authorization_ui()
        self.state, self._link = state_of(url), url
        try:
            if ui.resolved_mode() == "listener":
                port = int(urlsplit(self.redirect_uri).port or 0)
                self._listener = await CallbackListener(port, state=self.state).start()
            logger.debug(
                "oauth %s: asking the person to authorize (%s mode)", self.server, ui.resolved_mode()
            )
            said = SIGN_IN_PURPOSE.set(self.purpose)
            try:
                await call_hook(ui.show_link, url)
            finally:
                SIGN_IN_PURPOSE.reset(said)
            if self._listener is not None and ui.offer_paste is not None:
                try:  # a paste box that cannot show must not fail the sign-in: the listener waits
                    self._offer = await call_hook(ui.offer_paste, url, self._listener.deliver)
                except Exception as exc:
                    logger.debug("oauth %s: no paste box (%s)", self.server, type(exc).__name__)
        except BaseException:
            await self._close_listener()
            self.release()
            raise

    def _check_somebody(self) -> None:
        """Fail at once, not retried, where nobody can follow the link: nothing shown, nothing bound."""
        why = nobody_to_sign_in(authorization_ui())
        if why:
            logger.debug("oauth %s: nobody can sign in here: the sign-in fails at once", self.server)
            raise AuthError(f"this OAuth sign-in needs a person at a browser, and {why}", server=self.server)

    async def receive_code(self) -> AuthorizationCodeResult:
        ui = authorization_ui()
        problem: str | None = "the sign-in was cancelled"
        try:
            if self._listener is not None:
                result = await self._listener.wait(ui.timeout)
            else:
                text = await call_hook(ui.read_redirect, blocking=True)
                result = check_state(parse_redirect(str(text)), self.state)
            problem = None
            return result
        except AuthError as exc:
            problem = str(exc)
            if exc.server is None:
                raise AuthError(str(exc), server=self.server, retryable=exc.retryable) from None
            raise
        except Exception as exc:  # a prompt that could not be shown (no stdin), say
            problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            raise
        finally:
            await self._close_listener()
            await self._link_done(ui, problem)
            self.release()

    def release(self) -> None:
        """Give up the turn (the next server's link may show)."""
        turn, self._turn = self._turn, None
        if turn is not None:
            turn.release()

    async def _link_done(self, ui: Any, problem: str | None) -> None:
        link, self._link = self._link, None
        if ui.link_done is not None and link is not None:
            with contextlib.suppress(Exception):  # a follow-up that fails must not fail the sign-in
                await call_hook(ui.link_done, link, problem)

    async def _close_listener(self) -> None:
        offer, self._offer = self._offer, None
        if callable(getattr(offer, "close", None)):
            with contextlib.suppress(Exception):
                offer.close()
        if self._listener is not None:
            await self._listener.close()
            self._listener = None


_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def _turn() -> asyncio.Lock:
    """The running loop's sign-in turn (sign-ins run on the runtime loop; tests may have several)."""
    loop = asyncio.get_running_loop()
    lock = _turns.get(loop)
    if lock is None:
        lock = _turns[loop] = asyncio.Lock()
    return lock


def free_port() -> int:
    """A loopback port free now, for a redirect URI (the listener binds it when the link shows)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]
