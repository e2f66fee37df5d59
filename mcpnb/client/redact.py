"""Keep secrets out of everything a person sees: reprs, status rows, log lines, error messages.

Notebooks get saved, shared and screen-shared, so a token printed once is a token leaked. Redaction
happens at two levels: by *name* (a header called ``Authorization`` holds a secret whatever its value)
and by *value* (:func:`scrub` removes known secret values from free text such as a server's error
message that echoes its own command line). Standard library only: this is imported on every path.

A long secret is also hidden in *pieces* (:data:`FRAGMENT_CHARS`): text is redacted a line at a
time, and a server's log handler (rich, under the SDK's ``MCPServer`` and FastMCP) folds a token
longer than its free width across lines, so no line holds the whole value.
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Iterable, Mapping
from urllib.parse import unquote, unquote_plus, urlsplit, urlunsplit

REDACTED = "***"

_SECRET_NAMES = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_SECRET_PARTS = ("token", "secret", "password", "passwd", "apikey", "credential")
# Names with "token" in them that count or label language-model tokens, or are MCP's progress token
# (a request id, not a credential): hiding ``max_tokens: 100`` or ``progressToken: Field required``
# hid the very words a person debugging a call needs. Plural after a counting word, or a counting
# word after, so ``API_TOKENS`` (a list of tokens) stays hidden.
_TOKEN_COUNTS = re.compile(
    r"(?i)progress[-_]?token"
    r"|(?:max|min|num|total|input|output|prompt|completion|context|reasoning|cached?|estimated)[-_]?tokens"
    r"|tokens?[-_]?(?:count|used|limit|usage|budget|left|remaining)"
)
# URL query parameters that carry secrets without a telling name (signed URLs, OAuth codes, session
# ids: an SSE endpoint's ``?session_id=``, a servlet's ``;jsessionid=``, S3's ``X-Amz-Signature``).
_SECRET_PARAMS = frozenset(
    {"key", "sig", "signature", "code", "auth", "jwt", "pass", "pwd", "tok", "access", "otp", "pin"}
    | {"session", "sessionid", "session_id", "session-id", "sid", "jsessionid", "phpsessid", "ticket"}
    | {"x-amz-signature", "x-amz-credential", "x-goog-signature", "x-goog-credential"}
)
# Values long enough to be worth scrubbing: shorter ones would mangle ordinary words.
_MIN_SECRET = 4


def is_secret_key(name: str) -> bool:
    """Whether a header/field/variable *name* says its value is a secret.

    Names are the only reliable signal we have before a value leaks, so err on the side of hiding:
    ``X-Api-Key``, ``api_key``, ``apiKey``, ``GITHUB_TOKEN``, ``db_password`` all count.
    """
    low = name.strip().lower()
    if counts_tokens(name):
        return False
    if low in _SECRET_NAMES or low == "key":
        return True
    if low.endswith(("-key", "_key", ".key")) or name.strip().endswith("Key"):
        return True
    return any(part in low for part in _SECRET_PARTS)


def counts_tokens(name: str) -> bool:
    """Whether a name with "token" in it is about language-model tokens or MCP's progress token
    (``max_tokens``, ``outputTokens``, ``progressToken``, ``token_count``), never a credential."""
    return _TOKEN_COUNTS.fullmatch(name.strip()) is not None


def _is_secret_param(name: str) -> bool:
    return is_secret_key(name) or name.strip().lower() in _SECRET_PARAMS


# Words of a name that say its value is (or holds) a credential, besides :func:`is_secret_key`'s.
_SECRET_WORDS = frozenset(
    {"pass", "pwd", "pin", "pat", "otp", "auth", "session", "sid", "sig", "signature", "cookie"}
    | {"cred", "creds", "credentials", "passphrase", "passcode", "jwt"}
)
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def looks_secret_name(name: str) -> bool:
    """Whether a variable's or a flag's name may hold a credential: :func:`is_secret_key`, or a word
    of it says so (``DB_PASS``, ``GITLAB_PAT``, ``--pin``, ``SESSION_ID``). Broader than
    :func:`is_secret_key`, for the question "may this value be shown?", never for which headers
    an HTTP request sends."""
    words = {w.lower() for w in _NAME_WORD.findall(name)}
    return is_secret_key(name) or bool(words & _SECRET_WORDS)


# Values that cannot be secrets; scrubbing them from every message would only mangle text
# ("127.0.0.1" turned each URL of a local server in the logs into "http://***:8000").
_TRIVIAL_VALUES = frozenset(
    {"true", "false", "yes", "no", "on", "off", "none", "null", "info", "debug", "warning", "error"}
    | {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
)
# A short plain word or slug: lowercase words and small numbers, at most three, joined by ``-_.``
# (``json``, ``test``, ``production``, ``us-east-1``, ``eu_west_2``, ``v1``).
_PLAIN_SLUG = re.compile(r"(?:[a-z]+\d{0,2}|\d{1,4})(?:[-_.](?:[a-z]+\d{0,2}|\d{1,4})){0,2}")
_PLAIN_SLUG_CHARS = 24
# An absolute path of ordinary segments (``/home/ann/data``, ``~/servers``, ``C:\\tools``).
_PATH = re.compile(r"(?:~|[A-Za-z]:)?[/\\][\w.@+-]*(?:[/\\][\w.@+-]*)*")


def is_plain_value(value: str, name: str = "") -> bool:
    """Whether a configured value (an env value, a substituted ``${VAR}``) plainly cannot be a
    secret, so it is *not* scrubbed from free text: scrubbing ``REGION=us-east-1`` or
    ``APP_ENV=test`` turned a server's ``startup region=us-east-1`` into ``region=***`` and a tool
    named ``..._test_...`` into ``..._***_...``.

    The rule, both parts needed: ``name`` (the variable's) does not look secret
    (:func:`looks_secret_name`: ``API_KEY=test`` stays hidden), and the value is one that nobody
    uses as a credential: a word of :data:`_TRIVIAL_VALUES` (booleans, log levels, loopback
    hosts), a number, a short lowercase slug (at most three lowercase words or numbers of up to
    four digits, 24 characters in all: a generated secret has upper case, long digit runs or
    more length; a four-word passphrase is not a slug), or an absolute path none of whose
    segments looks like a token (:func:`looks_like_token`). Where values are *listed* (an env
    mapping in a repr or ``%mcp config``) every one is still hidden: :func:`redact_env`."""
    if name and looks_secret_name(name):
        return False
    low = value.strip().lower()
    if low in _TRIVIAL_VALUES or _is_number(value):
        return True
    if len(value) <= _PLAIN_SLUG_CHARS and _PLAIN_SLUG.fullmatch(value):
        return True
    return bool(_PATH.fullmatch(value)) and not any(
        looks_like_token(seg) for seg in re.split(r"[/\\]", value)
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


#: Headers whose values never carry a credential: the only ones a status, a repr or an error shows.
_PLAIN_HEADERS = frozenset(
    {"accept", "accept-encoding", "accept-language", "cache-control", "content-type", "user-agent"}
    | {"mcp-protocol-version", "x-request-id", "x-forwarded-proto"}
)


def is_plain_header(name: str) -> bool:
    """Whether a header's value can be shown. Names say little here: a server reads its key from
    ``X-Custom-Auth`` or ``X-Tenant`` as readily as from ``Authorization``, so only well-known
    headers that never hold one are shown (a token once went out in full as ``X-Custom-Thing``)."""
    return name.strip().lower() in _PLAIN_HEADERS and not is_secret_key(name)


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """A copy safe to print: every value replaced but those of :func:`is_plain_header` headers."""
    return {k: (v if is_plain_header(k) else REDACTED) for k, v in headers.items()}


def redact_env(env: Mapping[str, str]) -> dict[str, str]:
    """A copy with *every* value hidden: env values are how servers get credentials, whatever the name."""
    return dict.fromkeys(env, REDACTED)


def _redact_pairs(text: str, found: set[str] | None, joiner: str = "&") -> str:
    """``name=value`` pairs with the values hidden that a secret-looking name holds, or that look
    like a token whatever their name (``?t=<token>``, ``?state=…``: names are the server's choice)."""
    pieces = []
    for piece in text.split(joiner):
        name, sep, value = piece.partition("=")
        if sep and value and (_is_secret_param(unquote_plus(name)) or looks_like_token(unquote_plus(value))):
            if found is not None:
                found.update({value, unquote_plus(value)})
            piece = f"{name}={REDACTED}"
        pieces.append(piece)
    return joiner.join(pieces)


def _redact_url(url: str, found: set[str] | None) -> str:
    if "://" not in url and "@" in url.split("/", 1)[0]:  # no scheme (a typo): still an authority
        return _redact_url("//" + url, found)[2:]
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # malformed (e.g. a bad IPv6 literal): hide the userinfo and the query
        head, sep, _ = url.partition("?")
        scheme, slashes, rest = head.partition("://")
        if slashes and "@" in rest:
            head = f"{scheme}://{REDACTED}@{rest.rpartition('@')[2]}"
        return head + (f"?{REDACTED}" if sep else "")
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        user, colon, secret = userinfo.partition(":")
        if colon:
            netloc = f"{user}:{REDACTED}@{hostport}"
            if found is not None and password:
                found.update({secret, password, unquote(secret), basic_credential(user, secret)})
        elif user:  # a lone userinfo is the token-as-username convention (https://TOKEN@host)
            netloc = f"{REDACTED}@{hostport}"
            if found is not None:
                found.update({user, unquote_plus(user), unquote(user), basic_credential(user, "")})
    path = _redact_path(parts.path, found)
    query = _redact_pairs(parts.query, found)
    fragment = _redact_pairs(parts.fragment, found) if "=" in parts.fragment else parts.fragment
    if (netloc, path, query, fragment) == (parts.netloc, parts.path, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, path, query, fragment))


# A path segment made of the characters tokens are made of (base64, base64url, hex, UUIDs).
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-.~+=%]{20,}")


def looks_like_token(segment: str) -> bool:
    """Whether a URL path segment looks like a credential: hosted MCP servers hand out secret URLs
    (``https://mcp.example.com/s/<token>/mcp``, "treat it like a password"), and the path is what
    a status row shows. Twenty characters or more of token characters, with upper case, lower
    case and digits mixed (base64) or a quarter digits or more (hex, UUIDs); a slug such as
    ``my-server-2024`` or ``weather-forecast-tools`` is none of these."""
    if not _TOKEN_CHARS.fullmatch(segment):
        return False
    alnum = [c for c in segment if c.isalnum()]
    digits = sum(c.isdigit() for c in alnum)
    mixed = digits and any(c.isupper() for c in alnum) and any(c.islower() for c in alnum)
    return bool(mixed) or digits * 4 >= len(alnum)


def _redact_path(path: str, found: set[str] | None) -> str:
    segments = path.split("/")
    tokens = {s for s in segments if looks_like_token(s)}  # every log line's URLs come this way
    if tokens and found is not None:
        found.update(tokens)
    shown = [REDACTED if s in tokens else _redact_matrix(s, found) for s in segments]
    return path if shown == segments else "/".join(shown)


def _redact_matrix(segment: str, found: set[str] | None) -> str:
    """A path segment's ``;name=value`` parameters (``/mcp;jsessionid=…``) redacted as a query's."""
    head, sep, params = segment.partition(";")
    return f"{head};{_redact_pairs(params, found, ';')}" if sep and "=" in params else segment


def redact_url(url: str) -> str:
    """The URL with its userinfo password, query (and ``;`` path) parameters whose name looks secret
    or whose value looks like a token, and path segments that look like tokens
    (:func:`looks_like_token`) replaced.

    Tokens in query strings (``?token=…``, ``?api_key=…``) are common for SSE endpoints, secret
    paths for hosted servers, and a URL is exactly what a status table or an error message shows.
    """
    return _redact_url(url, None)


def basic_credential(user: str, password: str) -> str:
    """What the HTTP client sends for a URL's userinfo (``Authorization: Basic <this>``): the
    base64 of the percent-decoded ``user:password``. A server that quotes the headers it got in an
    error shows this, not the password, so it is a secret as much as the password is."""
    return base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()


def url_secrets(url: str) -> set[str]:
    """The values :func:`redact_url` hides, so they can also be scrubbed from free text, and the
    ``Basic`` credential its userinfo becomes (:func:`basic_credential`)."""
    found: set[str] = set()
    _redact_url(url, found)
    return {s for s in found if s}


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every occurrence of every secret value replaced by :data:`REDACTED`, and every
    piece of a long one (:class:`_Fragments`).

    Longest first in a single pass, so a secret that contains another is hidden whole. Values shorter
    than 4 characters are ignored: scrubbing ``"1"`` or ``"on"`` would wreck the message and hide
    nothing worth hiding.
    """
    values = frozenset(s for s in secrets if isinstance(s, str) and len(s) >= _MIN_SECRET)
    if not values or not text:
        return text
    whole, pieces = _scrubber(values)
    text = whole.sub(REDACTED, text)
    return pieces.hide(text) if pieces is not None else text


#: A run of at least this many characters of a long secret's word is hidden wherever it appears,
#: on its own (the piece a log handler's wrap or a cut left on one line). Shorter runs are ordinary
#: text far too often (``"/home/ann/"``, ``"-----BEGIN "``), and a shorter secret is not folded:
#: it fits the width a child is given (``COLUMNS``) beside the log's time and level.
FRAGMENT_CHARS = 16
# Pieces are found by looking up the ``_GRAM``-character slices of the text that start at a multiple
# of ``_GRAM``: any run of FRAGMENT_CHARS (>= 2 * _GRAM - 1) characters holds one whole.
_GRAM = FRAGMENT_CHARS // 2
_GRAMS = re.compile(f".{{{_GRAM}}}", re.DOTALL)
# The places in the secrets one slice is looked up at, at the most (a secret of one repeated
# character would otherwise make every lookup try them all).
_GRAM_PLACES = 8
# What splits a secret into the words a log handler's wrap keeps whole: whitespace, and the
# separators of a path list (PYTHONPATH="/home/ann/src:/opt/lib", not plain as a whole).
_WORD_SPLIT = re.compile(r"[\s:;,]+")


@functools.lru_cache(maxsize=32)
def _scrubber(values: frozenset[str]) -> tuple[re.Pattern[str], _Fragments | None]:
    """The pattern of the whole values (longest first), and what finds the pieces of the long ones;
    built once for each set of secrets (a connection's are the same for every line it logs)."""
    pattern = re.compile("|".join(map(re.escape, sorted(values, key=len, reverse=True))))
    words = {
        word
        for value in values
        for word in _WORD_SPLIT.split(value)
        # only a word made like a token (base64, hex, a JWT): a hostname, a database's name or an
        # option inside a secret value (a DSN, NODE_OPTIONS) is ordinary text wherever else it shows
        if len(word) >= FRAGMENT_CHARS and looks_like_token(word)
    }
    return pattern, _Fragments(words) if words else None


class _Fragments:
    """Finds the runs of :data:`FRAGMENT_CHARS` or more characters that are a piece of a long secret
    word: rich folds a 150-character token in an env variable into three lines of ~80, each redacted
    alone, and together they rebuild the token.

    A stderr line goes through this, so the common case (no piece) costs one set lookup every
    ``_GRAM`` characters, done in C; only a hit is extended character by character."""

    def __init__(self, words: Iterable[str]) -> None:
        self.places: dict[str, list[tuple[str, int]]] = {}
        for word in words:
            for at in range(len(word) - _GRAM + 1):
                found = self.places.setdefault(word[at : at + _GRAM], [])
                if len(found) < _GRAM_PLACES:
                    found.append((word, at))

    def hide(self, text: str) -> str:
        """``text`` with every such run replaced by :data:`REDACTED`."""
        grams = _GRAMS.findall(text)  # the slices at 0, _GRAM, 2 * _GRAM, ...
        if self.places.keys().isdisjoint(grams):
            return text
        hits = [n * _GRAM for n, gram in enumerate(grams) if gram in self.places]
        runs: list[tuple[int, int]] = []
        for at in hits:
            if runs and at < runs[-1][1]:
                continue  # inside the run just found
            run = self._run(text, at)
            if run is not None and runs and run[0] <= runs[-1][1]:  # two pieces side by side: one
                runs[-1] = (min(run[0], runs[-1][0]), max(run[1], runs[-1][1]))
            elif run is not None:
                runs.append(run)
        shown, end = [], 0
        for start, stop in runs:
            shown += [text[end:start], REDACTED]
            end = stop
        return "".join([*shown, text[end:]])

    def _run(self, text: str, at: int) -> tuple[int, int] | None:
        """The longest run around ``text[at:at + _GRAM]`` that is a piece of one secret word, if it
        is at least :data:`FRAGMENT_CHARS` long."""
        best: tuple[int, int] | None = None
        for word, place in self.places[text[at : at + _GRAM]]:
            start, left = at, place
            while start > 0 and left > 0 and text[start - 1] == word[left - 1]:
                start, left = start - 1, left - 1
            stop, right = at + _GRAM, place + _GRAM
            while stop < len(text) and right < len(word) and text[stop] == word[right]:
                stop, right = stop + 1, right + 1
            if stop - start >= FRAGMENT_CHARS and (best is None or stop - start > best[1] - best[0]):
                best = (start, stop)
        return best


#: A typed secret of digits shorter than this (a PIN) is hidden only where no other digit touches
#: it: ``5432`` inside a port ``54321`` is not it, and hiding it there garbled the message.
_STANDS_ALONE = 8


def hide_typed(message: str, typed: str, mask: str, *, shortest: int = 4) -> str:
    """``message`` without what a person typed into a secret field (a validator or a parser quotes
    it back: ``not a whole number: '9753x'``). Its quoted forms always go; its bare text where it is
    at least ``shortest`` characters (shorter, it is some word of the message itself), and, for a
    short one of digits, only where it is not part of a longer number."""
    import json

    text = typed.strip()
    quoted = {repr(typed), repr(text), json.dumps(typed), json.dumps(text)} - {"''", '""'}
    bare = {typed, text, json.dumps(text)[1:-1]} if len(text) >= shortest else set()
    out = message
    for shown in sorted(quoted, key=len, reverse=True):
        out = out.replace(shown, mask)
    for shown in sorted(bare - {""}, key=len, reverse=True):
        if shown.isdigit() and len(shown) < _STANDS_ALONE:
            out = re.sub(rf"(?<!\d){re.escape(shown)}(?!\d)", mask, out)
        else:
            out = out.replace(shown, mask)
    return out
