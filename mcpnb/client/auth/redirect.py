"""Getting the authorization code back from the browser, in a notebook.

Two ways, both behind replaceable hooks (:func:`set_authorization_ui`):

- **listener** (default when the browser and the kernel share a machine): a one-shot HTTP listener
  on ``127.0.0.1`` receives the redirect itself, answers "you can close this tab" and stops.
- **paste** (default on JupyterHub, Binder, Colab and for a kernel started over SSH, where
  ``127.0.0.1`` in the browser is not the kernel's machine): the browser fails to load the loopback
  redirect, and the person pastes the address it shows back into a password-style prompt, so the
  code is not echoed into the notebook.

The person always sees the authorization link through ``show_link``. In listener mode,
``offer_paste`` may also offer to take the address: a browser on another machine than a kernel the
signs above missed (a container, a server started by a service) cannot reach the listener, and its
page fails to load after the approval. Whichever comes first, the listener or the paste, signs in.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import html
import inspect
import logging
import os
import secrets
import sys
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from mcp.shared.auth import AuthorizationCodeResult

from mcpnb.client.errors import AuthError

logger = logging.getLogger("mcpnb.client.auth")

HOST = "127.0.0.1"
CALLBACK_PATH = "/callback"
MODE_ENV = "MCPNB_OAUTH_REDIRECT"
# Signs that the browser is not on the kernel's machine, so a loopback listener would never be reached.
_REMOTE_ENV = ("BINDER_SERVICE_HOST", "BINDER_REQUEST", "JUPYTERHUB_API_URL", "COLAB_RELEASE_TAG")
# A kernel started from an SSH session serves a browser elsewhere (``ssh -L 8888:…`` forwards the
# notebook's port, not the listener's). VS Code's remote sessions forward listening ports themselves.
_SSH_ENV = ("SSH_CONNECTION", "SSH_CLIENT")
_FORWARDS_PORTS_ENV = ("VSCODE_IPC_HOOK_CLI", "VSCODE_PID", "VSCODE_CWD")

Mode = Literal["auto", "listener", "paste"]

#: Why the link being shown is asked for, when it is not the first sign-in (a step-up: the server
#: needs more scope for a call), for :func:`default_show_link` to say; a person who approved once
#: and sees a second link with no reason would not know what they are granting now.
SIGN_IN_PURPOSE: ContextVar[str | None] = ContextVar("mcpnb_sign_in_purpose", default=None)


def default_show_link(url: str) -> None:
    """A clickable link in a notebook, plain text elsewhere; it names where the person signs in."""
    from mcpnb.client.display import show

    host = urlsplit(url).netloc
    page = (
        f'<a href="{html.escape(url, quote=True)}" target="_blank" rel="noopener">open the sign-in page</a>'
    )
    purpose = SIGN_IN_PURPOSE.get()
    why = f" again ({purpose})" if purpose else ""
    text = f"Authorize mcpnb at {host}{why}, in your browser: {url}"
    bundle = {
        "text/html": f"<p>Authorize mcpnb at <b>{html.escape(host)}</b>{html.escape(why)}: {page}</p>",
        "text/plain": text,
    }
    show(bundle, display_id=_display_id(url))


def default_link_done(url: str, problem: str | None) -> None:
    """The link is spent once the browser came back (or the wait ended): say so in its place, so a
    saved notebook does not keep a sign-in link that leads nowhere."""
    from mcpnb.client.display import replace

    host = urlsplit(url).netloc
    said = f"Approved at {host}." if problem is None else f"Sign-in at {host} did not complete: {problem}"
    replace({"text/html": f"<p>{html.escape(said)}</p>", "text/plain": said}, _display_id(url))


def default_offer_paste(url: str, deliver: Callable[[str], None]) -> Any:
    """In a notebook, a paste box under the link (:mod:`mcpnb.notebook.cell.signin`); elsewhere none."""
    from mcpnb.client.display import offer_paste

    return offer_paste(url, deliver)


def _display_id(url: str) -> str:
    """One display per sign-in: the link's ``state`` is unique to it."""
    return f"mcpnb-signin-{state_of(url) or abs(hash(url))}"


def default_read_redirect() -> str:
    """Ask for the redirected address without echoing it (it carries the authorization code)."""
    import getpass

    return getpass.getpass(
        "After approving, paste the address your browser shows (it starts with http://127.0.0.1): "
    )


@dataclass(frozen=True)
class AuthorizationUI:
    """How the person is shown the link and how the code comes back.

    ``show_link(url)`` and ``read_redirect() -> str`` may be plain or async functions; a plain
    ``read_redirect`` runs in a worker thread because it usually blocks on a person.
    ``link_done(url, problem)`` follows up on the link once it is spent (``problem`` None: approved);
    a ``show_link`` given without one gets none. ``offer_paste(url, deliver)`` (listener mode only)
    may offer to paste the redirected address too: ``deliver(address)`` ends the wait with it, or
    raises :class:`AuthError` for an address that is not this sign-in's redirect; what it returns,
    if it has a ``close()``, is closed when the sign-in ends.
    """

    show_link: Callable[[str], Any] = default_show_link
    read_redirect: Callable[[], Any] = default_read_redirect
    mode: Mode = "auto"
    timeout: float = 300.0
    link_done: Callable[[str, str | None], Any] | None = default_link_done
    offer_paste: Callable[[str, Callable[[str], None]], Any] | None = default_offer_paste

    def resolved_mode(self) -> Literal["listener", "paste"]:
        mode = os.environ.get(MODE_ENV) or self.mode
        if mode in ("listener", "paste"):
            return mode  # type: ignore[return-value]
        return "paste" if browser_elsewhere() else "listener"


def browser_elsewhere() -> bool:
    """Whether the person's browser is on another machine than the kernel (Binder, JupyterHub,
    Colab, a kernel started over SSH without its ports forwarded): ``127.0.0.1`` there is not the
    kernel's machine, so neither a loopback listener nor a page served on it can be reached."""
    remote = any(os.environ.get(var) for var in _REMOTE_ENV) or "google.colab" in sys.modules
    over_ssh = any(os.environ.get(var) for var in _SSH_ENV)
    forwarded = any(os.environ.get(var) for var in _FORWARDS_PORTS_ENV)
    return remote or (over_ssh and not forwarded)


_ui = AuthorizationUI()


def set_authorization_ui(
    show_link: Callable[[str], Any] | None = None,
    read_redirect: Callable[[], Any] | None = None,
    *,
    mode: Mode | None = None,
    timeout: float | None = None,
    link_done: Callable[[str, str | None], Any] | None = None,
    offer_paste: Callable[[str, Callable[[str], None]], Any] | None = None,
) -> AuthorizationUI:
    """Replace parts of the authorization UI (omitted parts stay); returns the previous UI.

    ``mode``: ``"listener"``, ``"paste"`` or ``"auto"`` (``$MCPNB_OAUTH_REDIRECT`` overrides it).
    Pass the returned object to :func:`restore_authorization_ui` to undo.
    """
    global _ui
    previous = _ui
    changes = {
        k: v
        for k, v in {
            "show_link": show_link,
            "read_redirect": read_redirect,
            "mode": mode,
            "timeout": timeout,
            "link_done": link_done,
            "offer_paste": offer_paste,
        }.items()
        if v is not None
    }
    if show_link is not None and link_done is None:
        changes["link_done"] = None  # the default follow-up would replace a display it never made
    if show_link is not None and offer_paste is None:
        changes["offer_paste"] = None  # nor would a box under a link shown elsewhere make sense
    _ui = replace(_ui, **changes)
    return previous


def restore_authorization_ui(ui: AuthorizationUI) -> None:
    global _ui
    _ui = ui


def authorization_ui() -> AuthorizationUI:
    return _ui


async def call_hook(fn: Callable[..., Any], *args: Any, blocking: bool = False) -> Any:
    """Call a plain or async hook; a plain blocking one goes to a thread so the loop keeps serving."""
    if inspect.iscoroutinefunction(fn):
        return await fn(*args)
    result = await asyncio.to_thread(fn, *args) if blocking else fn(*args)
    return await result if inspect.isawaitable(result) else result


def parse_redirect(text: str) -> AuthorizationCodeResult:
    """The code, state and issuer from a redirected URL (or just its query string).

    Messages never repeat the input: it holds the authorization code.
    """
    text = (text or "").strip()
    query = urlsplit(text).query if "://" in text else text.lstrip("?")
    params = {k: v[0] for k, v in parse_qs(query).items()}
    if "error" in params:
        detail = params.get("error_description", "")
        raise AuthError(
            f"the authorization server refused: {params['error']}" + (f" ({detail})" if detail else ""),
            retryable=False,
        )
    if not params.get("code"):
        raise AuthError(
            "the pasted address has no 'code' parameter: after approving, copy the whole address from "
            "the browser's address bar (it starts with http://127.0.0.1)"
        )
    return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))


_PAGE = (
    "<!doctype html><meta charset='utf-8'><title>mcpnb</title>"
    "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{body}</p></body>"
)


def state_of(url: str) -> str | None:
    """The ``state`` parameter of an authorization URL (what the redirect must bring back)."""
    return (parse_qs(urlsplit(url).query).get("state") or [None])[0]


def check_state(result: AuthorizationCodeResult, expected: str | None) -> AuthorizationCodeResult:
    """``result`` if its ``state`` is the one this sign-in sent; never repeats either value."""
    if expected is not None and not (result.state and secrets.compare_digest(result.state, expected)):
        raise AuthError(
            "the redirected address belongs to another sign-in (its 'state' does not match this one); "
            "approve the link mcpnb showed last, then paste or let through that redirect",
            retryable=False,
        )
    return result


#: Said when the redirect's port is taken: most often by another sign-in to the same server (a second
#: kernel's, whose registration, kept in the shared token file, or ``auth.redirect_port`` names the
#: same address) that waits for its person, and nothing of the person's is to be closed.
_PORT_TAKEN = (
    "another sign-in to this server may be waiting there (another kernel's: the client is registered "
    "for that address): finish it, then connect again, and with token_storage 'file' this kernel uses "
    "the tokens it kept; otherwise "
)


class CallbackListener:
    """A one-shot HTTP listener on 127.0.0.1: the redirect of *this* sign-in ends it.

    A request that does not carry the ``state`` the authorization URL sent (a stray page, another
    program on the machine, an old tab) gets a 400 and does not count, so it cannot end the listener
    before the real redirect arrives; the expected ``state`` is never shown. Other paths (a
    browser's ``/favicon.ico``) get a 404.
    """

    def __init__(self, port: int, state: str | None = None) -> None:
        self.port = port
        self.state = state  # None: any redirect counts (only for callers that check it themselves)
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[str] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://{HOST}:{self.port}{CALLBACK_PATH}"

    async def start(self) -> CallbackListener:
        self._loop = asyncio.get_running_loop()
        self._result = self._loop.create_future()
        try:
            self._server = await asyncio.start_server(self._handle, HOST, self.port)
        except OSError as exc:
            raise AuthError(
                f"cannot listen for the OAuth redirect on {HOST}:{self.port} ({exc.strerror or exc}); "
                + (_PORT_TAKEN if exc.errno == errno.EADDRINUSE else "")
                + "close what uses that port, or use mcpnb.set_authorization_ui(mode='paste')",
                retryable=True,
            ) from None
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def wait(self, timeout: float) -> AuthorizationCodeResult:
        assert self._result is not None, "start() first"
        try:
            query = await asyncio.wait_for(asyncio.shield(self._result), timeout)
        except TimeoutError:
            raise AuthError(
                f"no browser redirect reached {self.redirect_uri} within {timeout:g} s: approve in the "
                "browser and connect again; if the browser runs on another machine than the kernel, use "
                "mcpnb.set_authorization_ui(mode='paste')",
                retryable=True,
            ) from None
        finally:
            await self.close()
        return parse_redirect("?" + query)

    def deliver(self, address: str) -> None:
        """End the wait with a pasted redirect address, from any thread (a widget's click).

        Raises :class:`AuthError` (never repeating the address) when it carries no code and no
        error, or belongs to another sign-in, or when this sign-in has already ended.
        """
        text = (address or "").strip()
        query = urlsplit(text).query if "://" in text else text.lstrip("?")
        params = parse_qs(query)
        if "error" not in params:
            parse_redirect(text)  # raises when there is no code
        given = (params.get("state") or [None])[0]
        check_state(AuthorizationCodeResult(code="", state=given), self.state)  # another sign-in's?
        loop, result = self._loop, self._result
        if loop is None or result is None or result.done() or self._server is None:
            raise AuthError("this sign-in has ended: connect again for a new link", retryable=False)
        loop.call_soon_threadsafe(lambda: result.done() or result.set_result(query))

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            method, target, *_ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            parts = urlsplit(target)
            if method != "GET" or parts.path != CALLBACK_PATH or self._result is None or self._result.done():
                await _answer(writer, 404, "Not found", "This address only receives one OAuth redirect.")
                return
            given = (parse_qs(parts.query).get("state") or [""])[0]
            if self.state is not None and not secrets.compare_digest(given.encode(), self.state.encode()):
                logger.debug("OAuth redirect with a wrong or missing state ignored on %s", self.redirect_uri)
                await _answer(
                    writer,
                    400,
                    "Not this sign-in",
                    "This redirect does not belong to the sign-in mcpnb is waiting for; "
                    "use the link shown in the notebook.",
                )
                return
            failed = "error" in parse_qs(parts.query)
            if failed:
                await _answer(writer, 400, "Authorization failed", "Return to the notebook to see why.")
            else:
                await _answer(
                    writer,
                    200,
                    "Authorization complete",
                    "You can close this tab and return to the notebook.",
                )
            logger.debug("OAuth redirect received on %s", self.redirect_uri)
            self._result.set_result(parts.query)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError, OSError):
            pass
        finally:
            writer.close()


async def _answer(writer: asyncio.StreamWriter, status: int, title: str, body: str) -> None:
    page = _PAGE.format(title=html.escape(title), body=html.escape(body)).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(page)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n".encode()
        + page
    )
    await writer.drain()
