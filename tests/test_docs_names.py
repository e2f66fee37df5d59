"""The names the README and docs/*.md tell a person to type exist, spelled as written.

A person who learns mcpnb from its documentation copies `--flags`, subcommands and settings from it;
a flag renamed in a parser (or misspelt in a doc) fails only when someone types it. These checks are
cheap (no kernel, no server): every `--flag` in a `%mcp SUBCOMMAND` line is one of that subcommand's
parser, in a `python -m mcpnb.probekit` line one of probe-kit's, in a `bench/NAME.py` line one of that
script's, and anywhere else one of those or of the few other programs the docs run; the tour's and
the README's lists of subcommands and `%config Mcp` settings name every one there is.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mcpnb.notebook.magics  # noqa: F401  (registers the subcommands)
from mcpnb.notebook.magics.registry import COMMANDS
from mcpnb.notebook.settings import Mcp
from mcpnb.probekit.__main__ import _parser as probekit_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
#: Flags of programs the docs run that are not mcpnb's (pip, npm, jupyter, uvicorn, redis-server,
#: nbconvert, the conformance suite, the servers of the tour), by the program that takes them.
OTHERS = {
    "--allow-root": "jupyter lab",
    "--prefix": "npm ci",
    "--local-timezone": "mcp_server_time",
    "--stdio": "the MCP Apps example servers",
    "--suite": "the conformance suite",
    "--execute": "jupyter nbconvert",
    "--allow-errors": "jupyter nbconvert",
    "--factory": "uvicorn",
    "--save": "redis-server",
    "--appendonly": "redis-server",
    "--bind": "redis-server",
    "--daemonize": "redis-server",
}
#: Segments that are another program's command line: their flags are that program's.
FOREIGN = re.compile(r"\b(uvicorn|redis-server|redis-cli|npm|npx|nbconvert)\b")


def _flags_of(parser) -> set[str]:
    return {opt for action in parser._actions for opt in action.option_strings if opt.startswith("--")}


def _script_flags(path: Path) -> set[str]:
    """A bench script's flags, read from its source (importing it would start its imports)."""
    return set(re.findall(r"add_argument\(\s*\"(--[a-z0-9-]+)\"", path.read_text()))


MAGIC_FLAGS = {name: _flags_of(cmd.parser) for name, cmd in COMMANDS.items()}
TOP_LEVEL = {"--verbose"}  # %mcp --verbose SUBCOMMAND: the magic's own
PROBEKIT = _flags_of(probekit_parser())
BENCH = {path.name: _script_flags(path) for path in (ROOT / "bench").glob("*.py")}
EVERY = set().union(*MAGIC_FLAGS.values(), TOP_LEVEL, PROBEKIT, *BENCH.values(), OTHERS)


def _segments(text: str) -> list[str]:
    """Each line of a fenced block (a backslash continues it) and each inline code span."""
    out: list[str] = []
    prose: list[str] = []
    for i, part in enumerate(re.split(r"^```[^\n]*\n", text, flags=re.M)):
        if i % 2:  # inside a fence
            out += part.replace("\\\n", " ").splitlines()
        else:
            prose.append(part)
    out += re.findall(r"`([^`]+)`", "".join(prose))
    return out


def _unknown(segment: str) -> list[str]:
    """The flags in ``segment`` that what it runs does not take."""
    if FOREIGN.search(segment):
        return []
    magic = re.search(r"%%?mcp\s+(?:--verbose\s+)?([a-z]+)", segment)
    if magic and magic.group(1) in COMMANDS:
        mine, _, command = segment.partition(" -- ")  # after --: the server's command line
        known = MAGIC_FLAGS[magic.group(1)] | TOP_LEVEL
        wrong = [f for f in FLAG.findall(mine) if f not in known]
        return wrong + _unknown(command) if command else wrong
    if "mcpnb.probekit" in segment:
        return [f for f in FLAG.findall(segment) if f not in PROBEKIT]
    script = re.search(r"bench/(\w+\.py)", segment)
    if script and script.group(1) in BENCH:
        return [f for f in FLAG.findall(segment) if f not in BENCH[script.group(1)] | {"--help"}]
    return [f for f in FLAG.findall(segment) if f not in EVERY]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_flag_the_docs_name_exists(doc: Path) -> None:
    wrong = {(seg.strip()[:120], flag) for seg in _segments(doc.read_text()) for flag in _unknown(seg)}
    assert not wrong, f"{doc.name} names flags nothing takes: {sorted(wrong)}"


def test_a_misspelt_flag_is_caught() -> None:
    """The check itself: a flag of another subcommand, or one that does not exist, is found."""
    assert _unknown("%mcp call probe.estimate task=x --novalidate") == ["--novalidate"]
    assert _unknown("%mcp tools probe --task") == ["--task"]  # call's, not tools'
    assert _unknown("python -m mcpnb.probekit --http --max-task 4") == ["--max-task"]
    assert _unknown("%mcp connect t -- python -m mcpnb.probekit --toolsets core") == ["--toolsets"]
    assert _unknown("python bench/classroom.py --student 40") == ["--student"]
    assert _unknown("%mcp connect t -- python -m mcp_server_time --local-timezone UTC") == []


def _paragraph_after(text: str, opening: str) -> str:
    start = text.index(opening)
    end = text.find("\n\n", start)
    return text[start : end if end != -1 else len(text)]


@pytest.mark.parametrize("doc", ["README.md", "docs/tour.md"])
def test_the_subcommand_list_names_every_subcommand(doc: str) -> None:
    listed = _paragraph_after((ROOT / doc).read_text(), "`%mcp?` lists every subcommand")
    missing = [name for name in COMMANDS if not re.search(rf"`{name}[` ]", listed)]
    assert not missing, f"{doc}: `%mcp?` lists these too: {missing}"


@pytest.mark.parametrize("doc", ["README.md", "docs/tour.md"])
def test_the_settings_list_names_every_setting(doc: str) -> None:
    text = (ROOT / doc).read_text()
    start = text.index("`%config Mcp` shows the settings")
    listed = text[start : start + 1500]
    settings = [name for name in Mcp.class_own_traits(config=True)]
    missing = [name for name in settings if f"`{name}`" not in listed]
    assert settings and not missing, f"{doc}: `%config Mcp` shows these too: {missing}"


def test_every_setting_the_docs_name_exists() -> None:
    settings = set(Mcp.class_own_traits(config=True))
    named = {m for doc in DOCS for m in re.findall(r"\bMcp\.([a-z_]+)", doc.read_text())}
    assert named and named <= settings, f"no such %config Mcp setting: {sorted(named - settings)}"
