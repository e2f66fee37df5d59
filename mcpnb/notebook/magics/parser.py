"""Turning what a person typed into arguments: the line, ``key=value`` pairs, cell bodies, ``{{var}}``.

Everything here either returns data or raises IPython's ``UsageError`` with a message that says
where the problem is (which token, which line, which field) and, when a close spelling exists,
"did you mean". Nothing exits the process or prints a traceback: that is argparse's default, and
a magic that kills the kernel on a typo is worse than none.
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import keyword
import os
import re
import shlex
import textwrap
import unicodedata
import warnings
from collections.abc import Collection, Mapping
from typing import Any, NoReturn

from IPython.core.error import UsageError
from IPython.core.magic_arguments import MagicArgumentParser

from mcpnb.client.errors import did_you_mean, did_you_mean_text, json_problem
from mcpnb.client.handwritten import yaml_lines, yaml_value
from mcpnb.notebook.frontend import current_shell

#: ``{{ … }}``: a notebook variable (``name``, ``name.attr``) or a Python expression (``len(rows)``).
_PLACEHOLDER = re.compile(r"\{\{\s*(.+?)\s*\}\}")
_KEY_LINE = re.compile(r"^\s*([^\s:#][^:]*?)\s*:\s?(.*)$")
#: ``key: |`` (or ``|-``, ``|+``): the lines below, more indented, are the value, literally.
_BLOCK = re.compile(r"^\s*\|([+-]?)\s*(?:#.*)?$")
#: What may be an argument's name at a line's start, before ``:`` (:func:`is_name` says whether it is).
_LINE_HEAD = re.compile(r"^\s*([^\s:]+)\s*:")
_PAIR = re.compile(r"^([^=\s][^=]*)=(.*)$", re.DOTALL)
#: ``name = value`` (or ``name=value``) as a whole body line: a line magic's pair, or Python.
_EQUALS_LINE = re.compile(r"^\s*([^\s=:]+)\s*=(?!=)")
#: The full-width signs a Japanese or Chinese input method types for ``=`` and ``:``.
_WIDE_EQUALS, _WIDE_COLON = "\uff1d", "\uff1a"
#: The ideographic (full-width) space such an input method types for a space.
_WIDE_SPACE = "\u3000"
#: Dashes that are not ASCII's hyphen-minus: what autocorrect (Word, iOS's smart punctuation) makes
#: of ``--`` (an en or em dash), a minus sign, a full-width hyphen.
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
#: Typographic quotes, which a shell's quoting (and so a magic line) takes for letters.
_CURLY_QUOTES = "\u201c\u201d\u201e\u2018\u2019\u201a\u00ab\u00bb"


def is_name(text: str) -> bool:
    """Whether ``text`` can be an argument's name as typed before ``=`` or ``:`` (what a bare value
    cannot start with): a letter or ``_``, then letters, digits, combining marks, ``_.-``. Letters
    of any script, as a Python parameter's name and a JSON key may be (``名前``, ``größe``, ``שם``,
    a decomposed ``café``): ASCII only, ``テキスト=…`` went out as one string parameter's text."""
    if not text or not (text[0] == "_" or text[0].isidentifier()):
        return False
    return all(ch in ".-" or ("_" + ch).isidentifier() for ch in text[1:])


def is_ref(text: str) -> bool:
    """Whether the text of a ``{{…}}`` is a variable's name (``name``, ``name.attr``), in any script
    Python takes (``{{名前}}``)."""
    return all(part.isidentifier() for part in text.split("."))


def typed_name(key: str) -> str:
    """A name as typed, in the composed form (NFC): a decomposed ``café`` (macOS, a pasted text) is
    the ``café`` a schema holds, as Python itself reads the two spellings of one identifier."""
    return key if key.isascii() else unicodedata.normalize("NFC", key)


class HelpShown(Exception):
    """``-h`` printed a subcommand's help: the magic returns quietly (argparse would exit)."""


class Parser(MagicArgumentParser):
    """A subcommand's parser: ``UsageError`` instead of exiting, "did you mean" for options and choices."""

    def __init__(self, name: str, description: str, epilog: str | None = None) -> None:
        super().__init__(
            prog=f"%mcp {name}",
            description=description,
            epilog=epilog,
            add_help=True,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        self.allow_abbrev = False  # "--head" silently meaning "--header" surprises more than it helps
        self.subcommand = name
        self._escaped_usage: str | None = None  # formatted once: it costs more than parsing a call
        #: Parse a repeated line once (``%mcp call`` in a loop): argparse costs more than the call's hop.
        self.remember = False
        self._parsed: dict[tuple[str, ...], dict[str, Any]] = {}
        #: Options people guess from other tools' flags (``--url``) -> how this subcommand says it.
        self.instead: dict[str, str] = {}

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if status:
            raise UsageError(message or f"{self.prog}: invalid arguments")
        raise HelpShown()

    def error(self, message: str) -> NoReturn:
        match = re.match(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if match:
            choices = re.findall(r"'([^']*)'", match.group(3)) or match.group(3).split(", ")
            message += did_you_mean_text(match.group(2), choices)
        raise UsageError(f"{self.prog}: {safe_quoted(message)}\nusage: {self.usage_line()}")

    def usage_line(self) -> str:
        return self.format_usage().partition("usage: ")[2].strip()

    def parse_known_intermixed_args(self, args: Any = None, namespace: Any = None) -> Any:
        # argparse stores the formatted usage in ``self.usage`` while it parses intermixed args and
        # formats it again on error or -h: the ``%`` of ``%mcp`` must be escaped for that.
        saved = self.usage
        if saved is None:
            if self._escaped_usage is None:
                self._escaped_usage = self.format_usage().partition("usage: ")[2].replace("%", "%%")
            self.usage = self._escaped_usage
        try:
            return super().parse_known_intermixed_args(args, namespace)
        finally:
            self.usage = saved

    def option_strings(self) -> list[str]:
        return [s for action in self._actions for s in action.option_strings]

    def parse(self, tokens: list[str]) -> argparse.Namespace:
        """Parse, reporting unknown options by name only (their values may be secrets)."""
        key = tuple(tokens)
        known = self._parsed.get(key) if self.remember else None
        if known is None:
            self.refuse_typographic_dashes(tokens)
            # an unknown --option first: argparse would take its value for a positional and say
            # "argument probe-kit: invalid choice: 'code'" of "--toolsets code"
            options = self.option_strings()
            for token in tokens:
                if token == "--":
                    break
                name = token.split("=", 1)[0]
                abbreviates = self.allow_abbrev and any(o.startswith(name) for o in options)
                if name.startswith("--") and len(name) > 2 and name not in options and not abbreviates:
                    self._unexpected([token])
            # intermixed: "-o r a=1 b=2" and "a=1 -o r b=2" both work, as people type them
            namespace, extra = self.parse_known_intermixed_args(tokens)
            if extra:
                self._unexpected(extra)
            if not self.remember:
                return namespace
            if len(self._parsed) >= 64:
                self._parsed.clear()
            known = self._parsed[key] = vars(namespace)
        # a fresh namespace each time, lists copied: a subcommand may change what it was given
        return argparse.Namespace(**{k: list(v) if isinstance(v, list) else v for k, v in known.items()})

    def refuse_typographic_dashes(self, tokens: list[str]) -> None:
        """``—timeout 5``: the em or en dash a word processor, a phone keyboard or a web page makes of
        ``--`` is no option's dash, so the word went on as a value ("expected key=value, got
        '—timeout'", or the text of a tool's one parameter). Said where the word names an option of
        this subcommand (``—Timeout`` too: a phone capitalises), before ``--``; a value that merely
        starts with a dash is left alone."""
        options = {s.lstrip("-").casefold(): s for s in self.option_strings()}
        for token in tokens:
            if token == "--":
                return
            if token[:1] not in _DASHES:
                continue
            word = token.split("=", 1)[0]
            name = word.lstrip("-" + _DASHES)
            meant = options.get(name.casefold())
            if meant is None:
                continue
            dash = token[0]
            raise UsageError(
                f"{self.prog}: {word!r} starts with {unicodedata.name(dash, 'a dash').lower()} "
                f"(U+{ord(dash):04X}), which a word processor or a phone keyboard makes of '--': "
                f"type {meant} (two ASCII hyphens)"
            )

    def _unexpected(self, extra: list[str]) -> NoReturn:
        options = [t for t in extra if t.startswith("-") and len(t) > 1]
        if options:
            word = options[0].split("=", 1)[0]
            known = {s.lstrip("-"): s for s in self.option_strings() if s.startswith("--")}
            guessed = {s.lstrip("-"): s for s in self.instead}  # "--timout": near "--timeout", not "--out"
            hint = did_you_mean(word.lstrip("-"), {**guessed, **known})
            suggestion = f"; did you mean {known[hint]!r}?" if hint in known else ""
            if word in self.instead or hint in guessed.keys() - known.keys():
                suggestion = f": {self.instead[word if word in self.instead else guessed[str(hint)]]}"
            raise UsageError(
                f"{self.prog}: unknown option {word!r}{suggestion} (see %mcp {self.subcommand} -h)"
            )
        shown = safe_token(extra[0])
        raise UsageError(f"{self.prog}: unexpected argument {shown} (see %mcp {self.subcommand} -h)")


def safe_token(token: str) -> str:
    """A token fit for an error message: anything that may carry a secret is not echoed."""
    from mcpnb.client.redact import is_secret_key, looks_like_token

    name = re.split(r"[:=]", token, maxsplit=1)[0]
    if (":" in token or "=" in token) and is_secret_key(name):
        return repr(f"{name}…")
    if len(token) > 40 or (len(token) >= 20 and re.fullmatch(r"[A-Za-z0-9_\-.+/=]+", token)):
        return "(a long value, not shown)"
    if looks_like_token(token):
        return "(a value that looks like a secret, not shown)"
    return repr(token)


def may_be_secret(token: str) -> bool:
    """Whether a word typed where something else was expected may be a credential: it looks like a
    token (:func:`~mcpnb.client.redact.looks_like_token`), or names a secret (``api_key=…``).
    Narrower than :func:`safe_token`'s "long value", which a package name such as
    ``mcp-server-motherduck`` also is."""
    from mcpnb.client.redact import is_secret_key, looks_like_token

    name = re.split(r"[:=]", token, maxsplit=1)[0]
    return looks_like_token(token) or ((":" in token or "=" in token) and is_secret_key(name))


def safe_quoted(message: str) -> str:
    """argparse's ``message`` with every value it quotes passed through :func:`safe_token`
    (``invalid float value: '<token>'``, ``invalid choice: '<token>'``: a secret typed in the wrong
    place must not come back in the error the notebook saves)."""
    return re.sub(r"'([^'\n]*)'", lambda m: safe_token(m.group(1)), message)


def split_line(line: str, *, json_values: bool = False) -> list[str]:
    """Shell-like words: quotes group, so ``text="hello world"`` is one argument.

    ``json_values`` (tool arguments): a ``key=`` followed by a whole JSON array or object is one
    word, kept as typed: ``choices=["a b", "c"]`` reaches the tool as that list, where a shell
    would drop its quotes and split it at the space.

    A ``{{…}}`` is part of its word as typed, quotes and spaces in it too: ``{{servers['a']}}`` and
    ``{{ len(rows) }}`` are Python, which a shell's quoting would have mangled.

    An ideographic space (U+3000, what a Japanese input method types for a space) outside quotes
    separates words where it can only be meant to: next to a space or an end, or before another
    ``name=`` (``名前=山田　年齢=30``); within a value (``名前=山田　太郎``) and in quotes it is text.
    """
    held: list[str] = []

    def hold(match: re.Match[str]) -> str:
        held.append(match[0])
        return f"{_HELD[0]}{len(held) - 1}{_HELD[1]}"

    words = _split(_wide_spaces(_PLACEHOLDER.sub(hold, line)), json_values=json_values)
    if not held:
        return words
    back = re.compile(f"{_HELD[0]}(\\d+){_HELD[1]}")
    return [back.sub(lambda m: held[int(m[1])], word) for word in words]


def _wide_spaces(line: str) -> str:
    """``line`` with each ideographic space that separates words (see :func:`split_line`) made a
    space: read as a shell would, outside quotes, a backslash escaping the character after it."""
    if _WIDE_SPACE not in line:
        return line
    out = list(line)
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == _WIDE_SPACE:
            end = i
            while end < len(line) and line[end] == _WIDE_SPACE:
                end += 1
            if (
                i == 0
                or line[i - 1] in _BLANKS
                or end == len(line)
                or line[end] in _BLANKS
                or _names_next(line, end)
            ):
                out[i:end] = " " * (end - i)
            i = end
            continue
        i += 1
    return "".join(out)


def _names_next(line: str, start: int) -> bool:
    """Whether the word at ``start`` begins ``name=`` (a name :func:`is_name` takes)."""
    match = _NEXT_NAME.match(line, start)
    return match is not None and is_name(match.group(1))


#: The start of a word up to its first ``=`` (:func:`_names_next`).
_NEXT_NAME = re.compile(f"([^\\s=\"'{_WIDE_SPACE}]+)=")


#: What stands in for a ``{{…}}`` while a line is split (private-use characters nobody types).
_HELD = ("\ue000", "\ue001")


def _split(line: str, *, json_values: bool) -> list[str]:
    if not json_values:
        return _shell_words(line)
    words: list[str] = []
    i = 0
    while i < len(line):
        if line[i] in _BLANKS:
            i += 1
            continue
        pair = _JSON_PAIR.match(line, i)  # key={...} or key=[...]; or a whole {...} of arguments
        end = _json_end(line, pair.end() if pair else i) if pair or line[i] == "{" else None
        if end is not None and (end == len(line) or line[end] in _BLANKS):
            words.append(line[i:end])
            i = end
            continue
        if end is None and not pair and line[i] == "{":  # an object that never closes: say so as JSON
            words.append(line[i:].rstrip(_BLANKS))
            break
        lexer = _lexer(line[i:])
        try:
            word = lexer.get_token()
        except ValueError as exc:
            raise _unsplittable(exc) from None
        if word is not None:
            words.append(word)
        i += max(1, lexer.instream.tell())
    return words


def _shell_words(line: str) -> list[str]:
    try:
        return list(_lexer(line))
    except ValueError as exc:
        raise _unsplittable(exc) from None


#: Whether a backslash escapes the next character, as in a POSIX shell. Not on Windows, where it
#: separates a path's folders: ``-- python C:\tools\server.py`` ran ``C:toolsserver.py``. Quotes
#: group words there as well.
BACKSLASH_ESCAPES = os.name != "nt"


def _lexer(text: str) -> shlex.shlex:
    """Words as a shell splits them (``shlex.split``'s rules), each read on demand."""
    lexer = shlex.shlex(io.StringIO(text), posix=True)
    lexer.whitespace_split, lexer.commenters = True, ""
    if not BACKSLASH_ESCAPES:
        lexer.escape = ""
    return lexer


def _unsplittable(exc: ValueError) -> UsageError:
    return UsageError(f"cannot split the magic line: {exc} (check your quotes)")


#: What separates words (shlex's whitespace: ``str.isspace`` would also take ``\x1f``).
_BLANKS = " \t\r\n"
#: ``key=`` right before ``[`` or ``{``: a JSON value typed on the magic line.
_JSON_PAIR = re.compile(r"[^ \t\r\n=\"'\[{]+=(?=[\[{])")


def _json_end(text: str, start: int) -> int | None:
    """Where the bracketed JSON value starting at ``start`` ends (None: it does not close)."""
    depth, i, in_string = 0, start, False
    while i < len(text):
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


# ---------------------------------------------------------------- {{var}} interpolation
def lookup(name: str, namespaces: list[Mapping[str, Any]], *, label: str | None = None) -> Any:
    """``name`` or ``name.attr`` from the first namespace that has it.

    ``label`` is how an error names the reference (``{{name}}``, or ``--answers name``); a "did you
    mean" offers the notebook's own variables, not IPython's (``open``, ``In``, ``exit``).
    """
    label = label or f"{{{{{name}}}}}"
    if not name.isascii():  # as Python reads a name: a decomposed or full-width one is the same name
        name = unicodedata.normalize("NFKC", name)
    head, *attrs = name.split(".")
    for ns in namespaces:
        if head in ns:
            value = ns[head]
            break
    else:
        hidden = _ipython_names()
        known = {k for ns in namespaces for k in ns if not k.startswith("_") and k not in hidden}
        raise UsageError(f"{label}: no variable {head!r} in the notebook{did_you_mean_text(head, known)}")
    for i, attr in enumerate(attrs):
        try:
            value = getattr(value, attr)
        except AttributeError:
            path = ".".join([head, *attrs[:i]])
            raise UsageError(f"{label}: {path} has no attribute {attr!r}") from None
    return value


def _ipython_names() -> Mapping[str, Any]:
    """What IPython itself put in the user namespace (``In``, ``Out``, ``open``, ``exit``...)."""
    shell = current_shell()
    return getattr(shell, "user_ns_hidden", None) or {}


#: IPython's own ways to insert a variable in a magic line, ``{name}`` and ``$name``, which ``%mcp``
#: does not use (a ``${VAR}`` is a config's environment variable and stays as it is).
_IPYTHON_STYLE = re.compile(r"(?<![{$])\{([^\W\d]\w*)\}(?!\})|\$([^\W\d]\w*)")


def refuse_ipython_style(text: str, namespaces: list[Mapping[str, Any]], *, whole: bool = False) -> None:
    """A ``UsageError`` for ``{name}`` or ``$name`` where ``name`` is a notebook variable.

    IPython expands those in other magics; ``%mcp`` does not (JSON has braces), so the text would
    reach the server as typed: a command path ``{EV}`` that does not exist, a token ``$token``.
    ``whole``: only when it is the entire value (a tool argument may be a template on purpose).
    """
    if whole:
        match = _IPYTHON_STYLE.fullmatch(text.strip())
        matches = [match] if match else []
    else:
        matches = list(_IPYTHON_STYLE.finditer(text))
    for match in matches:
        name = match.group(1) or match.group(2)
        if name not in _ipython_names() and any(name in ns for ns in namespaces):
            as_text = f" (a JSON string, '\"{match.group(0)}\"', sends the text)" if whole else ""
            error = UsageError(  # (IPython shows only an exact UsageError without a traceback)
                f"{match.group(0)} would reach the server as typed: %mcp inserts a notebook variable "
                f"with double braces, {{{{{name}}}}}{as_text}"
            )
            error.ipython_style = True  # type: ignore[attr-defined]  # see parse_body
            raise error


@functools.lru_cache(maxsize=256)
def _expression(ref: str) -> Any:
    """``ref`` compiled as a Python expression, or None when Python cannot parse it."""
    try:
        return compile(ref, "<{{ }}>", "eval")
    except (SyntaxError, ValueError):
        return None


def _ours(ref: str) -> bool:
    """Whether the text between double braces is ours to fill: a name, or an expression Python can
    parse. Anything else (``{{#each}}``, ``{{> card}}``: a template for the server) is sent as typed."""
    return is_ref(ref) or _expression(ref) is not None


def value_of(ref: str, namespaces: list[Mapping[str, Any]]) -> Any:
    """The value of ``{{ref}}``: a variable as :func:`lookup` finds it, or the expression evaluated
    in the notebook (as IPython's own ``{expr}`` in shell commands, and JupySQL's ``{{expr}}``)."""
    if is_ref(ref) and not keyword.iskeyword(ref.split(".", 1)[0]):  # {{None}}: a value
        return lookup(ref, namespaces)
    from collections import ChainMap

    from mcpnb.client.redact import scrub

    scope = next((ns for ns in reversed(namespaces) if isinstance(ns, dict)), {})
    names = ChainMap(*namespaces)
    code = _expression(ref)
    try:
        return eval(code, scope, names)  # the person's own expression, in their notebook
    except Exception as exc:
        # int(token) says "invalid literal …: 'sk-…'": the texts the expression reads are not repeated
        read = [names.get(name) for name in code.co_names]
        said = scrub(str(exc), [value for value in read if isinstance(value, str)])
        raise UsageError(f"{{{{{ref}}}}}: {type(exc).__name__}: {said} (nothing was sent)") from None


def whole_placeholder(text: str) -> str | None:
    """The variable (or expression) when ``text`` is exactly one ``{{…}}``: its value is then used
    as is (a list stays a list)."""
    match = _PLACEHOLDER.fullmatch(text.strip())
    return match.group(1) if match and _ours(match.group(1)) else None


def interpolate_text(text: str, namespaces: list[Mapping[str, Any]]) -> str:
    """Replace each ``{{var}}`` with ``str(value)`` (strings), for values that stay text."""
    return _PLACEHOLDER.sub(
        lambda m: str(value_of(m.group(1), namespaces)) if _ours(m.group(1)) else m.group(0), text
    )


def fill_variables(text: str, namespaces: list[Mapping[str, Any]]) -> str:
    """``text`` with each ``{{name}}`` of a notebook variable filled (JupySQL's ``{{var}}`` in a
    ``%%sql`` cell); anything else in double braces (an expression, a name the notebook does not
    have, a template's ``{{#each}}``) stays as written: the text may be code with braces of its own."""
    hidden = _ipython_names()
    unknown: list[str] = []

    def fill(match: re.Match[str]) -> str:
        ref = match.group(1)
        if is_ref(ref) and ref.split(".")[0] not in hidden:
            try:
                return str(lookup(ref, namespaces))
            except UsageError as exc:
                unknown.append(str(exc))
        return match.group(0)

    filled = _PLACEHOLDER.sub(fill, text)
    if unknown:  # a template's own {{name}}, or a typo: sent as written either way, and said
        warnings.warn(f"{unknown[0]}; it was sent as written", UserWarning, stacklevel=2)
    return filled


def fill_text(text: str, namespaces: list[Mapping[str, Any]]) -> str:
    """``text`` with its ``{{var}}`` filled, as in every ``%mcp`` line (IPython's ``{var}`` refused)."""
    refuse_ipython_style(text, namespaces)
    return interpolate_text(text, namespaces)


def interpolate_json(text: str, namespaces: list[Mapping[str, Any]]) -> str:
    """Replace ``{{var}}`` inside JSON text: as a JSON value outside strings, escaped text inside.

    ``{"rows": {{data}}, "title": "Hello {{name}}"}`` then works for lists, numbers and text alike.
    """
    out: list[str] = []
    in_string = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "{" and text.startswith("{{", i):
            match = _PLACEHOLDER.match(text, i)
            if match and _ours(match.group(1)):
                value = value_of(match.group(1), namespaces)
                if in_string:
                    out.append(json.dumps(str(value))[1:-1])
                else:
                    out.append(_to_json(value, match.group(1)))
                i = match.end()
                continue
        if in_string and ch == "\\":
            out.append(text[i : i + 2])
            i += 2
            continue
        if ch == '"':
            in_string = not in_string
        out.append(ch)
        i += 1
    return "".join(out)


def _to_json(value: Any, name: str) -> str:
    from mcpnb.client.arguments import native

    try:
        return json.dumps(native(value), allow_nan=False)
    except (TypeError, ValueError):
        raise UsageError(
            f"{{{{{name}}}}}: a {type(value).__name__} is not JSON; put it in quotes to send its text"
        ) from None


# ---------------------------------------------------------------- values and arguments
class Arguments(dict[str, Any]):
    """Tool arguments plus, per key, the text typed (``raw``) and the body line (``lines``; also per
    nested path, ``("address", "zip")``, for a key written as an indented YAML block).

    The raw text lets a schema that wants a string get ``"007"`` rather than the number 7.
    """

    def __init__(self) -> None:
        super().__init__()
        self.raw: dict[str, str] = {}
        self.lines: dict[str | tuple[Any, ...], int] = {}
        #: The whole body went to a tool's one text parameter (a query: its ``;`` is its own).
        self.text_body = False

    def put(self, key: str, value: Any, raw: str | None, line: int | None, where: str) -> None:
        if key in self:
            raise UsageError(f"{where}: argument {key!r} is given twice")
        self[key] = value
        if raw is not None:
            self.raw[key] = raw
        if line is not None:
            self.lines[key] = line


def _no_constant(token: str) -> Any:
    raise ValueError(token)


class _DuplicateKey(ValueError):
    """A JSON object that names a key twice: JSON keeps the last, and the first is lost unseen."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # the rare case: find which
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"key {key!r} is given twice in a JSON object")
            seen.add(key)
    return out


#: One decoder for every value: ``json.loads`` with an option builds a new one per call.
_JSON = json.JSONDecoder(parse_constant=_no_constant, object_pairs_hook=_unique_keys)


def parse_value(text: str) -> tuple[Any, bool]:
    """``(value, typed)``: JSON when the text parses as JSON, else the text itself (``typed`` False)."""
    stripped = text.strip()
    if not stripped:
        return "", False
    try:
        return _JSON.decode(stripped), True
    except _DuplicateKey as exc:
        raise UsageError(f"{exc} (nothing was sent)") from None
    except (ValueError, RecursionError):
        return text, False


def _value(text: str, namespaces: list[Mapping[str, Any]]) -> tuple[Any, str | None]:
    """A value from ``key=value`` or ``key: value``: ``{{var}}`` alone is the object itself."""
    name = whole_placeholder(text)
    if name is not None:
        return value_of(name, namespaces), None
    refuse_ipython_style(text, namespaces, whole=True)
    filled = interpolate_text(text, namespaces)
    value, typed = parse_value(filled)
    if not typed and filled.strip()[:1] in ("[", "{"):  # YAML's flow style: [a, b], {city: Oslo}
        read, ok = yaml_value(interpolate_json(text, namespaces))
        if ok and isinstance(read, list | dict):
            value, typed = read, True
    return value, (filled.strip() if typed and not isinstance(value, str) else None)


def refuse_spaced_equals(tokens: list[str]) -> None:
    """``a = 1``, as Python writes it, is three words here: say so, not "expected key=value, got 'a'"."""
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token == "=" or (is_name(token) and after.startswith("=")):
            key = token if token != "=" else (tokens[i - 1] if i else "key")
            raise UsageError(f"write {key}=VALUE with no spaces around '=' (each word is one argument)")


def parse_pairs(tokens: list[str], namespaces: list[Mapping[str, Any]]) -> Arguments:
    """``key=value`` words from the magic line, or a JSON object (``{"a": 1}``, ``{{args}}``) among them."""
    refuse_spaced_equals(tokens)
    args = Arguments()
    for i, token in enumerate(tokens):
        whole = _object_arguments(token, namespaces, "the magic line") if token[:1] == "{" else None
        if whole is not None:
            for key, value in whole.items():
                args.put(key, value, None, None, "the magic line")
            continue
        match = _PAIR.match(token)
        if not match:
            raise UsageError(
                _wide_sign(token, _WIDE_EQUALS, "=")
                or f"expected key=value, got {not_a_pair(token, tokens[i - 1] if i else '', tokens)}"
            )
        # what was typed: a control character stays, and shows; a decomposed letter is composed
        key = typed_name(match.group(1).strip(" \t\u3000"))
        said = match.group(2)
        if match.group(1)[-1:].isspace():  # "password = x", quoted: spaced as Python spaces it, the
            said = said.lstrip(" \t\u3000")  # value is "x" (it went out as " x"), as the key is "password"
        value, raw = _value(said, namespaces)
        args.put(key, value, raw, None, "the magic line")
    return args


def not_a_pair(token: str, before: str, tokens: list[str]) -> str:
    """``token`` (no ``key=value``; ``before`` the word before it, of the line's ``tokens``) shown
    safely, and the slip that most likely made it."""
    shown = safe_token(token)
    if before.endswith("=") and is_name(before[:-1]):  # "name= Ada"
        return f"{shown} after {before!r}: write {before}VALUE with no space after '='"
    colon = colon_pair(token)
    if colon is not None:  # "name:Ada", as a cell body's line writes it
        return f"{shown}: write {colon}=… on the magic line ('{colon}: …' is for the lines of a %%mcp cell)"
    if token.startswith("--"):  # only "--" lets an option's word through to here
        return f"{shown}: every word after '--' is an argument; put options before '--'"
    if any(q in word for word in tokens for q in _CURLY_QUOTES):
        return f"{shown} (“ ” and ‘ ’ are typographic quotes, which group nothing: type \"a b\" or 'a b')"
    return f'{shown} (quote values with spaces: key="a b")'


def colon_pair(word: str) -> str | None:
    """The name of ``name:value`` (a cell body's way, typed on the line), else None; not a URL's
    scheme (``https://…``) nor a drive (``C:\\data``)."""
    name, colon, rest = word.partition(":")
    return typed_name(name) if colon and is_name(name) and rest[:1] not in ("/", "\\") else None


def _wide_sign(text: str, wide: str, sign: str) -> str | None:
    """What to say of ``名前＝山田`` (``名前：山田`` on a body line): a name, then the full-width sign a
    Japanese or Chinese input method types, which is no ``=`` here; None when ``text`` is not that."""
    name, found, _ = text.partition(wide)
    name = name.strip(" \t" + _WIDE_SPACE)
    if not found or sign in name or not is_name(name):
        return None
    what = "equals sign" if sign == "=" else "colon"
    return (
        f"{wide!r} after {name!r} is the full-width {what} (U+{ord(wide):04X}), no {sign!r} here: "
        f"type {sign!r} (half-width, ASCII): {name}{sign}{'' if sign == '=' else ' '}…"
    )


def is_prose(name: str, params: Collection[str] | None) -> bool:
    """Whether a name before ``=`` or ``:`` is the start of a text rather than an argument: a word
    that starts beyond ASCII (``件名: 会議``, ``Δt=0.01``, ``Übersetzung:``) where the tool takes no
    parameter of that name nor one it could be a slip for. Such words were always text, before
    names in every script were names: a Japanese tool's ``テキスト=…`` is its argument, a subject
    line over a note to translate is the note. ``params``: the tool's (None: no tool to ask)."""
    if params is None or name[:1].isascii():
        return False
    return typed_name(name) not in params and did_you_mean(name, params) is None


def is_bare_value(
    word: str, namespaces: list[Mapping[str, Any]], params: Collection[str] | None = None
) -> bool:
    """Whether a word of the line is a value without a name: not ``name=value`` (a name: a letter
    of any script, then letters, digits, ``_.-``, not :func:`is_prose`; ``"SELECT * FROM t WHERE
    id=2"`` and a URL's query hold a ``=`` too), nor all the arguments at once (a JSON object, a
    ``{{var}}`` holding a dict)."""
    match = _PAIR.match(word)
    name = match.group(1).strip(" \t\u3000") if match is not None else ""
    if match is not None and is_name(name) and not is_prose(name, params):
        return False
    if word[:1] != "{":
        return True
    name = whole_placeholder(word)
    return name is not None and not isinstance(value_of(name, namespaces), Mapping)


def without_final_semicolon(text: str) -> str:
    """``text`` without the ``;`` that ends it (a cell's "show no output"), else as it is: a YAML
    block's final newlines (``|+``) and a line count stay."""
    end = text.rstrip()
    return end[:-1] if end.endswith(";") else text


def cell_magic_first(cell: str | None) -> str | None:
    """The cell magic a ``%%mcp`` body opens with (``%%time``), if IPython has one of that name:
    a MATLAB-style ``%% Section`` line, or ``%%`` in a text, is no magic."""
    head = re.match(r"\s*%%(\w+)", cell or "")
    shell = current_shell() if head is not None else None
    return head[1] if shell is not None and shell.find_cell_magic(head[1]) is not None else None


def cell_magic_below(name: str) -> str:
    """Why ``%%name`` on a ``%%mcp`` body's first line did not run: IPython runs the first line's
    cell magic only, and the rest is its body (a timing line went out as a tool's text)."""
    return (
        f"%%{name} goes on the cell's first line, above %%mcp (IPython runs the first line's cell "
        "magic only; the rest is its body)"
    )


def parse_body(
    body: str,
    namespaces: list[Mapping[str, Any]] | None = None,
    *,
    bare: str | None = None,
    params: Collection[str] | None = None,
) -> Arguments:
    """A ``%%mcp call`` body: a JSON object, or ``key: value`` lines (``#`` starts a comment line).

    A value that opens ``[`` or ``{`` and does not parse yet continues on the next lines,
    so a long JSON value can be laid out readably; where it is not JSON, YAML's flow style
    (``{sku: A1, qty: 2}``) is read too. ``key:`` with more indented lines below takes them as a
    YAML block (``- item`` lists, nested ``key: value``). In both, only JSON's words are values
    (``true``, ``null``, numbers): ``no`` and ``12:30`` stay text. ``key: |`` takes the more
    indented lines below as one text, literally (YAML's literal block: source code, a diff; ``|-``
    drops the final newline), so code with ``{{`` in it stays as written.

    ``bare`` (a tool's one text parameter): a body that is not ``key: value`` lines with names for
    keys (``params``: the tool's, for :func:`is_prose`) is that parameter's text, as written (a
    query, a script), but for ``{{name}}`` of a notebook variable, filled as JupySQL fills it
    (:func:`fill_variables`).

    A final ``;`` (the cell's "show no output") is not part of the arguments; a text body keeps
    it (SQL ends that way) and :attr:`Arguments.text_body` says so.
    """
    namespaces = namespaces or []
    # a body pasted from Windows: its text goes out with "\n" as a "key: |" block's does
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    structured = without_final_semicolon(body)
    text = structured.strip()
    args = Arguments()
    if not text:
        return args
    if bare is None:
        whole = _object_arguments(text, namespaces, "the cell body")
        return whole if whole is not None else _body_lines(structured, namespaces)
    misread = None
    try:
        args = _as_arguments(text, structured, namespaces, params)
        if args is not None:
            return args
    except UsageError as exc:
        if getattr(exc, "ipython_style", False):
            # {name}/$name of a variable, in a body that is arguments once it is read as typed:
            # said, not sent (query: $topic went out as the whole body's text, limit lost with it);
            # in a text (a letter's "Subject: {topic}" line above its prose) it goes out, and is said
            try:
                meant = _as_arguments(text, structured, [], params)
            except UsageError:
                meant = None
            if meant is not None:
                raise
            misread = re.sub(r" \(a JSON string, .*\)$", "", str(exc))  # (no quotes for a text)
        elif getattr(exc, "key_equals", None) in (params or ()) and _all_equals_lines(text, params):
            raise  # "limit = 3" under "query = login": the whole body went out as the query
        elif _PLACEHOLDER.search(text) and _arguments_but_for_placeholders(text, structured, params):
            raise  # "query: {{topc}}", a typo: the whole body went out as the query, limit lost
        # a body meant as arguments, with a mistake in it ("{...", a key twice), still goes out as
        # the text it is, since a text may be anything; but the person is told
        elif (text.startswith("{") and not text.startswith("{{")) or "given twice" in str(exc):
            misread = str(exc)
    args = Arguments()
    args.put(
        bare, fill_variables(textwrap.dedent(body).strip("\n").rstrip(), namespaces), None, 1, "the cell body"
    )
    args.text_body = True
    if misread is not None:
        warnings.warn(
            f"the cell body went out as the text of {bare!r}, as written; "
            + (misread if "as typed" in misread else f"read as arguments: {misread}"),
            UserWarning,
            stacklevel=2,
        )
    return args


def _as_arguments(
    text: str, structured: str, namespaces: list[Mapping[str, Any]], params: Any
) -> Arguments | None:
    """The body read as arguments, or None where it is a one-text tool's text: no arguments at all
    (a body of comments), or every key prose (件名: …, 本文: …)."""
    whole = _object_arguments(text, namespaces, "the cell body")
    args = whole if whole is not None else _body_lines(structured, namespaces)
    if all(is_name(key) for key in args) and not (args and all(is_prose(key, params) for key in args)):
        return args
    return None


def _all_equals_lines(text: str, params: Any) -> bool:
    """Whether every line of ``text`` is ``param = value`` or ``param: value`` of the tool's
    parameters (Python's ``code = open(p).read()`` above more code is a text)."""
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    heads = [_EQUALS_LINE.match(line) or _LINE_HEAD.match(line) for line in lines]
    return all(head is not None and typed_name(head.group(1)) in params for head in heads)


def _arguments_but_for_placeholders(text: str, structured: str, params: Any) -> bool:
    """Whether the body reads as arguments once its ``{{…}}`` (one failed) stand for ``null``: then a
    slip in a placeholder is said, not the whole body sent as the one text parameter's."""

    def null(match: re.Match[str]) -> str:
        return "null" if _ours(match.group(1)) else match.group(0)

    try:
        read = _as_arguments(_PLACEHOLDER.sub(null, text), _PLACEHOLDER.sub(null, structured), [], params)
    except UsageError:
        return False
    # the tool's own parameters: a workflow's "name: CI" with ${{ secrets.TOKEN }} is a text
    return read is not None and set(read) <= set(params or ())


def bare_argument(name: str, word: str, namespaces: list[Mapping[str, Any]]) -> Arguments:
    """A tool's one text parameter given bare on the line: read as a ``key=value``'s value is
    (``{{var}}``, JSON), the text typed kept for a parameter that takes text."""
    args = Arguments()
    value, raw = _value(word, namespaces)
    args.put(name, value, raw, None, "the magic line")
    wide = _wide_sign(word, _WIDE_EQUALS, "=")
    if wide is not None and typed_name(word.partition(_WIDE_EQUALS)[0].strip(" \t" + _WIDE_SPACE)) == name:
        raise UsageError(wide)  # 名前＝山田 for 名前 itself: its text would be "名前＝山田"
    if wide is not None:  # a text may hold "＝", but "年齢＝30" was more likely meant as 年齢=30
        warnings.warn(
            f"the word went out as the text of {name!r}; if it names an argument, {wide}", stacklevel=2
        )
    return args


def _body_lines(body: str, namespaces: list[Mapping[str, Any]]) -> Arguments:
    """``key: value`` lines (see :func:`parse_body`)."""
    args = Arguments()
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        number = i + 1
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY_LINE.match(line)
        if not match:
            wide = _wide_sign(line, _WIDE_COLON, ":")
            equals = _EQUALS_LINE.match(line)
            if not wide and equals and is_name(equals.group(1)):  # "limit = 3", the line's way
                error = UsageError(  # IPython shows a UsageError (its own class only) without a traceback
                    f"cell body line {number}: write '{equals.group(1)}: …' "
                    "(a colon in a cell body; key=value is the magic line's way)"
                )
                error.key_equals = typed_name(equals.group(1))  # type: ignore[attr-defined]  # parse_body
                raise error
            raise UsageError(
                f"cell body line {number}: "
                + (wide or "expected 'key: value' (or write the whole body as a JSON object)")
            )
        key, rest = typed_name(match.group(1).strip()), match.group(2)
        block = _BLOCK.match(rest)
        below = _indented_end(lines, i, len(line) - len(line.lstrip()))  # the lines indented under it
        if block:
            start, i = i, below
            if (
                i < len(lines)
                and not any(x.strip() for x in lines[start:i])
                and not _starts_with_name(lines[i])
            ):
                raise UsageError(
                    f"cell body line {number}: the text of {key!r} goes on the lines below '{rest.strip()}', "
                    f"indented (line {i + 1} starts at the left edge, where the next key would be)"
                )
            args.put(key, _literal(lines[start:i], block.group(1)), None, number, f"cell body line {number}")
            continue
        if not rest.strip() and any(x.strip() for x in lines[i:below]):  # key: and a YAML block
            text = interpolate_json("\n".join(lines[i:below]), namespaces)  # a {{var}} stays on its line
            value, typed = yaml_value(text)
            if not typed:
                raise UsageError(
                    f"cell body line {number}: the indented lines below {key!r} are not YAML "
                    "(a '- item' list or 'name: value' lines), nor JSON"
                )
            args.put(key, value, None, number, f"cell body line {number}")
            args.lines.update({(key, *path): i + 1 + line for path, line in yaml_lines(text).items()})
            i = below
            continue
        if rest.strip()[:1] in ("[", "{") and not _opens_with_placeholder(rest):
            refuse_ipython_style(rest, namespaces, whole=True)  # {name}: YAML would read a mapping
            value, how = _structured(rest, namespaces)
            while how is None and i < len(lines):
                rest += "\n" + lines[i]
                i += 1
                value, how = _structured(rest, namespaces)
            if how is None:
                raise UsageError(
                    f"cell body line {number}: the value of {key!r} is neither JSON nor YAML "
                    "(a bracket not closed?)"
                )
            # read as YAML, the text typed stays at hand for an argument that wants a string
            raw = rest.strip() if how == "yaml" else None
            args.put(key, value, raw, number, f"cell body line {number}")
            continue
        quoted = _SINGLE_QUOTED.fullmatch(rest.strip())
        if quoted:  # YAML's 'text': the text, as "text" is (JSON's quotes) and as a shell reads it
            text = interpolate_text(quoted.group(1).replace("''", "'"), namespaces)
            args.put(key, text, None, number, f"cell body line {number}")
            continue
        value, raw = _value(rest, namespaces)
        args.put(key, value, raw, number, f"cell body line {number}")
    return args


def _starts_with_name(line: str) -> bool:
    """Whether ``line`` starts with what can only be an argument's name (``kept: |+``,
    ``path: a.py``): an empty block before it is meant; ``def f(): pass`` at the left edge is a
    block not indented."""
    match = _LINE_HEAD.match(line)
    return match is not None and is_name(match.group(1))


def _indented_end(lines: list[str], start: int, indent: int) -> int:
    """Where the lines from ``start`` that are blank or indented deeper than ``indent`` end."""
    end = start
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
    ):
        end += 1
    return end


def _structured(text: str, namespaces: list[Mapping[str, Any]]) -> tuple[Any, str | None]:
    """A ``[``/``{`` value and how it read: ``json``, else ``yaml`` (flow style), else None (yet)."""
    filled = interpolate_json(text, namespaces)
    value, typed = parse_value(filled)
    if typed:
        return value, "json"
    value, typed = yaml_value(filled)
    return (value, "yaml") if typed else (None, None)


def _opens_with_placeholder(text: str) -> bool:
    """``{{name}} and more`` is text (JSON never starts with ``{{``), not a JSON object to collect."""
    match = _PLACEHOLDER.match(text.strip())
    return match is not None and _ours(match.group(1))


#: A YAML single-quoted value: ``'it''s'`` is "it's".
_SINGLE_QUOTED = re.compile(r"'((?:[^']|'')*)'")


def _literal(lines: list[str], chomp: str) -> str:
    """A literal block's text: dedented; one final newline kept (``|``), none (``|-``), all (``|+``)."""
    import textwrap

    text = textwrap.dedent("\n".join(lines))
    if chomp == "+":
        return text + "\n"
    text = text.rstrip("\n")
    return text + "\n" if text and chomp == "" else text


def _object_arguments(text: str, namespaces: list[Mapping[str, Any]], where: str) -> Arguments | None:
    """All the arguments at once: a ``{{var}}`` holding a dict, or a JSON object (None: neither)."""
    name = whole_placeholder(text)
    if name is not None:
        value = value_of(name, namespaces)
        if not isinstance(value, Mapping):
            raise UsageError(f"{{{{{name}}}}} is a {type(value).__name__}; {where} needs a dict of arguments")
        args = Arguments()
        for key, item in value.items():
            args.put(str(key), item, None, None, where)
        return args
    if not text.startswith("{"):
        return None
    body = interpolate_json(text, namespaces)
    try:
        data = _JSON.decode(body)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: {json_problem(body, exc)}") from None
    except _DuplicateKey as exc:
        raise UsageError(f"{where}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{where}: invalid JSON ({type(exc).__name__}: {str(exc)[:80]})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{where}: expected a JSON object of arguments, got a {type(data).__name__}")
    args = Arguments()
    for key, value in data.items():
        args[key] = value
    return args


def add_input_flag(p: Parser) -> None:
    """``--input ID=VALUE``, for a line that reads VS Code's ``.vscode/mcp.json``."""
    p.add_argument(
        "--input",
        action="append",
        metavar="ID=VALUE",
        help="with --config .vscode/mcp.json: the value of ${input:ID}, which VS Code would prompt for "
        "(repeat; {{var}} keeps a secret out of the notebook; the ones not given are asked in the cell)",
    )


def input_values(given: list[str] | None, namespaces: list[Mapping[str, Any]]) -> dict[str, str] | None:
    """``--input ID=VALUE`` (``{{var}}`` filled) as a dict; values are never repeated in errors."""
    if not given:
        return None
    inputs: dict[str, str] = {}
    for item in given:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError("--input expects ID=VALUE")
        if key in inputs:
            raise UsageError(f"--input {key} is given twice: give each input once")
        inputs[key] = fill_text(value, namespaces)
    return inputs


def split_target(target: str, what: str = "tool") -> tuple[str | None, str]:
    """``NAME.TOOL`` → ``(NAME, TOOL)``; a flat ``mcp__NAME__TOOL`` too; a bare ``TOOL`` → ``(None, TOOL)``.

    Server names never contain a dot, so the first dot splits (tool names may contain dots).
    """
    if target.startswith("mcp__"):
        from mcpnb.client.toolinfo import split_flat_name

        try:
            return split_flat_name(target)
        except ValueError:
            pass
    server, dot, name = target.partition(".")
    if not dot:
        return None, target
    if not server or not name:
        also = f": name the {what} after the dot (%mcp {what}s {server} lists them)" if server else ""
        raise UsageError(f"expected NAME.{what.upper()}, got {target!r}{also}")
    return server, name
