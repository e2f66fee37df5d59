"""Tab completion: subcommands, options, server names, NAME.TOOL and key= through IPython's completer."""

from __future__ import annotations

import json
import sys
from typing import Any, Literal

from conftest import DEMO

from mcpnb.notebook.magics.completion import candidates

from .conftest import complete, line


def test_subcommands(ip, mcp):
    assert complete(ip, "%mcp to") == ["tools"]
    assert {"connect", "call", "serve", "status"} <= set(complete(ip, "%mcp "))
    assert complete(ip, "%%mcp ca") == ["call"]


def test_servers_tools_and_parameters(ip, mcp):
    line(ip, f"connect demo -- {sys.executable} {DEMO} stdio")
    line(ip, f"connect other -- {sys.executable} {DEMO} stdio")
    assert set(complete(ip, "%mcp tools ")) == {"demo", "other"}
    assert complete(ip, "%mcp tools other.ech") == ["other.echo"]  # one tool in full
    assert complete(ip, "%mcp logs ot") == ["other"]
    assert set(complete(ip, "%mcp call demo.p")) >= {"demo.pid", "demo.people", "demo.point"}
    assert complete(ip, "%%mcp call other.ech") == ["other.echo"]
    assert complete(ip, "%mcp call demo.add ") == ["a=", "b="]
    assert complete(ip, "%mcp call demo.add a=1 ") == ["b="]
    assert complete(ip, "%mcp serve --stop ") == ["demo", "other"]


def test_options_and_choices(ip, mcp):
    assert "--timeout" in complete(ip, "%mcp call x.y --ti")
    assert complete(ip, "%mcp connect x http://h --era l") == ["legacy"]
    assert complete(ip, "%mcp serve pr") == ["probe-kit"]
    assert "core" in complete(ip, "%mcp serve probe-kit --toolset ")


def test_candidates_never_raise(mcp):
    for text in ("", "%mcp", "%mcp call", "%mcp nope x", "%mcp call nothing.here ", "%mcp prompt "):
        assert isinstance(candidates(mcp.pool, text), list)


def test_prompt_arguments_complete_from_the_server(ip, mcp, tmp_path):
    """`%mcp prompt NAME.PROMPT key=<TAB>` asks the server (completion/complete), bounded in time."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "billing.py").write_text("x = 1\n")
    line(ip, f"serve probe-kit --root {tmp_path}")
    assert complete(ip, "%mcp prompt probe.explain_tool ") == ["tool_name="]
    assert complete(ip, "%mcp prompts probe.explain") == ["probe.explain_tool"]  # one prompt in full
    assert set(complete(ip, "%mcp prompt probe.explain_tool tool_name=gen")) >= {"gencommit", "genui"}
    assert complete(ip, "%mcp prompt probe.review_code path=app/b") == ["app/billing.py"]
    assert complete(ip, "%mcp prompt probe.tour_toolset toolset=w") == ["workflow"]
    assert complete(ip, "%mcp logs probe --log-level w") == ["warning"]
    assert complete(ip, "%mcp subscribe pr") == ["probe"]


def test_config_paths_and_a_vs_code_files_inputs(ip, mcp, tmp_path, monkeypatch):
    """``--config`` completes folders and ``.json`` and ``.toml`` (Codex's) files (inside
    ``.vscode/`` it offered Python's builtins); ``--input`` offers the ``ID=`` the file declares and
    the line does not give yet."""
    from tests.client.config.helpers import write_probe_vscode

    write_probe_vscode(tmp_path)
    (tmp_path / "notes.txt").write_text("not a config")
    (tmp_path / "codex.toml").write_text("[mcp_servers.a]\ncommand = 'x'\n")
    monkeypatch.chdir(tmp_path)
    assert complete(ip, "%mcp connect --config .vs") == [".vscode/"]
    assert "codex.toml" in complete(ip, "%mcp connect --config ")
    assert complete(ip, "%mcp connect --config .vscode/") == [".vscode/mcp.json"]
    assert complete(ip, "%%mcp require --config .vscode/m") == [".vscode/mcp.json"]
    assert "notes.txt" not in complete(ip, "%mcp config ")
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"filed": {"command": "echo"}}}))
    assert {".mcp.json", "filed"} <= set(complete(ip, "%mcp config "))  # a file, or a server to show
    assert complete(ip, "%mcp config .mcp.json f") == ["filed"]
    line_ = "%mcp connect --config .vscode/mcp.json --input "
    assert complete(ip, line_) == ["toolset=", "key="]  # in the order the file declares them
    assert complete(ip, line_ + "toolset=ui --input ") == ["key="]
    assert not [c for c in complete(ip, "%mcp connect --config nowhere.json --input ") if c.endswith("=")]


def test_skills_complete_a_server_then_its_skills(ip, mcp):
    line(ip, "serve probe-kit")
    line(ip, f"connect demo -- {sys.executable} {DEMO} stdio")
    assert set(complete(ip, "%mcp skills ")) == {"probe", "demo"}
    assert complete(ip, "%mcp skills probe rev") == ["review-a-change"]
    # a server without skills: none of probe's offered for it, and no error
    assert not {"probe-kit-tour", "review-a-change"} & set(complete(ip, "%mcp skills demo "))


def _editor(ip, text: str) -> list[tuple[str, str]]:
    """What an editor's completer (JupyterLab's, ipykernel's ``do_complete``) lists: every matcher,
    Jedi's too, with each completion's type."""
    from IPython.core.completer import provisionalcompleter

    with provisionalcompleter():
        return [(c.text, c.type) for c in ip.Completer.completions(text, len(text))]


def test_an_editor_lists_only_mcp_s_names_with_what_each_is(ip, mcp):
    """Tab after ``%mcp call `` listed Python's ``and``, ``if``, ``in`` first (Jedi's), so Enter took
    ``and``; the tools came after, typed ``<unknown>``."""
    line(ip, f"connect demo -- {sys.executable} {DEMO} stdio")
    line(ip, f"connect other -- {sys.executable} {DEMO} stdio")
    listed = _editor(ip, "%mcp call ")
    assert listed and all(kind == "tool" for _, kind in listed)
    assert {"demo.add", "other.echo"} <= {text for text, _ in listed}
    assert _editor(ip, "%mcp call demo.add ") == [("a=", "parameter"), ("b=", "parameter")]
    assert ("tools", "subcommand") in _editor(ip, "%mcp ")
    assert _editor(ip, "%mcp tools ") == [("demo", "server"), ("other", "server")]
    assert ("--timeout", "option") in _editor(ip, "%mcp call demo.add --ti")
    # the result captured into a variable, as people write it
    assert {t for t, _ in _editor(ip, "r = %mcp call demo.ad")} == {"demo.add", "demo.add_tool"}
    assert ("demo.add", "tool") in _editor(ip, "%%mcp call demo.ad")
    # Python is untouched: a name that is no %mcp line completes as before
    assert ("print", "function") in _editor(ip, "prin")
    assert any(text == "%mcp" for text, _ in _editor(ip, "%mc"))


def _unseen_server() -> Any:
    """A real in-process server whose tool names and ``enum`` values hide characters: a bidi
    override (U+202E reorders what follows: ``fmt<U+202E>txt.exe`` reads as ``fmtexe.txt``), a
    zero-width space, and an emoji family, whose joiners are seen as the one picture they make."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("unseen")

    def convert(unit: Literal["m", "k\u202em", "\u200bm", "👨\u200d👩\u200d👧"] = "m") -> str:
        return unit

    server.add_tool(convert, name="convert")
    server.add_tool(lambda: "x", name="get\u200bdata")
    server.add_tool(lambda: "x", name="fmt\u202etxt.exe")
    return server


def test_a_name_that_does_not_read_as_written_is_not_offered(ip, mcp):
    """Tab offered a server's words as it wrote them: a bidi override went into JupyterLab's list
    (and, taken, into the cell, reordering the line after it) and a zero-width space inserted a name
    that reads as another. Neither is offered; the person may still type it."""
    mcp.pool.connect("un", server=_unseen_server())
    assert complete(ip, "%mcp call un.") == ["un.convert"]
    assert {text for text, _ in _editor(ip, "%mcp call un.")} == {"un.convert"}
    assert set(complete(ip, "%mcp call un.convert unit=")) == {"m", "👨\u200d👩\u200d👧"}
    assert {text for text, _ in _editor(ip, "%mcp tools un.")} == {"un.convert"}
    # what the server listed is unchanged: only the offer is
    assert {t.name for t in mcp.pool.tools("un")} == {"convert", "get\u200bdata", "fmt\u202etxt.exe"}
    from mcpnb.notebook.magics.completion import reads_as_written

    assert reads_as_written("📄 notes_2.md") and reads_as_written("שלום")  # letters of any script
    assert not reads_as_written("a\u2066b") and not reads_as_written("a\tb")  # an isolate, a tab
    # marks drawn as nothing, which their category (Mn) does not give away (the review's)
    for unseen in ("echo\ufe0f", "ec\u034fho", "echo\U000e0101", "echo\u17b4", "echo\u2800"):
        assert not reads_as_written(unseen), unseen
    assert reads_as_written("\u2764\ufe0f notes") and reads_as_written("café")  # a red heart; an accent
