"""The errors mcpnb raises on purpose, and helpers to turn SDK failures into one honest line.

The SDK reports failures as (nested) ``ExceptionGroup`` s, bare ``OSError`` s or ``MCPError`` s with
generic messages. A person in a notebook needs one short line that says what went wrong and what to
do, so every public entry point raises a subclass of :class:`McpnbError` built from :func:`describe`.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
import re
import traceback
from collections.abc import Iterable, Sequence
from typing import Any


class McpnbError(Exception):
    """Base class: every error mcpnb raises on purpose. The message is meant for a person.

    A model whose tool call failed (the toolbox's dispatch) reads :attr:`for_model` instead: where
    the message's advice is a person's to follow (raise ``tool_timeout``, ``pool.reconnect``), the
    raise site gives ``model_text``, what happened and what a model can do (try again, call another
    tool, tell the user); elsewhere the message serves both.
    """

    #: the message for a model that made the call, where the person's advice is no model's to
    #: follow; None: the message serves both
    model_text: str | None = None

    def __init__(self, *args: Any, model_text: str | None = None) -> None:
        super().__init__(*args)
        if model_text is not None:
            self.model_text = model_text

    @property
    def for_model(self) -> str:
        """What a model whose tool call failed reads: :attr:`model_text`, or the message itself."""
        return self.model_text or str(self)


def out_of_reach(said: str, until: str = "the user reconnects it") -> str:
    """:attr:`McpnbError.model_text` for a server only a person can bring back: what happened
    (``said``), then what a model can do (``pool.reconnect`` and ``%mcp`` are not its to call)."""
    return f"{said}; its tools cannot be used until {until}: use another tool, or tell the user"


class ConfigError(McpnbError, ValueError):
    """A configuration problem, located as precisely as we can (file, server, key)."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        server: str | None = None,
        key: str | None = None,
        suggestion: str | None = None,
    ) -> None:
        self.message, self.file, self.server, self.key, self.suggestion = (
            message,
            file,
            server,
            key,
            suggestion,
        )
        shown_file = None if file == "<code>" else file  # config.CODE_SOURCE: settings given in code
        where = [p for p in (shown_file, server and f"server {server!r}", key and f"key {key!r}") if p]
        text = (": ".join(where) + ": " if where else "") + message
        if suggestion:
            text += f" (did you mean {suggestion!r}?)"
        super().__init__(text)


class UnknownServerError(McpnbError, KeyError):
    """A name that is not in the pool."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class ConnectError(McpnbError):
    """A server could not be reached or did not complete the handshake."""

    def __init__(self, server: str, reason: str) -> None:
        self.server, self.reason = server, reason
        super().__init__(f"could not connect to {server!r}: {reason}")


class NotConnectedError(McpnbError):
    """The server is in the pool but not usable right now (failed, disabled, closed)."""


class ToolNotFoundError(McpnbError):
    """The server has no tool of that name (or a filter hides it)."""


class ArgumentsError(McpnbError, ValueError):
    """Call arguments that do not fit the tool's ``inputSchema``: nothing was sent."""


class AuthError(McpnbError):
    """Credentials were missing or rejected (HTTP 401/403, an OAuth flow that failed).

    ``retryable`` is False when trying again unchanged cannot help (a rejected token or client) and
    True when the cause may pass by itself (the authorization server was unreachable), so the retry
    policy need not parse messages. ``status`` is the HTTP status when there was one.
    """

    def __init__(
        self,
        message: str,
        *,
        server: str | None = None,
        retryable: bool = False,
        status: int | None = None,
        model_text: str | None = None,
    ) -> None:
        self.server, self.retryable, self.status = server, retryable, status
        super().__init__(f"server {server!r}: {message}" if server else message, model_text=model_text)

    @classmethod
    def from_status(
        cls,
        server: str,
        status: int,
        url: str,
        *,
        sent_credentials: bool = True,
        oauth: bool = False,
        credentials: str | None = None,
        reread: bool = False,
        scope: str | None = None,
        at_connect: bool = False,
        source: str | None = None,
        said: str | None = None,
        certificate: bool = False,
    ) -> AuthError:
        """The SDK reports a 401/403 only as a generic error; our HTTP hook saw the status.

        ``oauth``: the 401 pointed to OAuth metadata, so the way in is signing in, not a token.
        ``credentials``: what was sent, in the words of the settings that hold it (the bearer token
        in the variable X, the username and password...); ``reread``: a reconnect reads it afresh
        (from a variable), so updating it there and reconnecting is the fix for a rotated one.
        ``scope``: a 403 insufficient_scope to those static ``credentials`` asked for it ("" when it
        named none): they were accepted but do not reach this call (``at_connect``: the server
        itself), which mcpnb cannot sign in for. ``source``: the config file the server came from.
        ``said``: the answer's own words (an error page's title), quoted: a firewall's "Access
        denied" page or a VPN's says who refused, which the status alone does not.
        ``certificate``: a client certificate was presented (``tls.cert``): a 403 to no other
        credential refused the identity it names, not a client that sent nothing.
        """
        if status == 403 and scope is not None and credentials is not None:
            return cls._short_of_scope(server, url, credentials, scope, reread, at_connect, source)
        what = "Unauthorized" if status == 401 else "Forbidden"
        sign_in = f"give it {cls._sign_in(server, url, source)}"
        model_text = None
        if status == 401 and not sent_credentials and oauth:
            why = f"the server signs people in with OAuth: {sign_in}"
        elif status == 401 and not sent_credentials:
            why = (
                "the server asks for credentials and none were sent; give them in its auth settings "
                "(auth with token or token_env, or an Authorization header)"
            )
        elif not sent_credentials and certificate:  # the TLS handshake took it; the application did not
            why = (
                "the client certificate (tls.cert) was accepted on the way in, and the identity it names "
                "is refused: ask whoever runs the server to allow it, or, if the server also wants a "
                "token, give it in its auth settings (auth with token or token_env, or an Authorization "
                "header)"
            )
        elif not sent_credentials:  # a 403 to no credentials at all: nothing of ours was rejected
            why = (
                "this client was refused before it sent any credentials, by the server or by something "
                "in front of it (a firewall, an IP allow-list, a VPN it expects); if the server wants "
                "credentials, give them in its auth settings (auth with token or token_env, or an "
                "Authorization header), else ask whoever runs it to let this machine in"
            )
        elif credentials is None:
            why = "the server rejected the credentials; check its auth settings (token, token_env, headers)"
        elif status == 401 and oauth and not credentials.startswith("the OAuth"):
            why = (
                f"the server rejected the credentials, {credentials}: it signs clients in with OAuth "
                f"(its answer names its OAuth metadata), not with a token of yours; {sign_in}"
            )
        else:
            again = f"pool.reconnect({server!r}), or %mcp reconnect {server}"
            update = (
                f"set it to the new value, then reconnect ({again}): a reconnect reads it again"
                if reread
                else "a reconnect sends the same value again: connect anew with the new value, or keep "
                "it in a variable (auth token_env or password_env), read at each connect"
            )
            why = f"the server rejected the credentials, {credentials}; if it changed (a rotated token), "
            why += update
            model_text = out_of_reach(
                f"the server rejected the credentials (HTTP {status})", "the user updates them"
            )
        quoted = (
            f' ("{said}")' if said and said.strip().lower() != what.lower() else ""
        )  # not "Forbidden" again
        return cls(
            f"HTTP {status} {what} from {url}{quoted}: {why}",
            server=server,
            status=status,
            model_text=model_text,
        )

    @staticmethod
    def _sign_in(server: str, url: str, source: str | None = None) -> str:
        """The settings under which mcpnb signs a person in with OAuth, in code and in a notebook;
        ``source``: the config file the server came from, which the notebook's line connects it
        from again (``NAME URL --oauth`` would connect a one-off in its place)."""
        import shlex

        line = (
            f"%mcp connect --config {shlex.quote(source)} {server} --oauth"
            if source and not source.startswith("<")
            else f"%mcp connect {server} {url} --oauth"
        )
        return f'auth {{"type": "oauth", "flow": "authorization_code"}} (in a notebook: {line})'

    @classmethod
    def _short_of_scope(
        cls,
        server: str,
        url: str,
        credentials: str,
        scope: str,
        reread: bool,
        at_connect: bool,
        source: str | None = None,
    ) -> AuthError:
        """The token is good but too narrow for this call (or for the server at all): the scope to
        get, where to put it, and that OAuth would get it by itself. A call's refusal leaves the
        session going; a connect's is no "rejected credentials" (a rotated token's advice)."""
        needs = f"the scope {scope}" if scope else "more scope"
        held = f", which {credentials} does not have" if scope else f" than {credentials} has"
        put = (
            f"put it there and reconnect (pool.reconnect({server!r}), or %mcp reconnect {server}): a "
            "reconnect reads it again"
            if reread
            else "connect anew with it"
        )
        what = "connecting" if at_connect else "this call"
        why = (
            f"the server answered insufficient_scope: {what} needs {needs}{held}. Get a token "
            f"with {'that scope' if scope else 'the scope it needs'}, then {put}; or let mcpnb sign in: "
            f"{cls._sign_in(server, url, source)} signs in again for a scope a call needs, by itself"
        )
        if at_connect:
            return cls(f"HTTP 403 Forbidden from {url}: {why}", server=server, status=403)
        why += ". The session goes on: other calls work"
        model_text = (
            f"the server refused this call: it needs {needs}, which the token the user configured does "
            "not have, and only the user can give a token with it; its other tools still work: use "
            "another tool, or tell the user"
        )
        return cls(f"HTTP 403 Forbidden from {url}: {why}", server=server, status=403, model_text=model_text)


class CallError(McpnbError):
    """A request failed on the way (transport, protocol), as opposed to a tool reporting ``isError``.

    ``code``, ``data`` and ``message``: the server's JSON-RPC error, as it sent them (the message
    with the connection's secrets hidden), where it answered with one."""

    code: int | None = None
    data: Any = None
    message: str | None = None


def check_offered(server: str, capabilities: Any, path: str, offers: str, instead: str) -> None:
    """Refuse a request the server said it does not serve (``path`` like ``"resources.subscribe"``
    absent from its capabilities), in words, before sending it: the answer would be a bare
    "Method not found" in one era and, in the other, sometimes a silent nothing.
    Capabilities not known yet (``None``) are no refusal: the server answers for itself."""
    if capabilities is None:
        return
    value = capabilities
    for part in path.split("."):
        value = getattr(value, part, None)
    if value is None or value is False:
        raise CallError(f"{server!r} does not offer {offers} (its capabilities have no {path}): {instead}")


#: The ``data`` of a refusal mcpnb made itself of a question a 2026-07-28 call's input round asked
#: (sampling): it cannot be sent to the server, the SDK raises it as an ``MCPError`` that ends the
#: call, and its words read as the server's ("… (MCP error -1)") unless :func:`describe` says so.
REFUSED_HERE = {"mcpnb": "refused here"}


#: The capability that answers each family of methods, and what it is called in words.
_SERVES = {
    "tools/": ("tools", "tools"),
    "resources/": ("resources", "resources"),
    "prompts/": ("prompts", "prompts"),
    "completion/": ("completions", "completions"),
    "logging/": ("logging", "log messages"),
}


def unoffered(server: str, capabilities: Any, method: str) -> str | None:
    """Why ``method`` got "Method not found", in words, when the server never said it serves it
    (``resources/list`` to a server of tools only); None when it did, or its capabilities are not
    known: then the server's own answer is the one to show."""
    family = next((v for k, v in _SERVES.items() if method.startswith(k)), None)
    if capabilities is None or family is None or getattr(capabilities, family[0], None) is not None:
        return None
    offered = [words for cap, words in _SERVES.values() if getattr(capabilities, cap, None) is not None]
    return (
        f"{server!r} does not offer {family[1]} (its capabilities have no {family[0]}; it offers "
        f"{', '.join(offered) or 'none of tools, resources and prompts'}): {method.split()[0]} is not "
        "a method it has"
    )


class UrlRequiredError(CallError):
    """The server needs the person to open a URL (a login, a consent page) before the call can run.

    ``elicitations`` holds the server's requests (``url``, ``message``, ``elicitationId``); after the
    person has completed them, call again.
    """

    def __init__(self, server: str, tool: str, elicitations: list[dict[str, Any]]) -> None:
        self.server, self.tool, self.elicitations = server, tool, elicitations
        urls = ", ".join(str(e.get("url")) for e in elicitations) or "(no URL given)"
        super().__init__(
            f"{tool}() on {server!r} needs you to open {urls} first "
            "(the server asked for URL-mode elicitation); complete it there, then call again",
            model_text=f"the server needs the user to open {urls} first (a page of its own, a sign-in or "
            "a consent, say): ask the user to open it and complete it there, then call again",
        )


class CallTimeoutError(CallError, TimeoutError):
    """A request took longer than its timeout; the server was told to cancel it (whether it stopped
    is the server's business: a tool that does not look for a cancel runs to its end)."""


#: What an interrupt (Ctrl-C, the kernel's ■ button) of a tool call did (after "interrupted; " where
#: it is a ``KeyboardInterrupt``: a ``CancelledError`` may be a ``wait_for``'s timeout):
#: the call is cancelled on its server (``notifications/cancelled``); the connection goes on.
CALL_CANCELLED = "the server was told to cancel the call"
#: ... of any other wait for mcpnb's runtime (a connect, a listing): cancelled, a request in flight too.
WAIT_CANCELLED = "what it waited for was cancelled (on its server too)"
#: ... that landed as the work was handed to the runtime loop: the whole line, it never started.
NOTHING_SENT = "interrupted before anything was sent"
#: ... of a wait for a task's outcome, after what was stopped: only the waiting.
TASK_KEEPS_RUNNING = "it keeps running on the server: wait again, or cancel it (handle.cancel())"


def interrupt_said(exc: BaseException, words: str) -> BaseException:
    """Give an interrupt (``KeyboardInterrupt``, an awaiting cell's ``CancelledError``) its one line.

    The same exception, its type unchanged (a loop or a script still stops; asyncio still sees
    its cancellation), shown by IPython as that line alone: a bare interrupt showed a traceback
    through mcpnb's thread hand-over, which says nothing of what was stopped and what goes on. A
    ``KeyboardInterrupt`` takes ``words`` as its message too; a ``CancelledError`` keeps its own,
    which says whose it is (anyio's cancel scopes know theirs by it: ``move_on_after`` around
    ``await pool.acall(...)`` let the cancellation escape once its message was changed)."""
    if not isinstance(exc, asyncio.CancelledError):
        exc.args = (words,)
    line = f"{type(exc).__name__}: {words}"
    exc._render_traceback_ = lambda: [line]  # type: ignore[attr-defined]
    return exc


class ServerExitedError(ConnectionError):
    """A stdio server's process ended on its own under a live session (worth starting again)."""


class MessageTooLargeError(McpnbError, ConnectionError):
    """A server sent a message over its ``max_message_mb``: the session ends rather than the kernel."""

    def __init__(self, server: str, limit: int) -> None:
        super().__init__(
            f"{server!r} sent a message over max_message_mb={_mb(limit)} (MB) and the connection was "
            f"closed; raise max_message_mb for server {server!r} if its answers are meant to be that large"
        )


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):g}"


#: How httpx2 words an event over the limit the SDK passes it (our ``max_message_mb``).
_EVENT_OVER = re.compile(r"Server-sent event exceeded the (\d+) byte limit")
#: Where MCP usually is on a web server, for a person who gave another address.
_USUAL_PATHS = "Streamable HTTP servers often serve /mcp, SSE servers /sse, a Gradio app /gradio_api/mcp/"
#: What the SSE reader and the Streamable HTTP client say of a response that is not MCP's
#: (the second may name none: an answer without a Content-Type).
_NOT_MCP = re.compile(
    r"Expected response with content type 'text/event-stream', got '([^']*)'"
    r"|Unexpected content type:\s*([^\s;]*)"
)
#: How the Streamable HTTP client says an answer was no JSON-RPC message: a pydantic dump follows.
_UNPARSED = re.compile(r"^Failed to parse (JSON response|SSE message): ")
#: pydantic's first complaint in that dump: its kind, and the start of what it was given.
_GIVEN = re.compile(r"\[type=(\w+), input_value=(.*?), input_type=(\w+)\]")
#: The requests that open a session: a failure to answer them is a failure to connect.
_HANDSHAKE = ("initialize", "server/discover")
#: What anyio says when the SDK's SSE reader ends before the server named its message endpoint.
_NO_ENDPOINT = "Child exited without calling task_status.started()"


def over_message_limit(exc: BaseException) -> bool:
    """Whether ``exc`` is the SDK reporting one response stream's event over ``max_message_mb``
    (that request failed; the session itself is fine)."""
    return _EVENT_OVER.search(str(root_cause(exc))) is not None


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The closest choice to ``word``, if any is close enough to be a plausible typo; case aside
    first (``TIME`` for ``time``, ``--TIMEOUT``: difflib alone finds nothing close in those)."""
    options = list(choices)
    word = _composed(word)
    composed = {_composed(c): c for c in options}  # "café" typed decomposed is the composed "café"
    folded = [c for k, c in composed.items() if k.casefold() == word.casefold()]
    if folded:
        return folded[0]
    # a two-letter name has one letter right at best (検策 for 検索: 0.5), which 0.6 never suggests
    cutoff = 0.5 if len(word) <= 2 else 0.6
    matches = difflib.get_close_matches(word, list(composed), n=1, cutoff=cutoff)
    if matches:  # as written first: "startupTimeout" is nearer "startupTimeoutSec" than "startup_timeout"
        return composed[matches[0]]
    by_case = {k.casefold(): c for k, c in composed.items()}
    matches = difflib.get_close_matches(word.casefold(), list(by_case), n=1, cutoff=cutoff)
    return by_case[matches[0]] if matches else None


def _composed(text: str) -> str:
    """``text`` with its letters composed (NFC), for comparing names: ``e`` + U+0301 is ``é``."""
    import unicodedata

    return text if text.isascii() else unicodedata.normalize("NFC", text)


def did_you_mean_text(word: str, choices: Iterable[str]) -> str:
    """``; did you mean 'x'?`` or nothing: appended to messages so every error reads the same."""
    hint = did_you_mean(word, list(choices))
    if hint is not None and hint != word and _composed(hint) == _composed(word):
        # they print alike: say what differs, or "no 'café'; did you mean 'café'?" reads as a bug
        return f"; did you mean {hint!r} (the same letters, composed: Unicode NFC)?"
    return f"; did you mean {hint!r}?" if hint else ""


def leaves(exc: BaseException) -> list[BaseException]:
    """The non-group exceptions inside ``exc`` (anyio nests them in ``ExceptionGroup`` s)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaves(sub)]
    return [exc]


def root_cause(exc: BaseException) -> BaseException:
    """The most informative leaf: the first one that is not a bare cancellation."""
    found = leaves(exc)
    for leaf in found:
        if (
            not isinstance(leaf, (GeneratorExit, KeyboardInterrupt))
            and type(leaf).__name__ != "CancelledError"
        ):
            return leaf
    return found[0]


def _not_runnable(path: str) -> str:
    """Why starting ``path`` was refused, in the words of what to do about it."""
    import os

    if os.path.isdir(path):
        return f"{path} is a folder, not a program: give the command that starts the server"
    if os.path.isfile(path) and not os.access(path, os.X_OK):
        return f"{path} is not executable: make it so (chmod +x), or start it with its interpreter"
    return f"permission denied: {path}"


def _arguments_in_command(command: str) -> str:
    """A hint when the command not found is a program and its arguments in one string
    (``command="uvx some-server --flag"``): the process is started without a shell, so no split."""
    import shutil

    program = command.split(None, 1)[0] if command.strip() else ""
    if program == command.strip() or not (shutil.which(program) or os.path.isfile(program)):
        return ""
    return (
        f" (that is the program {program!r} and its arguments in one: 'command' names the program "
        "alone and 'args' lists its arguments)"
    )


#: The SDK's words for a server-initiated request a session cannot carry (``NoBackChannelError``).
_NO_BACK_CHANNEL = "no back-channel for server-initiated requests"


def describe(exc: BaseException, *, page: str | None = None) -> str:
    """One line a person can act on, for any failure the SDK or a transport raises. ``page``: the
    title of the web page the server answered with, if one was (a sign-in page in front of it)."""
    leaf = root_cause(exc)
    name = type(leaf).__name__
    text = str(leaf).strip().splitlines()[0] if str(leaf).strip() else ""
    if isinstance(leaf, (McpnbError, ServerExitedError)):
        return str(leaf)
    if isinstance(leaf, FileNotFoundError):
        if not leaf.filename:
            return _missing_ca_words() or f"file not found: {text}"
        return f"command not found: {leaf.filename}{_arguments_in_command(str(leaf.filename))}"
    if isinstance(leaf, PermissionError):
        return _not_runnable(leaf.filename) if leaf.filename else f"permission denied: {text}"
    proxy = getattr(leaf, "mcpnb_proxy", None)
    refused = client_certificate_refused(leaf)
    if refused is not None:  # TLS 1.3 says so on the first read (ReadError), TLS 1.2 while connecting
        return _client_certificate_words(leaf, refused) + _through(proxy)
    if name == "ConnectError":
        if "WRONG_VERSION_NUMBER" in text:  # a TLS hello answered by a server that speaks plain HTTP
            return _plain_http_port(leaf, text) + _through(proxy)
        if tls_verify_failed(leaf):
            return _certificate_words(leaf, text) + _through(proxy)
        if proxy:  # the proxy itself is down: the server was never asked
            return (
                f"could not reach the proxy {proxy} ({text or 'no answer'}): is it running? It comes "
                f"from the environment ({_PROXY_VARIABLES}); NO_PROXY=<host> sends that host direct"
            )
        where = _address_of(leaf)
        said = f"connection refused or unreachable ({text or 'no answer'})"
        return f"{said}: is the server at {where} running, on that port?" if where else said
    if name == "ProxyError":  # the proxy refused to open a tunnel (CONNECT) to the server
        return _proxy_refusal_words(leaf, proxy, text)
    if proxy:
        return _describe_leaf(leaf, name, text, page) + _through(proxy)
    return _describe_leaf(leaf, name, text, page)


#: The environment variables a proxy comes from (httpx reads their lower-case forms as well).
_PROXY_VARIABLES = "HTTPS_PROXY, HTTP_PROXY or ALL_PROXY"
#: OpenSSL's and Python's words for a certificate the client would not trust.
_CERTIFICATE_WORDS = ("CERTIFICATE_VERIFY_FAILED", "certificate verify failed", "Hostname mismatch")
#: How to make a private CA trusted, said with every certificate failure.
_TRUST_A_CA = (
    "if it is signed by a private (company) CA, trust that CA: set SSL_CERT_FILE=/path/to/ca-bundle.pem "
    "in the environment before mcpnb connects (httpx reads it; a PEM file with that CA's certificate)"
)


def tls_verify_failed(exc: BaseException) -> bool:
    """Whether ``exc`` (an httpx ``ConnectError``, or an ``ssl`` error) is a TLS certificate the
    client would not trust: no wait fixes it, and "is the server running?" misleads."""
    import ssl

    if isinstance(exc, ssl.SSLCertVerificationError):
        return True
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, ssl.SSLCertVerificationError):
        return True
    return any(word in str(exc) for word in _CERTIFICATE_WORDS)


#: The TLS alerts a server that wants a client certificate (mutual TLS) ends the handshake with:
#: none came (TLS 1.3's "certificate required"; TLS 1.2 says only "handshake failure"), or the one
#: that came is not accepted (signed by a CA it does not trust, expired, revoked, refused).
_NO_CLIENT_CERTIFICATE = ("TLSV13_ALERT_CERTIFICATE_REQUIRED", "alert certificate required")
_HANDSHAKE_FAILURE = ("SSLV3_ALERT_HANDSHAKE_FAILURE", "alert handshake failure")
_CLIENT_CERTIFICATE_REFUSED = {
    "TLSV1_ALERT_UNKNOWN_CA": "it is not signed by a CA the server trusts",
    "SSLV3_ALERT_BAD_CERTIFICATE": "the server calls it a bad certificate",
    "SSLV3_ALERT_CERTIFICATE_UNKNOWN": "the server does not accept it",
    "SSLV3_ALERT_CERTIFICATE_EXPIRED": "it has expired (or is not valid yet)",
    "SSLV3_ALERT_CERTIFICATE_REVOKED": "it has been revoked",
    "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE": "the server does not support its kind",
    "TLSV1_ALERT_ACCESS_DENIED": "the server denies it access",
}


def client_certificate_refused(exc: BaseException) -> str | None:
    """Whether the server ended the TLS handshake over the client certificate (mutual TLS): "none"
    (none was sent and it wants one), "handshake" (TLS 1.2's bare handshake failure: most often
    that), or why the one sent was refused; None for anything else. No wait fixes any of them."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        text = str(exc)
        if any(word in text for word in _NO_CLIENT_CERTIFICATE):
            return "none"
        if any(word in text for word in _HANDSHAKE_FAILURE):
            return "handshake"
        for alert, why in _CLIENT_CERTIFICATE_REFUSED.items():
            if alert in text:
                return why
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None


#: Where a client certificate is given, said with every refusal of one.
_GIVE_A_CERTIFICATE = (
    'give this server a client certificate: "tls": {"cert": "client.pem", "key": "client-key.pem"} '
    'in its config (its key\'s passphrase in a variable named by "password_env"), or %mcp connect '
    "--cert client.pem --key client-key.pem"
)


def _client_certificate_words(exc: BaseException, refused: str) -> str:
    """A server that wants a client certificate (mutual TLS) it did not get, or did not accept."""
    where = _address_of(exc)
    said = f"the server at {where}" if where else "the server"
    if refused == "none":
        return f"TLS: {said} asks for a client certificate (mutual TLS) and got none; {_GIVE_A_CERTIFICATE}"
    if refused == "handshake":
        return (
            f"TLS: {said} refused the handshake (alert handshake failure): most often it asks for a "
            f"client certificate (mutual TLS) that was not sent or not accepted; {_GIVE_A_CERTIFICATE}. "
            "Else it shares no TLS version or cipher with mcpnb"
        )
    return (
        f"TLS: {said} refused the client certificate mcpnb sent: {refused}; check the certificate in "
        "tls.cert (its issuer, its dates) with the server's operator"
    )


def wrong_protocol(exc: BaseException) -> bool:
    """Whether ``exc`` is TLS spoken to a port that answers plain HTTP (or another protocol)."""
    return any(word in str(exc) for word in ("WRONG_VERSION_NUMBER", "record layer failure", "HTTP_REQUEST"))


#: OpenSSL's reasons for refusing a certificate that only a strict check finds (RFC 5280's rules for
#: its extensions): ``VERIFY_X509_STRICT`` is in ``ssl.create_default_context``'s flags from Python
#: 3.13 on, so a private CA's certificate that 3.11 and 3.12 accepted fails there, trusted or not.
_NOT_STRICT_ENOUGH = (
    "Missing Authority Key Identifier",
    "Missing Subject Key Identifier",
    "Authority Key Identifier marked critical",
    "Subject Key Identifier marked critical",
    "Basic Constraints of CA cert not marked critical",
    "CA cert does not include key usage extension",
    "Key usage keyCertSign invalid for non-CA cert",
    "Path length given without key usage keyCertSign",
    "Path length invalid for non-CA cert",
    "Empty Subject Alternative Name extension",
    "Subject empty and Subject Alt Name extension not critical",
    "Subject name empty",
    "Issuer name empty",
    "Certificate public key has explicit ECC parameters",
)


def not_strict_enough(text: str) -> bool:
    """Whether a certificate was refused for falling short of a strict (RFC 5280) check: trusting
    its CA (SSL_CERT_FILE, tls.ca) does not help; only a certificate issued with what it lacks does."""
    return any(reason in text for reason in _NOT_STRICT_ENOUGH)


def _certificate_words(exc: BaseException, text: str) -> str:
    """A certificate the client did not trust, said as one (not as a server that is down)."""
    where = _address_of(exc)
    reason = re.sub(r"^\[SSL: CERTIFICATE_VERIFY_FAILED\] ", "", text)
    reason = re.sub(r"\s*\(_ssl\.c:\d+\)$", "", reason)
    said = f"the server at {where}" if where else "the server"
    if not_strict_enough(reason):  # "trust that CA" would send the person to what is already done
        return (
            f"TLS certificate problem: {said} sent a certificate that falls short of the strict check "
            f"(RFC 5280) Python 3.13 and later make ({reason}): trusting its CA does not help; the "
            "certificate, or its CA's, must be issued again with what it lacks (Python 3.11 and 3.12 "
            "accept it as it is)"
        )
    cafile = os.environ.get("SSL_CERT_FILE")
    trusted = f" (SSL_CERT_FILE={cafile} is set and does not vouch for it)" if cafile else ""
    said = f"TLS certificate problem: {said} sent a certificate mcpnb does not trust ({reason})"
    return f"{said}{trusted}; {_TRUST_A_CA}"


def _missing_ca_words() -> str | None:
    """SSL_CERT_FILE names a file that is not there: httpx fails with a bare "No such file or
    directory", naming neither. (A missing SSL_CERT_DIR breaks nothing: httpx reads it only where
    it is a folder, so it is never the one to blame.)"""
    path = os.environ.get("SSL_CERT_FILE")
    if path and not os.path.exists(path):
        return (
            f"the environment variable SSL_CERT_FILE names {path}, which does not exist: httpx reads "
            "the trusted CA certificates from it; point it at the CA bundle (a PEM file), or unset it"
        )
    return None


def _through(proxy: str | None) -> str:
    return f" (through the proxy {proxy}, from {_PROXY_VARIABLES})" if proxy else ""


def _proxy_refusal_words(exc: BaseException, proxy: str | None, text: str) -> str:
    """A proxy that would not open the tunnel to the server (its status in ``text``)."""
    where = _address_of(exc)
    who = f"the proxy {proxy}" if proxy else "the HTTP proxy"
    said = f"{who} refused to connect to {where or 'the server'} ({text or 'no reason given'})"
    if text.startswith("407"):
        return (
            f"{said}: it asks for credentials; give them in the proxy URL "
            f"(http://user:password@host:port in {_PROXY_VARIABLES})"
        )
    return f"{said}: the server was not reached; if it should be reached directly, add its host to NO_PROXY"


def _describe_leaf(leaf: BaseException, name: str, text: str, page: str | None = None) -> str:
    """:func:`describe` for the failures that are neither the environment's nor the network's."""
    if closed_unanswered(leaf, name, text):
        return _closed_words(leaf)
    if isinstance(leaf, TimeoutError):
        return text or "timed out"
    if isinstance(leaf, RuntimeError) and text == _NO_ENDPOINT and _raised_in(leaf, "sse_client"):
        return "the SSE stream ended before the server said where to send messages (no endpoint event)"
    found = _NOT_MCP.search(text)
    if found is not None:  # a web app's page (Gradio's, at its root) where MCP's answer was asked for
        # the legacy SSE reader's words are only ever about opening its stream
        return _not_mcp_words(
            found[1] if found[1] is not None else found[2], found[1] is not None or _at_connect(leaf), page
        )
    unparsed = _UNPARSED.match(text)
    if unparsed is not None:
        return _unparsed_words(unparsed[1], str(leaf))
    over = _EVENT_OVER.search(text)
    if over is not None:
        return (
            f"the server sent a message over max_message_mb={_mb(int(over[1]))} (MB) and the stream "
            "was closed; raise max_message_mb if its answers are meant to be that large"
        )
    code = getattr(leaf, "code", None)
    if name == "MCPError" and code == -32000:
        return (
            f"connection closed by the server ({text})"
            if text and text != "Connection closed"
            else ("connection closed by the server")
        )
    if _NO_BACK_CHANNEL in text:  # a server that asks by a request of its own, on a 2026-07-28 session
        return (
            f"{name}: {text} This server asks its questions (elicitation, sampling) by requests of its "
            "own, which a 2026-07-28 session cannot carry: connect it with --era legacy, before the -- "
            "of its command (era='legacy')"
        )
    if name == "InputRequiredRoundsExceededError":  # its advice is about the SDK's own Client
        rounds = getattr(leaf, "max_rounds", "many")
        return (
            f"the server asked for input again after each answer ({rounds} rounds) and gave no "
            "result; its questions and the answers given are in the call's transcript (--transcript)"
        )
    if name == "MCPError" and getattr(leaf, "data", None) == REFUSED_HERE:
        return (
            f"the server asked for an LLM completion (sampling) and it was refused here ({text}); "
            "a 2026-07-28 call cannot tell the server so, and ends: answer sampling requests "
            "(pool.interaction) to let it go on"
        )
    if name == "MCPError":  # the TypeScript SDK writes its code into the message too: said once
        return f"{re.sub(r'^MCP error -?[0-9]+: *', '', text)} (MCP error {code})"
    return f"{name}: {text}" if text else name


#: Words of a sign-in page's title (a single sign-on portal, an identity-aware proxy, a VPN's).
_SIGN_IN = re.compile(r"sign[\s-]?(in|on)|log[\s-]?(in|on)|\bsso\b|authenticat|single sign", re.IGNORECASE)


def _not_mcp_words(content_type: str, connecting: bool, page: str | None = None) -> str:
    """An answer in a content type that is none of MCP's (JSON, an event stream): at connect, the
    URL is likely not an MCP server's; on one request of a working session, only that answer was
    odd, and the URL is no suspect. ``page``: the web page's title, quoted as an error page's words
    are; a sign-in page's says what stands in front of the server."""
    if page and "html" in content_type:
        quoted = f"a web page ({page})"
        if _SIGN_IN.search(page):
            return (
                f"{quoted} answers there, not an MCP server: a sign-in page (single sign-on) stands in "
                "front of it, which a program cannot pass; ask its operator how API clients reach the "
                "server (another address, a token to send, a client certificate)"
            )
        if connecting:
            return f"{quoted} answers there, not an MCP server; check the URL ({_USUAL_PATHS})"
        return f"the server answered the request with {quoted}, not JSON or an event stream"
    shown = f"a web page ({content_type})" if "html" in content_type else content_type
    if not connecting:
        return (
            f"the server answered the request with {shown or 'no Content-Type'}, not JSON or an event stream"
        )
    if not content_type:
        said = (
            "the server there answers without a Content-Type, not as an MCP server does (JSON or an "
            "event stream)"
        )
    else:
        said = f"{'a web page' if 'html' in content_type else content_type} answers there, not an MCP server"
    return f"{said}; check the URL ({_USUAL_PATHS})"


def _unparsed_words(where: str, said: str) -> str:
    """The SDK's "Failed to parse JSON response: <pydantic dump>" in words: an answer that is no
    JSON-RPC message, and the start of what came (pydantic's dump carries it, cut short)."""
    what = "a body" if where == "JSON response" else "an event"
    given = _GIVEN.search(said)
    if given is None:
        return f"the server answered with {what} that is not JSON-RPC"
    kind, value, value_type = given.groups()
    shown = value[1:] if value_type == "bytes" and value.startswith("b") else value
    if kind == "json_invalid" and shown in ("''", '""'):
        return f"the server answered with an empty {what.split()[-1]}, not JSON-RPC"
    detail = f"not JSON: {shown}" if kind == "json_invalid" else f"JSON, but no JSON-RPC message: {shown}"
    return f"the server answered with {what} that is not JSON-RPC ({detail})"


def _plain_http_port(exc: BaseException, text: str) -> str:
    """An https:// URL to a port that answers plain HTTP: the URL to use instead."""
    try:
        url = exc.request.url  # type: ignore[attr-defined]  # httpx raises RuntimeError when unset
    except (AttributeError, RuntimeError):
        return f"that port answers plain HTTP, not TLS ({text}): use http://, not https://"
    plain = url.copy_with(scheme="http", query=None, fragment=None)
    return f"that port answers plain HTTP, not TLS: use {plain}"


def closed_unanswered(exc: BaseException, name: str, text: str) -> bool:
    """Whether ``exc`` is httpx's word that the server closed or reset the connection before
    answering: a ``ReadError`` with nothing to say (a reset, or a peer that does not speak HTTP,
    an SSH banner), or h11's "Server disconnected without sending a response"."""
    if name == "ReadError" and not text:
        return True
    return name == "RemoteProtocolError" and text.startswith("Server disconnected without sending a response")


def _closed_words(exc: BaseException) -> str:
    """A connection closed without an answer, where (the URL's host and port) and, at connect, the
    likely reason: no HTTP MCP server on that port (mid-session, the server just went away)."""
    where = _address_of(exc)
    said = f"the server at {where}" if where else "the server"
    if _at_connect(exc):
        said = (
            f"{said} closed (or reset) the connection without an HTTP answer: is it an HTTP MCP "
            "server on that port?"
        )
        return said + _maybe_mutual_tls(exc)
    return f"{said} closed (or reset) the connection without an answer"


def _maybe_mutual_tls(exc: BaseException) -> str:
    """Over https, a server that wants a client certificate and sends no TLS alert (Python's
    asyncio servers, uvicorn's) closes just so once the handshake is done: said as a possibility."""
    try:
        https = exc.request.url.scheme == "https"  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):
        return ""
    if not https:
        return ""
    return (
        " If it asks for a client certificate (mutual TLS), it closes so without one, or without one it "
        'accepts: give it one ("tls": {"cert": …, "key": …} in its config, or %mcp connect --cert … --key …)'
    )


def _frame_names(exc: BaseException) -> list[str]:
    """The functions ``exc`` was raised through, outermost first."""
    return [frame.f_code.co_name for frame, _line in traceback.walk_tb(exc.__traceback__)]


def _raised_in(exc: BaseException, function: str) -> bool:
    """Whether ``exc`` passed through a function of that name (the SDK's, when no type tells)."""
    return function in _frame_names(exc)


def _at_connect(exc: BaseException) -> bool:
    """Whether ``exc`` failed a session's opening: a handshake request (``initialize``,
    ``server/discover``) or the legacy SSE stream being opened (in the SDK's ``sse_client``, neither
    in its reader nor its POST writer). The same failure on a working session says something else
    (the URL is fine). The exception tells: an httpx error carries its request, and the SDK's
    ``send_request`` frame the method it sent."""
    method = _sent_method(exc)
    if method is not None:
        return method in _HANDSHAKE
    frames = set(_frame_names(exc))
    return "sse_client" in frames and not frames & {"sse_reader", "post_writer"}


def _sent_method(exc: BaseException) -> str | None:
    """The JSON-RPC method of the request ``exc`` answers, if it can tell: the body of the httpx
    request it carries, else the ``method`` of the SDK's ``send_request`` it passed through."""
    try:
        body = exc.request.content  # type: ignore[attr-defined]  # httpx: RuntimeError when unset
        method = json.loads(body).get("method") if body else None
        return method if isinstance(method, str) else None
    except (AttributeError, RuntimeError, ValueError, TypeError):  # no request, a streamed body
        pass
    for frame, _line in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_name == "send_request" and isinstance(frame.f_locals.get("method"), str):
            return frame.f_locals["method"]
    return None


#: A stderr line that names a failure: Python's last traceback line, Node's ``Error: ...``, ``npm error``.
_FAILURE_WORDS = re.compile(r"error|exception|fatal|panic|ERR!", re.IGNORECASE)
#: Lines that runtimes print after the message itself: Node's version banner, npm's log pointer,
#: Node's advice under a thrown value that is no Error, a stack frame, a caret or a brace alone.
_TRAILERS = re.compile(
    r"Node\.js v\d|.*A complete log of this run|\(Use `node --trace-uncaught|\s+at \S|[\s^~{}\[\](),;]*$"
)
#: A frame of a Python traceback (a SyntaxError's names no function): its file and line.
_PYTHON_FRAME = re.compile(r'\s+File "(?P<file>[^"]+)", line (?P<line>\d+)')
#: The place Node prints above the source line and caret of an uncaught error (``/srv/index.js:3``,
#: ``file:///srv/index.mjs:3``); Node's own modules (``node:internal/...:1210``) are no such place.
_NODE_PLACE = re.compile(r"(?:file://)?(?P<file>/\S*|[A-Za-z]:\\\S*):(?P<line>\d+)")
#: A frame of a Node stack under the error (``at main (/srv/index.js:3:9)``, ``at /srv/index.js:3:9``).
_NODE_FRAME = re.compile(
    r"\s+at (?:.* \()?(?:file://)?(?P<file>/[^\s():]*|[A-Za-z]:\\[^\s():]*):(?P<line>\d+)"
)
#: Where a frame of a library is (Python's standard library or installed packages, node_modules):
#: the server's own frame that called it says more of what went wrong.
_LIBRARY = re.compile(r"/(?:site|dist)-packages/|/lib/python3[.\d]*/|/node_modules/")
#: A line of carets (Python 3.11's ``^^^^`` and ``~~~^^^``, Node's ``^``) under the source line.
_CARETS = re.compile(r"\s*[\^~]+\s*$")
#: How much of the failure line, and of the source line quoted beside it, a message keeps.
_FAILURE_CHARS, _SOURCE_CHARS = 200, 80
#: How far above the failure line a Python traceback's frames are looked for.
_FRAMES_BACK = 60


def last_words(lines: Sequence[str], *, look_back: int = 15) -> str | None:
    """What a stdio server's stderr says of why it stopped, in one line: the line naming the
    failure (the last naming one among the last few, else the last that is not a runtime's trailer:
    Node ends a crash with ``Node.js v20.20.2``, which says nothing about it), and, where a
    traceback or Node's crash report names it, the file and line it happened at, with that line of
    source (a syntax error, a name misspelt at import: the failure line alone gave no place)."""
    kept = list(lines)
    first = max(0, len(kept) - look_back)
    recent = [i for i in range(first, len(kept)) if not _TRAILERS.match(kept[i])]
    named = [i for i in recent if _FAILURE_WORDS.search(kept[i])]
    if not recent:
        return None
    at = (named or recent)[-1]
    said = _cut(kept[at].strip(), _FAILURE_CHARS)
    place = _python_place(kept, at) or _node_place(kept, at)
    if place is None:
        return said
    where, source = place
    return f"{said}, at {where}: {_cut(source, _SOURCE_CHARS)}" if source else f"{said}, at {where}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _python_place(lines: Sequence[str], at: int) -> tuple[str, str | None] | None:
    """``(file:line, source)`` of the innermost frame of the Python traceback ending above ``at``
    that is the server's own code (not the standard library's or an installed package's, where a
    bad argument of its own is raised: ``json.loads`` fails in ``json/decoder.py``), else the
    innermost at all; never ``<string>`` of ``python -c`` nor ``<frozen runpy>``, no file to open."""
    frames: list[tuple[int, re.Match[str]]] = []  # innermost first
    for i in range(at - 1, max(-1, at - _FRAMES_BACK), -1):
        if not lines[i][:1].isspace():  # a traceback's frames are indented; its header is not
            break
        frame = _PYTHON_FRAME.match(lines[i])
        if frame is not None and not (frame["file"].startswith("<") and frame["file"].endswith(">")):
            frames.append((i, frame))
    if not frames:
        return None
    i, frame = next(((i, f) for i, f in frames if not _LIBRARY.search(f["file"])), frames[0])
    return f"{frame['file']}:{frame['line']}", _source_after(lines, i, at)


def _node_place(lines: Sequence[str], at: int) -> tuple[str, str | None] | None:
    """``(file:line, source)`` Node names above an uncaught error (its source line and caret
    between), else the innermost frame of the stack printed under it that is the server's own
    (not in ``node_modules``; never one of Node's own modules): an error a server logged before
    exiting (``console.error(error); process.exit(1)``)."""
    for i in range(at - 1, max(-1, at - 5), -1):
        place = _NODE_PLACE.fullmatch(lines[i].strip())
        if place is not None:
            return f"{place['file']}:{place['line']}", _source_after(lines, i, at)
    frames = []
    for line in lines[at + 1 : at + 30]:
        if not line.startswith((" ", "\t")):  # the stack ended
            break
        frame = _NODE_FRAME.match(line)
        if frame is not None:
            frames.append(frame)
    if not frames:
        return None
    frame = next((f for f in frames if not _LIBRARY.search(f["file"])), frames[0])
    return f"{frame['file']}:{frame['line']}", None


def _source_after(lines: Sequence[str], place: int, end: int) -> str | None:
    """The source line a runtime printed under the place it names (not its carets), if any."""
    if place + 1 >= end:
        return None
    source = lines[place + 1].strip()
    if not source or _CARETS.match(source) or _PYTHON_FRAME.match(lines[place + 1]):
        return None
    return source


def validation_problem(exc: Any) -> str:
    """The first complaint of a pydantic ``ValidationError`` in a few words (``result: Input should
    be a valid dictionary``), rather than every model a union tried."""
    first = exc.errors(include_url=False)[0]
    where = ".".join(map(str, first["loc"]))
    return f"{where}: {first['msg']}" if where else first["msg"]


#: Python's constants, as JSON writes them.
_JSON_WORDS = {"None": "null", "True": "true", "False": "false"}


def json_problem(text: str, exc: Any, first_line: int = 1) -> str:
    """``invalid JSON at line 3, column 5: ... (a trailing comma?)`` for a ``json.JSONDecodeError``:
    where, and the slips people make most when they write JSON by hand. ``first_line``: the line
    of the file that ``text`` starts on."""
    hint = ""
    if text[exc.pos : exc.pos + 2] in ("//", "/*"):
        hint = " (JSON does not allow comments)"
    elif text[: exc.pos].rstrip().endswith(",") and exc.msg.startswith(
        ("Expecting property name", "Expecting value")
    ):
        hint = " (a trailing comma?)"
    elif exc.msg.startswith("Unterminated string"):
        hint = " (a missing closing quote?)"
    elif text[exc.pos : exc.pos + 1] == "'":
        hint = " (JSON quotes with \" only, not ')"
    elif python := re.match(r"(None|True|False)\b", text[exc.pos :]):
        hint = f" (Python's {python[1]}: JSON writes {_JSON_WORDS[python[1]]})"
    # json's own message points on with "at" to the position it reports apart: "Unterminated string
    # starting at", "Invalid control character at"; the position is already said, first
    what = exc.msg.removesuffix(" at").removesuffix(" starting")
    line = exc.lineno + first_line - 1
    return f"invalid JSON at line {line}, column {exc.colno}: {what}{hint}"


def http_refusal(status: int, message: str | None, url: str, transport: str) -> str:
    """Why a server answered the handshake with an HTTP error (the SDK says only "-32603" or
    ``HTTPStatusError``), with the likely fix for the usual mix-ups: a wrong path, or a Streamable
    HTTP endpoint reached as legacy SSE and the other way round."""
    from http import HTTPStatus

    try:
        phrase = f" {HTTPStatus(status).phrase}"
    except ValueError:
        phrase = ""
    said = f" ({message})" if message and message.strip() != phrase.strip() else ""
    text = f"HTTP {status}{phrase} from {url}{said}"
    if status == 404:
        hint = f"nothing answers MCP at that path; check the URL ({_USUAL_PATHS})"
    elif transport == "sse" and status in (400, 405, 406):
        hint = (
            "it takes no SSE stream there; if it is a Streamable HTTP endpoint, use transport 'http', "
            "not 'sse'"
        )
    elif transport == "http" and status == 405:
        hint = "it takes no MCP requests there; if it is a legacy SSE endpoint, use transport 'sse'"
    elif status == 501:
        hint = "the web server there takes no POST requests: is that an MCP server's address?"
    elif status == 407:
        hint = (
            f"a proxy in between asks for credentials; give them in the proxy URL "
            f"(http://user:password@host:port in {_PROXY_VARIABLES})"
        )
    else:
        return text
    return f"{text}: {hint}"


def _address_of(exc: BaseException) -> str | None:
    """``host:port`` of the request an httpx error was raised for (None when it has none)."""
    try:
        url = exc.request.url  # type: ignore[attr-defined]  # httpx raises RuntimeError when unset
    except (AttributeError, RuntimeError):
        return None
    return f"{url.host}:{url.port}" if url.port else url.host or None


def http_status_of(exc: BaseException) -> int | None:
    """The status of the HTTP response behind ``exc`` (httpx's ``HTTPStatusError``), if any."""
    response = getattr(root_cause(exc), "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None
