"""Tab completion for ``%mcp`` / ``%%mcp``: subcommands, options, server names, ``NAME.TOOL``,
``key=`` and its values, resource URIs.

Completion runs while a person types, so it only uses what the pool already knows (the cached tool
lists) or asks a server with a bound on the wait, and swallows every error: a completer that
raises or hangs is worse than none.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

from mcpnb.notebook.magics.commands import COMMANDS

#: ``result = `` before a line magic, as IPython allows.
_ASSIGNED = re.compile(r"^\s*[A-Za-z_][\w.]*\s*=\s*(?=%)")
_SERVER_ARG = {"tools", "resources", "prompts", "disconnect", "reconnect", "logs", "read"}
_LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
_CHOICES = {"--era": ["auto", "legacy", "modern"], "--log-level": _LOG_LEVELS}
#: The longest a tab press waits for a server's completion/complete answer.
SERVER_COMPLETION_TIMEOUT = 1.0
#: A word the magic line reads as itself after ``key=`` (else it is written quoted, as JSON).
_PLAIN_VALUE = re.compile(r"[^\s'\"\\{}\[\]$#]+")


class Only(list[str]):
    """Completions that are the whole answer for where the cursor is (a tool argument's value, a
    resource URI): when none fits, nothing is offered, not Python's names (``abs``, ``and``), which
    mean nothing there.

    They are the server's words, so none with ``{{`` is offered: the line runs a ``{{…}}`` as Python
    in the notebook (:func:`~mcpnb.notebook.magics.parser.value_of`), and a value from a server must
    never become code the person runs with one key."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        super().__init__(v for v in values if "{{" not in v)


class _NothingElse(list[Any]):
    """No completion, and no other matcher's either. IPython lets a matcher silence the others only
    when it has a completion (``has_any_completions`` asks ``len``): this list says it has one, and
    holds none."""

    def __len__(self) -> int:
        return 1


def candidates(pool: Any, text_until_cursor: str) -> list[str]:
    """Completions for the word under the cursor, given the line up to the cursor (``r = %mcp …``
    too: the result captured into a variable). None that would not read as what it inserts
    (:func:`reads_as_written`)."""
    found = _candidates(pool, text_until_cursor)
    kept = [word for word in found if reads_as_written(word)]
    return Only(kept) if isinstance(found, Only) else kept


#: Characters that are no part of a word a person reads: the bidi controls (an override, U+202E,
#: reorders the completion list's entry and, inserted, the rest of the cell's line: the line then
#: reads as other than it runs), the invisible format characters (zero-width space, joiners, marks,
#: the BOM, tag characters: a name with one reads as another name), line and paragraph separators,
#: control characters, and the blank Hangul fillers that are letters drawn as nothing.
_UNSEEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_ZWJ = "\u200d"
#: Marks Unicode calls default-ignorable (drawn as nothing: the combining grapheme joiner, Khmer's
#: inherent vowels, Mongolian and other variation selectors), which their category (Mn) does not
#: give away. A presentation selector right after an emoji is part of its picture.
_IGNORABLE_MARKS = (
    (0x034F, 0x034F),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0xFE00, 0xFE0F),
    (0xE0100, 0xE01EF),
)


def reads_as_written(word: str) -> bool:
    """Whether ``word`` shows as what it is, so a completion inserts what the person saw. The
    server's words (a tool's name, a parameter, an ``enum`` value, a resource URI) come as the
    server wrote them; one with a character that is not seen (above) is not offered: a completion
    that inserts a name the person cannot see is worse than none, and written out (``<U+202E>``,
    as :func:`~mcpnb.client.printable.printable` shows it) it would be a name the server does not
    have. The person may still type it. A zero-width joiner between two emoji (a family: man,
    joiner, woman) is seen, as the one picture it makes."""
    if word.isascii():
        return word.isprintable()
    import unicodedata

    for i, char in enumerate(word):
        if char == _ZWJ and _joins_emoji(word, i):
            continue
        if char in _BLANK_LETTERS or unicodedata.category(char) in _UNSEEN_CATEGORIES:
            return False
        emoji_style = char == "\ufe0f" and i > 0 and unicodedata.category(word[i - 1]) == "So"
        if not emoji_style and any(low <= ord(char) <= high for low, high in _IGNORABLE_MARKS):
            return False
    return True


def _joins_emoji(word: str, i: int) -> bool:
    """Whether the joiner at ``word[i]`` stands between two emoji (the first may carry its
    presentation selector, U+FE0F, or a skin tone)."""
    import unicodedata

    before, after = word[i - 1 : i], word[i + 1 : i + 2]
    if before == "\ufe0f":
        before = word[i - 2 : i - 1]
    return (
        bool(before and after)
        and unicodedata.category(before) in ("So", "Sk")
        and unicodedata.category(after) == "So"
    )


def _candidates(pool: Any, text_until_cursor: str) -> list[str]:
    words = _ASSIGNED.sub("", text_until_cursor).split()
    if not words or not words[0].lstrip("%").startswith("mcp"):
        return []
    if text_until_cursor[-1:].isspace():
        words.append("")
    words = words[1:]
    if not words:
        return []
    if len(words) == 1:
        return [*COMMANDS, "--verbose"]
    sub, current, previous = words[0], words[-1], words[-2]
    command = COMMANDS.get(sub)
    if command is None:
        return []
    if previous in _CHOICES:
        return _CHOICES[previous]
    if previous == "--toolset":
        from mcpnb.probekit.toolsets import TOOLSETS

        return list(TOOLSETS)
    if previous == "--stop":
        return list(pool.names)
    if current.startswith("-"):
        return [*command.parser.option_strings(), "--verbose"]
    positional = [w for w in words[1:-1] if not w.startswith("-")]
    first = not positional
    if sub == "call":
        if first:
            return _tool_names(pool, current)
        if "=" in current:
            return _values(pool, positional[0], current)
        return _parameters(pool, positional[0], words)
    if sub == "prompt":
        if first:
            return _prompt_names(pool)
        return _prompt_arguments(pool, positional[0], current, text_until_cursor)
    if sub in ("subscribe", "unsubscribe") and first:
        return list(pool.names)
    if sub == "unsubscribe" and len(positional) == 1:  # what it watches: nothing else can be unwatched
        return Only(_fitting_prefix(_watched(pool, positional[0]), current))
    if sub == "serve" and first:
        return ["probe-kit"]
    if sub == "help" and first:
        return list(COMMANDS)
    if previous == "--input":
        return _input_ids(words)
    if sub == "config":  # %mcp config [PATH] [NAME ...]
        names = [*pool.names, *(n for n in _configured_names() if n not in pool.names)]
        return _paths(current) + names if first else names
    if previous == "--config":
        return _paths(current) + (_configured_names() if sub == "connect" else [])
    if sub == "connect" and "--config" in words:
        return _configured_names()
    if sub == "tools" and first:  # a server, or one tool in full
        return [*pool.names, *(_tool_names(pool, current) if "." in current else [])]
    if sub == "prompts" and first:  # a server, or one prompt in full
        return [*pool.names, *(_prompt_names(pool) if "." in current else [])]
    if sub in _SERVER_ARG and first:
        return list(pool.names)
    if sub in ("read", "subscribe") and len(positional) == 1:
        return Only(_uris_for(pool, positional[0], current))
    if sub == "skills":  # a server, then one of its skills
        return (
            list(pool.names) if first else _skill_names(pool, positional[0]) if len(positional) == 1 else []
        )
    return []


#: An in-process server's list this old (seconds) is listed again for a Tab, where it is small: a
#: cell may have added a tool to it since, and no list_changed says so. A big one (thousands of
#: tools: seconds to list) is read as last listed, or listed again when a named tool is missing.
INPROCESS_RELIST = 5.0
INPROCESS_RELIST_MAX = 500


def _listed_tools(pool: Any, server: str, name: str | None = None) -> list[Any]:
    """``server``'s tools as last listed, stale or not (no I/O: a keypress must not list 5000 tools
    again); fetched when it never listed them (which caches them for the next key), and for an
    in-process server when ``name`` is not among them or a small list is :data:`INPROCESS_RELIST`
    seconds old (a tool added in a cell shows on Tab, as on ``%mcp tools``)."""
    try:
        conn = pool.connection(server)
        listed = conn.catalog.listed()
    except Exception:
        return list(pool.tools(server))
    if listed is not None and conn.transport == "inprocess":
        age = conn.catalog.cache.age
        missing = name is not None and all(t.name != name for t in listed)
        old = len(listed) <= INPROCESS_RELIST_MAX and (age is None or age >= INPROCESS_RELIST)
        if missing or old:
            listed = None
    return list(pool.tools(server)) if listed is None else listed


def _tool_names(pool: Any, current: str = "") -> list[str]:
    """``NAME.TOOL`` for the server the word already names (``demo.p``), else for every server."""
    named = current.partition(".")[0] if "." in current else None
    out: list[str] = []
    for server in [named] if named in pool.names else pool.names:
        try:
            out += [f"{server}.{t.name}" for t in _listed_tools(pool, server)]
        except Exception:
            out.append(f"{server}.")
    return out


def _tool(pool: Any, target: str) -> Any:
    """The listed tool ``NAME.TOOL`` names (None if there is none), from its server's last list."""
    server, _, name = target.partition(".")
    try:
        return next((t for t in _listed_tools(pool, server, name) if t.name == name), None)
    except Exception:
        return None


def _parameters(pool: Any, target: str, words: list[str]) -> list[str]:
    tool = _tool(pool, target)
    if tool is None:
        return []
    given = {w.split("=", 1)[0] for w in words if "=" in w}
    return [f"{p}=" for p in tool.parameters if p not in given]


def _in_placeholder(typed: str) -> bool:
    """Whether the cursor is inside a ``{{…}}`` begun in ``typed``: the notebook's names are
    IPython's to offer there, and a server's words must not be (its value would run as Python)."""
    return "{{" in typed and "}}" not in typed.rpartition("{{")[2]


def _values(pool: Any, target: str, current: str) -> list[str]:
    """After ``key=``: the values the tool's inputSchema allows for ``key`` (its ``enum``, ``const``,
    ``true``/``false`` for a boolean), written as the line reads them. A parameter with none gets
    nothing: MCP has no completion for tools, and Python's names are no value. ``{{`` is left to
    IPython, which completes the notebook variable written there."""
    key, _, typed = current.partition("=")
    if _in_placeholder(typed):
        return []
    tool = _tool(pool, target)
    schema = tool.input_schema if tool is not None and isinstance(tool.input_schema, dict) else {}
    properties = schema.get("properties")
    spec = properties.get(key) if isinstance(properties, dict) else None
    quote = typed[:1] if typed[:1] in ("'", '"') else ""
    return Only(dict.fromkeys(_as_typed(v, quote) for v in _allowed(spec, schema)))


def _allowed(spec: Any, root: dict[str, Any], depth: int = 0) -> list[Any]:
    """The values a JSON Schema lists, ``$ref``s followed, ``anyOf``/``oneOf`` alternatives
    included (``Optional[Literal[...]]``)."""
    from mcpnb.client.schemarefs import deref

    spec = deref(spec, root)
    found: list[Any] = list(spec.get("enum") or []) if isinstance(spec.get("enum"), list) else []
    if "const" in spec:
        found.append(spec["const"])
    types = spec.get("type") if isinstance(spec.get("type"), list) else [spec.get("type")]
    if "boolean" in types and not found:
        found += [True, False]
    for keyword in ("anyOf", "oneOf"):
        alternatives = spec.get(keyword)
        if isinstance(alternatives, list) and depth < 5:
            for alternative in alternatives:
                found += _allowed(alternative, root, depth + 1)
    return found


def _as_typed(value: Any, quote: str = "") -> str:
    """``value`` as written after ``key=``: a word as it is, other text quoted (``"New York"``), in
    the quote already typed, if any; anything else as JSON (``true``, ``3``)."""
    if isinstance(value, str) and quote == "'" and "'" not in value:
        return f"'{value}'"
    if isinstance(value, str) and not quote and _PLAIN_VALUE.fullmatch(value):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


#: How long (seconds) the URIs a server listed are offered again without asking it: every page of
#: ``resources/list`` on each Tab took seconds for 10 000 resources. The client does not follow
#: ``resources/list_changed``, so a time bounds how old they get; ``%mcp resources`` renews them.
RESOURCE_URIS_TTL = 60.0
#: server name -> (its connection, weakly: a server disconnected is not kept alive by Tab; when
#: listed; the URIs): per connection, so a server connected again under the same name is asked afresh.
_uris: dict[str, tuple[weakref.ref[Any], float, list[str]]] = {}


def remember_resource_uris(pool: Any, server: str, uris: Iterable[str]) -> None:
    """Keep what a listing of ``server``'s resources found, for Tab after ``%mcp read NAME ``."""
    import time

    with contextlib.suppress(Exception):
        _uris[server] = (weakref.ref(pool.connection(server)), time.monotonic(), [str(u) for u in uris])


def _resource_uris(pool: Any, server: str) -> list[str]:
    """The URIs ``server`` lists (``resources/list``), from its last listing while that is recent,
    else asked, waited for no longer than a server's completion is; none when it lists none, or
    does not answer in time."""
    import time

    try:
        conn = pool.connection(server)
        kept = _uris.get(server)
        if kept is not None and kept[0]() is conn and time.monotonic() - kept[1] < RESOURCE_URIS_TTL:
            return kept[2]
        resources = pool.runtime.run(conn.list_resources(), timeout=SERVER_COMPLETION_TIMEOUT)
    except Exception:
        return []
    uris = [str(r.uri) for r in resources]
    _uris[server] = (weakref.ref(conn), time.monotonic(), uris)
    return uris


#: server name -> (its connection, weakly; when listed; its resource templates' ``uriTemplate``s).
_templates: dict[str, tuple[weakref.ref[Any], float, list[str]]] = {}
#: Templates asked for their variable's values on one Tab, at most (each bounded in time).
_TEMPLATES_ASKED = 3


def _fitting_prefix(words: Iterable[str], typed: str) -> list[str]:
    """Those of ``words`` that begin with what is typed: IPython's own fallback matched the part
    after the last ``/``, which offered every URI for ``demo://resource/dynamic/text/``."""
    return [w for w in dict.fromkeys(words) if w.startswith(typed)]


def _uris_for(pool: Any, server: str, typed: str) -> list[str]:
    """The resource URIs ``server`` lists that begin with ``typed``, then what its templates make of
    it (:func:`_template_uris`)."""
    return _fitting_prefix([*_resource_uris(pool, server), *_template_uris(pool, server, typed)], typed)


def _watched(pool: Any, server: str) -> list[str]:
    try:
        return list(pool.watched(server))
    except Exception:
        return []


def _uri_templates(pool: Any, server: str) -> list[str]:
    """``server``'s resource templates (``resources/templates/list``), kept as its URIs are
    (:data:`RESOURCE_URIS_TTL`); none when it has no resources, lists none, or does not answer in
    time, and that is kept too: most servers have no templates, and each Tab must not wait again."""
    import time

    try:
        conn = pool.connection(server)
    except Exception:
        return []
    kept = _templates.get(server)
    if kept is not None and kept[0]() is conn and time.monotonic() - kept[1] < RESOURCE_URIS_TTL:
        return kept[2]
    found: list[str] = []
    with contextlib.suppress(Exception):
        if getattr(conn.capabilities, "resources", None) is not None:
            listed = pool.runtime.run(conn.list_resource_templates(), timeout=SERVER_COMPLETION_TIMEOUT)
            found = [str(t.uri_template) for t in listed]
    _templates[server] = (weakref.ref(conn), time.monotonic(), found)
    return found


def _template_uris(pool: Any, server: str, typed: str) -> list[str]:
    """URIs ``server``'s templates make of ``typed``: where it stops inside a template's fixed text,
    that text up to the next ``{var}`` (``demo://resource/d`` offers ``demo://resource/dynamic/text/``);
    where it stops inside a ``{var}``, the values the server suggests for it (``completion/complete``
    with a ``ref/resource``, the variables before it as context), if it offers completions."""
    out: list[str] = []
    asked = 0
    for template in _uri_templates(pool, server):
        place = template_place(template, typed)
        if isinstance(place, str):
            out.append(place)
        elif place is not None and asked < _TEMPLATES_ASKED:
            asked += 1
            try:
                values = pool.complete(
                    server, "", place.name, place.value, place.context or None,
                    template=template, timeout=SERVER_COMPLETION_TIMEOUT,
                )  # fmt: skip
            except Exception:  # no completions offered, or slow: the value is the person's to type
                continue
            out += [place.head + expanded(str(v), place.reserved) for v in values]
    return out


class InVariable(NamedTuple):
    """Where a typed URI stops inside a template's ``{name}``."""

    name: str
    head: str  # what is typed before the variable's value
    value: str  # the value typed so far, percent-decoded
    context: dict[str, str]  # the variables before it, as typed
    reserved: bool = False  # a ``{+name}`` or ``{#name}``: its value keeps reserved characters


#: One ``{…}`` of a URI template. Completed: a plain ``{var}``, ``{+var}`` and ``{#var}`` (one name
#: each) and ``{?a,b}`` / ``{&a,b}`` (form-style query, written ``?a=…&b=…``); other operators
#: (``{/x}``, ``{.x}``, ``{;x}``), several names in one ``{x,y}`` and modifiers (``{x*}``,
#: ``{x:3}``) are not.
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_PLAIN_VARIABLE = re.compile(r"[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*")
#: What a ``{var}`` (or a query's) value may hold in a URI: RFC 6570 writes every reserved
#: character percent-encoded, so the first one typed ends the value.
_VALUE = re.compile(r"[^:/?#\[\]@!$&'()*+,;=]*")
#: RFC 3986's reserved characters, which ``{+var}`` and ``{#var}`` write as they are.
_RESERVED = ":/?#[]@!$&'()*+,;="
_TRIPLET = re.compile(r"(%[0-9A-Fa-f]{2})")


def expanded(value: str, reserved: bool = False) -> str:
    """``value`` as RFC 6570 writes it in a URI: ``{var}`` percent-encodes all but the unreserved
    characters (``a b/c`` gives ``a%20b%2Fc``); ``{+var}`` and ``{#var}`` keep reserved ones and
    ``%XX`` triplets (``a%20b/c``), so a path completes into its folders."""
    if not reserved:
        return quote(value, safe="")
    parts = _TRIPLET.split(value)  # the triplets at odd places, kept
    return "".join(part if i % 2 else quote(part, safe=_RESERVED) for i, part in enumerate(parts))


def template_place(template: str, typed: str) -> str | InVariable | None:
    """Where ``typed`` stops in ``template``: inside its fixed text (or before a ``{?q}``'s
    ``?q=``), that text completed up to the next variable (a ``str``); inside a variable, an
    :class:`InVariable`; None where ``typed`` does not fit the template, reaches past it, or stops
    in an expression not completed (above)."""
    from urllib.parse import unquote

    pieces = _EXPRESSION.split(template)  # fixed text, expression, fixed text, …
    at, context = 0, dict[str, str]()
    for i in range(0, len(pieces), 2):
        fixed, rest = pieces[i], typed[at:]
        if not rest.startswith(fixed):
            return typed + fixed[len(rest) :] if fixed.startswith(rest) else None
        at += len(fixed)
        if i + 1 == len(pieces):
            return None
        body = pieces[i + 1]
        operator = body[:1] if body[:1] in "+#?&" else ""
        names = body[len(operator) :].split(",")
        if not all(_PLAIN_VARIABLE.fullmatch(n) for n in names):
            return None
        if operator in ("?", "&"):
            place = _in_query(operator, names, typed, at, context)
            if not isinstance(place, int):
                return place
            at = place
            continue
        if len(names) != 1:
            return None
        if operator == "#":
            if not typed.startswith("#", at):
                if at == len(typed):
                    return typed + "#"
                continue  # left out (undefined): the next fixed text follows
            at += 1
        if operator:  # {+x} / {#x}: reserved characters are its own; it ends where the next text begins
            following = pieces[i + 2] if i + 2 < len(pieces) else ""
            found = typed.find(following, at) if following else -1
            end = len(typed) if found < 0 else found
        else:
            end = _VALUE.match(typed, at).end()  # type: ignore[union-attr]  # matches the empty text
        if end == len(typed):
            return InVariable(names[0], typed[:at], unquote(typed[at:end]), context, reserved=bool(operator))
        context[names[0]] = unquote(typed[at:end])
        at = end
    return None


def _in_query(
    operator: str, names: list[str], typed: str, at: int, context: dict[str, str]
) -> str | InVariable | int:
    """A ``{?a,b}`` / ``{&a,b}`` at ``at``: ``?a=…&b=…``, each pair optional (an undefined variable
    is left out). Where ``typed`` stops before a pair, that pair's ``?a=``; inside a value, an
    :class:`InVariable`; past the expression, where it ends (an ``int``)."""
    from urllib.parse import unquote

    separator = operator
    for name in names:
        pair = f"{separator}{name}="
        rest = typed[at:]
        if not rest.startswith(pair):
            if rest and pair.startswith(rest):
                return typed + pair[len(rest) :]
            if not rest and separator == operator:
                return typed + pair
            continue
        at += len(pair)
        end = _VALUE.match(typed, at).end()  # type: ignore[union-attr]
        if end == len(typed):
            return InVariable(name, typed[:at], unquote(typed[at:end]), context)
        context[name] = unquote(typed[at:end])
        at, separator = end, "&"
    return at


def _prompt_names(pool: Any) -> list[str]:
    out: list[str] = []
    for server in pool.names:
        try:
            out += [f"{server}.{p.name}" for p in pool.prompts(server)]
        except Exception:
            continue
    return out


def _skill_names(pool: Any, server: str) -> list[str]:
    """The skills ``server`` lists (listing reads none of their files)."""
    try:
        return [skill.name for skill in pool.skills(server)]
    except Exception:
        return []


def _prompt_arguments(pool: Any, target: str, current: str, line: str) -> list[str]:
    """``key=`` for the arguments not given yet; after ``key=``, the server's suggestions for it
    (``completion/complete``, with the arguments already typed as context, read as the line reads
    them: ``department="Sales"`` says ``Sales``). A value begun with a quote is asked for without
    it; values are offered as the line reads them (quoted where they hold a space), matching the
    part after the ``=`` (IPython splits words there)."""
    server, _, name = target.partition(".")
    given = _typed_arguments(_words_before(line, current))
    if "=" in current:
        key, _, partial = current.partition("=")
        if _in_placeholder(partial):
            return []
        quote_typed = partial[:1] if partial[:1] in ("'", '"') else ""
        context = {k: v for k, v in given.items() if k != key and "{{" not in v} or None
        try:
            values = pool.complete(
                server, name, key, partial[len(quote_typed) :], context, timeout=SERVER_COMPLETION_TIMEOUT
            )
        except Exception:  # the server offers no completions, or is slow: the value is the person's
            return Only()
        return Only(dict.fromkeys(_as_typed(str(v), quote_typed) for v in values))
    try:
        prompt = next(p for p in pool.prompts(server) if p.name == name)
    except Exception:
        return []
    return [f"{a.name}=" for a in (prompt.arguments or []) if a.name not in given]


def _words_before(line: str, current: str) -> list[str]:
    """The words of ``line`` after ``%mcp prompt`` and before the one being typed, split as the
    magic splits them: quotes group and are dropped."""
    from mcpnb.notebook.magics.parser import split_line

    before = line[: len(line) - len(current)] if current else line
    try:
        words = split_line(_ASSIGNED.sub("", before))
    except Exception:  # a quote left open: the words as typed
        words = before.split()
    return words[2:]


def _typed_arguments(words: list[str]) -> dict[str, str]:
    return dict(w.split("=", 1) for w in words if "=" in w and not w.startswith("-"))


def _paths(current: str, limit: int = 200) -> list[str]:
    """Folders and config files (``.json``, Codex's ``.toml``) where the word typed so far points, by
    name: IPython completes the part after the last ``/`` (``.vscode/`` then offers ``mcp.json``)."""
    folder, slash, _ = current.rpartition("/")
    where = Path(folder or "/").expanduser() if slash else Path()
    found = []
    for entry in sorted(where.iterdir())[:limit]:
        if entry.is_dir():
            found.append(entry.name + "/")
        elif entry.suffix in (".json", ".toml"):
            found.append(entry.name)
    return found


def _input_ids(words: list[str]) -> list[str]:
    """``ID=`` for each input the line's VS Code file declares and the line does not give yet."""
    from mcpnb.client.config.layers import vscode_variables

    after = words[words.index("--config") + 1 :] if "--config" in words else []
    path = next((w for w in after if w.endswith(".json")), None)
    variables = vscode_variables(path) if path else None
    if variables is None:
        return []
    given = {w.partition("=")[0] for prev, w in itertools.pairwise(words) if prev == "--input"}
    return [f"{i}=" for i in variables.declared if i not in given]


def _configured_names() -> list[str]:
    """Server names in the default ``.mcp.json`` files, read as plain JSON (no validation, no imports)."""
    return server_names_in(default_config_files())


def server_names_in(files: list[Path]) -> list[str]:
    """The ``mcpServers`` names of ``files``, each once, read as plain JSON; a file that cannot be
    read names none."""
    from mcpnb.client.config.validate import read_text

    names: list[str] = []
    for path in files:
        try:
            servers = json.loads(read_text(path)).get("mcpServers") or {}
            names += [n for n in servers if n not in names]
        except Exception:
            continue
    return names


def default_config_files() -> list[Path]:
    """The site, user, project and local files a bare ``%mcp connect --config`` would read (those
    that exist; one in a folder that may not be entered does not)."""
    return broad_config_files() + project_config_files()


def broad_config_files() -> list[Path]:
    """The site and user files that exist: what every notebook on this machine reads."""
    from mcpnb.client.config import site_config_paths, user_config_path
    from mcpnb.client.config.layers import is_file

    return [p for p in (*site_config_paths(), user_config_path()) if is_file(p)]


def project_config_files() -> list[Path]:
    """The project's ``.mcp.json`` (from the working directory up) and its ``.mcp.local.json``, those
    that exist."""
    from mcpnb.client.config import LOCAL_FILE, find_project_config
    from mcpnb.client.config.layers import is_file

    project = find_project_config(Path.cwd())
    found = [project, project.parent / LOCAL_FILE] if project is not None else []
    return [p for p in found if is_file(p)]


def make_hook(get_pool: Callable[[], Any]) -> Callable[[Any, Any], list[str]]:
    """An IPython ``complete_command`` hook (IPython filters the list by the word typed so far)."""

    def hook(_shell: Any, event: Any) -> list[str]:
        try:
            return candidates(get_pool(), event.text_until_cursor)
        except Exception:
            return []

    return hook


def make_matcher(get_pool: Callable[[], Any]) -> Any:
    """An IPython completion matcher (its API v2) for ``%mcp`` lines, which speaks for the whole
    line: the ``complete_command`` hook's names came after Jedi's, so Tab after ``%mcp call `` put
    Python's ``and``, ``if``, ``in`` first (and Enter took ``and``). Past the magic's name nothing
    else is offered; each name says what it is (tool, parameter, option, server or subcommand)."""
    from IPython.core.completer import SimpleCompletion, context_matcher

    @context_matcher()  # type: ignore[misc]
    def mcp_matcher(context: Any) -> dict[str, Any]:
        line = context.text_until_cursor
        words = _ASSIGNED.sub("", line).split()
        if not words or words[0] not in ("%mcp", "%%mcp") or (len(words) == 1 and not line[-1:].isspace()):
            return {"completions": [], "suppress": False}  # not ours, or the magic's own name
        try:
            found = candidates(get_pool(), line)
        except Exception:
            found = []
        word = "" if line[-1:].isspace() else words[-1]
        fragment, fitting = _fitting(found, word, context.token)
        sub = words[1] if len(words) > 2 or (line[-1:].isspace() and len(words) == 2) else None
        if "=" in word and not word.startswith("-") and fragment == word.partition("=")[2]:
            sub = "="  # a value after key=, whatever it looks like
        servers = set(getattr(get_pool(), "names", ()))
        chosen: list[Any] = [SimpleCompletion(c, type=_kind(c, sub, servers)) for c in fitting]
        if not chosen and isinstance(found, Only):
            chosen = _NothingElse()
        return {"completions": chosen, "suppress": True, "ordered": True, "matched_fragment": fragment}

    return mcp_matcher


def _fitting(found: list[str], word: str, token: str) -> tuple[str, list[str]]:
    """The completions that fit what is typed, and the part of the line they replace: the whole
    word (a URI, which IPython's own token splits at ``:``), the value after ``key=``, or IPython's
    token, the longest that any completion starts with."""
    _, equals, value = word.partition("=")
    for fragment in sorted({word, value if equals else token, token}, key=len, reverse=True):
        fitting = [c for c in dict.fromkeys(found) if c.startswith(fragment)]
        if fitting:
            return fragment, fitting
    return token, []


def _kind(candidate: str, sub: str | None, servers: set[str]) -> str:
    """What a completion is, for the editor's list (JupyterLab shows it beside the name)."""
    if sub is None:
        return "subcommand"
    if sub == "=":
        return "value"
    if sub in ("read", "subscribe", "unsubscribe"):
        return "server" if candidate in servers else "resource"
    if candidate.startswith("-"):
        return "option"
    if candidate.endswith("="):
        return "parameter"
    if candidate in servers:
        return "server"
    if "/" in candidate or candidate.endswith((".json", ".toml")):
        return "path"
    if "." in candidate:
        return "prompt" if sub in ("prompt", "prompts") else "tool"
    return "value"
