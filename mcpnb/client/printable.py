"""Server text made safe to print: what a terminal would act on is written out or left out.

A server's name, a tool's description, a log line or an error reach ``text/plain`` (terminal
IPython, ``print``), where an escape sequence is a command, not text: OSC 52 writes the clipboard,
a cursor move hides or fakes a row, and a bidi override (U+202E) makes a name read as another in
any frontend. Used for display only: what the server sent stays as sent in the data (``result.text``,
``pool.logs()``). Both rooms use it: the status table's text is the client's, the rest the
renderer's (:mod:`mcpnb.notebook.render.html`, whose :func:`esc` writes bidi controls out too).
"""

from __future__ import annotations

import re

#: Terminal escape sequences: CSI (colours, ``\x1b[2m``, cursor moves ``\x1b[1A``), the string ones
#: up to their BEL or ST (OSC: titles, links, ``\x1b]52;c;…`` the clipboard; DCS, SOS, PM, APC),
#: character-set ones (``\x1b(B``) and the two-character ones (``\x1b7`` saves the cursor,
#: ``\x1bc`` resets the terminal).
_ANSI = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)|[ -/]+[0-~]|[0-~])"
)

#: The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): they reorder
#: the text after them, so a name reads as another ("Trojan Source"). The marks (U+200E, U+200F,
#: U+061C) are left: right-to-left text uses them, and they reorder no letters.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")

#: What a terminal acts on besides the escapes: C0 (less tab and newline), DEL and C1 (``\x9b`` is
#: a CSI of its own); and the bidi controls. What :func:`printable` writes out.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def without_ansi(text: str) -> str:
    """``text`` without terminal escapes: servers pass on coloured logs (Playwright MCP's call log
    in an error), which HTML shows as stray ``[2m``. The data keeps them (``result.text``)."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def bidi_shown(text: str) -> str:
    """Each bidi control in ``text`` written as ``<U+202E>``: shown, not removed, so a listing says
    the server's name has one (removed, the name would read as one it is not, and typed as read
    it would not be found)."""
    return _BIDI.sub(_visible, text) if _BIDI.search(text) else text


def _visible(match: re.Match[str]) -> str:
    """One control character as a reader sees it: ``<U+202E>``, or as Python writes it (``\\x1b``)."""
    char = match.group()
    return f"<U+{ord(char):04X}>" if _BIDI.match(char) else repr(char)[1:-1]


def printable(text: str) -> str:
    r"""``text`` as ``text/plain`` may carry it to a terminal: escape sequences removed, other
    control characters but tab and newline written as Python writes them (``\x07``, ``\r``; a
    ``\r\n`` is a newline) and bidi controls as ``<U+202E>``. Shown once, shown: a second pass
    changes nothing."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_visible, without_ansi(text).replace("\r\n", "\n"))


def width(text: str) -> int:
    """The columns ``text`` takes on a terminal: two for a wide character (CJK, most emoji), none
    for a combining mark or a zero-width one, else one; an emoji joined to the one before it by a
    zero-width joiner (a family, 👨‍👩‍👧) draws no column of its own. ``len`` padded a Chinese name
    short and a decomposed ``é`` long, so the columns after it went askew."""
    if text.isascii():
        return len(text)
    total, joined = 0, False
    for char in text:
        columns = _char_width(char)
        total += 0 if joined and columns == 2 else columns
        joined = char == "\u200d" or (joined and columns == 0)
    return total


def _char_width(char: str) -> int:
    import unicodedata

    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    if "\U0001f3fb" <= char <= "\U0001f3ff":  # a skin tone: it colours the emoji before it
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def ljust(text: str, columns: int) -> str:
    """``text`` padded with spaces to ``columns`` of :func:`width` (``str.ljust`` counts characters)."""
    return text + " " * max(columns - width(text), 0)


def columns_text(table: list[list[str]]) -> list[str]:
    """The lines of a plain-text table (its first row the heading): each cell padded to its
    column's :func:`width`, two spaces between, none at a line's end. The one way every listing
    lines up its columns, so a CJK or emoji cell moves none of the others."""
    if not table:
        return []
    widths = [max(width(row[i]) for row in table) for i in range(len(table[0]))]
    return ["  ".join(ljust(c, w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table]
