"""Every notebook in notebooks/ runs clean in a real kernel (nbclient), and shows what it promises."""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))


@pytest.fixture(autouse=True)
def _no_model_keys(monkeypatch):
    """Kernels inherit this environment: without API keys, 03's real-model cell stays offline."""
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)


def execute(path: Path) -> nbformat.NotebookNode:
    """``path`` run top to bottom in a fresh kernel, once per test file: a notebook's own checks
    read the run :func:`test_notebook_runs` made (each gets a copy), not one more of their own."""
    return copy.deepcopy(_executed(path))


@functools.cache
def _executed(path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()  # raises CellExecutionError on any error not tagged "raises-exception"
    return nb


def test_there_are_notebooks():
    assert PATHS, "notebooks/ is empty"


#: The cells that show an error, and what each still shows once it catches it: (a piece of the
#: cell's source, what its text says).
ERRORS_SHOWN = {
    "02-people-in-the-loop.ipynb": [("via=error", "UrlRequiredError: open_local_page() on 'classic' needs")],
    "04-requirements.ipynb": [
        ('version: ">=3"', "RequiredServerError: 1 required server is not ready"),
        ('version: ">=3"', "2.0.0"),  # the table, with the version probe-kit reports
        ("skills/loop-a", "RequirementCycleError: the requirements cannot be met"),
        ("skills/loop-a", "loop-a → loop-b → loop-a"),
    ],
    "05-mcp-features.ipynb": [("probe://statu\n", "CallError: resources/read probe://statu on 'probe'")],
    "09-resilience.ipynb": [("tag=too-slow", "CallTimeoutError: slow() on 'demo' timed out after 1.5 s")],
}


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_notebook_runs(path: Path):
    """...under papermill too, which fails a run on any error output, whatever the cell's tags (it
    reads ``raises-exception`` nowhere): a lesson that shows an error catches it and prints it. A
    ``UsageError`` is no error output (IPython prints it), so 01's tagged cell passes both."""
    nb = execute(path)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
    for source, said in ERRORS_SHOWN.get(path.name, []):
        shown = "".join(
            o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in _find(nb, source).outputs
        )
        assert said in shown, shown


def _outputs(cell) -> list[dict]:
    return [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]


def _find(nb, text: str):
    return next(c for c in nb.cells if c.cell_type == "code" and text in c.source)


def test_quickstart_says_how_many_cells_it_has():
    nb = nbformat.read(NOTEBOOKS / "01-quickstart.ipynb", as_version=4)
    words = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14}
    title = nb.cells[0].source.splitlines()[0]
    said = next(n for w, n in words.items() if f" {w} cells" in title)
    assert said == sum(c.cell_type == "code" for c in nb.cells), title


def test_quickstart_shows_tables_and_catches_bad_arguments():
    nb = execute(NOTEBOOKS / "01-quickstart.ipynb")
    required = _outputs(_find(nb, "%%mcp require"))[0]["data"]
    assert "probe" in required["text/plain"] and "connected" in required["text/plain"]
    assert "<table" in required["text/html"]
    tools = _outputs(_find(nb, "%mcp tools"))[0]["data"]
    assert "ui_search" in tools["text/plain"] and "<table" in tools["text/html"]
    call = _outputs(_find(nb, "probe.ui_search query="))[0]["data"]
    assert "login-form" in call["text/plain"] and "schema ✓" in call["text/plain"]
    frame = _outputs(_find(nb, "df.groupby"))[0]["data"]
    assert "<table" in frame["text/html"] and "Lyon" in frame["text/html"]  # a real DataFrame
    interpolated = _outputs(_find(nb, 'hits.data["query"]'))[0]["data"]
    assert "checkout page" in interpolated["text/plain"]  # {{topic}} reached the server
    bad = _find(nb, "limit=three")
    # IPython reports a UsageError as a short stderr line, not a traceback
    said = "".join(o.get("text", "") for o in bad.outputs if o.output_type == "stream")
    assert "UsageError" in said and "'limit'" in said and "nothing was sent" in said


def test_binder_files_avoid_the_repo2docker_traps():
    """repo2docker defaults to Python 3.10 and ipykernel 7.0.1, ignores pyproject.toml when binder/
    exists, and misreads a requirements file that is only ``.`` (verified with --no-build --debug:
    with these files the repo is copied before pip runs, on Python 3.11)."""
    binder = NOTEBOOKS.parent / "binder"
    assert (binder / "runtime.txt").read_text().strip() == "python-3.11"
    lines = [x.strip() for x in (binder / "requirements.txt").read_text().splitlines()]
    assert lines[0].startswith("#") and any(x.startswith("-e .") for x in lines)
    assert any(x.startswith("ipykernel>=7.4") for x in lines)


def test_people_in_the_loop_headless():
    nb = execute(NOTEBOOKS / "02-people-in-the-loop.ipynb")
    asked = _outputs(_find(nb, "probe.interview topic="))[0]["data"]["text/plain"]
    assert "You declined" in asked  # nbclient has no stdin: nobody can answer, so mcpnb declines
    assert "⚠ probe asked “" in asked and "nobody can answer in this run" in asked  # and says so
    given = _outputs(_find(nb, "--answers me"))[0]["data"]
    assert "notebook users" in given["text/plain"] and "<table" in given["text/html"]
    handle = _outputs(_find(nb, "--task"))[0]["data"]["text/plain"]
    assert "TaskHandle probe.slow_task" in handle
    rows = _outputs(_find(nb, "job.result().df"))[0]["data"]["text/plain"]
    assert rows.splitlines()[-1].split()[:2] == ["5", "6"]  # six steps, all done
    listed = _outputs(_find(nb, "%mcp tasks"))[0]["data"]["text/plain"]
    assert "slow_task" in listed and "completed" in listed
    # 2026-07-28: the URL request rides an InputRequiredResult; nobody here consents, so declined
    modern = _find(nb, "probe.open_local_page")
    assert not [o for o in modern.outputs if o.output_type == "error"]  # no −32042 in this era
    assert _outputs(modern)[0]["data"]["text/plain"] == "'decline'"  # a URL is never "visited" for you
    consent = _outputs(_find(nb, "classic.open_local_page path=welcome.md via=elicit"))[0]["data"]
    assert consent["text/plain"] == "'decline'"  # 2025-11-25's request over the session, the same
    refused = _find(nb, "classic.open_local_page path=welcome.md via=error")  # 2025-11-25's −32042
    said = "".join(o.get("text", "") + o.get("evalue", "") for o in refused.outputs)
    assert "welcome.md" in said and "needs you to open" in said


def test_tools_for_llms_headless():
    nb = execute(NOTEBOOKS / "03-tools-for-llms.ipynb")
    table = _outputs(_find(nb, 'tools = pool.functions("probe", "time")'))[0]["data"]
    assert "mcp__time__convert_time" in table["text/plain"] and "<table" in table["text/html"]
    helped = "".join(o.get("text", "") for o in _find(nb, "help(convert_time)").outputs)
    assert "convert_time(source_timezone: str, time: str, target_timezone: str)" in helped
    assert "Args:" in helped
    refused = "".join(o.get("text", "") for o in _find(nb, 'limit="three"').outputs)
    assert "'limit'" in refused and "nothing was sent" in refused
    side_by_side = _outputs(_find(nb, "formats = ["))[0]["data"]["text/html"]
    for fmt in ("openai", "openai-responses", "anthropic", "gemini"):
        assert f"<b>{fmt}</b>" in side_by_side
    warned = "".join(o.get("text", "") for o in _find(nb, "--strict").outputs)
    assert "mcp__probe__gen_mock cannot be strict" in warned
    answer = "".join(o.get("text", "") for o in _find(nb, "while True:\n    reply = scripted_model").outputs)
    assert answer.startswith("It is ") and "Login form component" in answer
    said = "".join(o.get("text", "") for o in _find(nb, "for m in messages:").outputs)
    assert "Error: mcp__probe__ui_search: argument 'limit'" in said  # the model read its mistake
    said_of_themselves = "".join(o.get("text", "") for o in _find(nb, "careful = pool.functions").outputs)
    assert "mcp__time__convert_time          read-only, by the server's annotations" in said_of_themselves
    assert "test_simple_text     the server does not say what it changes" in said_of_themselves
    waited = _outputs(_find(nb, '"id": "toolu_2"'))[0]["data"]["text/plain"]  # nobody here to say yes
    assert "probe.test_simple_text was not run: it needs a person's approval; nobody to ask" in waited
    listed = "".join(
        o.get("text", "") for o in _find(nb, 'skilled = pool.functions("probe", skills=True)').outputs
    )
    assert "call load_skill with its name" in listed and "- probe/review-a-change: Review a code" in listed
    loaded = "".join(o.get("text", "") for o in _find(nb, "def load(id, **arguments):").outputs)
    assert loaded.startswith("# Review a change") and '# Before saying "approve"' in loaded
    assert "Error: mcp__mcpnb__load_skill: argument 'skill': \"probe/review\" is not one of" in loaded
    real = "".join(o.get("text", "") for o in _find(nb, "OPENAI_API_KEY").outputs)
    assert real.startswith("Skipped: set OPENAI_API_KEY or ANTHROPIC_API_KEY")
    # What section 2's prose says of the counts, against what ran: the magic lists two fewer than
    # section 1's toolbox (time's two tools), and neither offers probe's dice_history to a model.
    prose = next(c.source for c in nb.cells if c.cell_type == "markdown" and "dice_history" in c.source)
    assert "two fewer than section 1's toolbox" in prose and "`time`'s two tools" in prose
    toolbox = int(re.search(r"^Toolbox: (\d+) tools from probe, time", table["text/plain"], re.M).group(1))
    specs = int(
        re.search(
            r"^(\d+) openai tool specs", _outputs(_find(nb, "--strict"))[0]["data"]["text/plain"], re.M
        ).group(1)
    )
    time_tools = table["text/plain"].count("\nmcp__time__")
    assert toolbox - specs == 2 == time_tools, (toolbox, specs, time_tools)
    assert "mcp__probe__dice_history" not in table["text/plain"] + warned


#: A count of tools or specs in the prose goes stale with the next tool probe-kit gets (03 said "72
#: specs where section 1 showed 74 tools" while 74 and 76 ran): say how they relate instead.
STALE_COUNT = re.compile(r"\b\d+ (?:tools|tool specs|specs)\b|\b\d+(?:st|nd|rd|th) tool\b")


def test_no_prose_counts_tools_that_drift():
    said = []
    for path in PATHS:
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "markdown":
                said += [f"{path.name}[{i}]: {m}" for m in STALE_COUNT.findall(cell.source)]
    for path in (NOTEBOOKS / "README.md", NOTEBOOKS.parent / "README.md"):
        said += [f"{path.name}: {m}" for m in STALE_COUNT.findall(path.read_text())]
    assert not said, said


def test_tool_timeout_setting_is_described_as_it_works():
    """09 said "`%config Mcp.tool_timeout = 120` sets the default for every call"; it sets it for
    the servers %mcp connect/serve connect afterwards, and a server already connected keeps its own."""
    nb = nbformat.read(NOTEBOOKS / "09-resilience.ipynb", as_version=4)
    prose = next(
        c.source for c in nb.cells if c.cell_type == "markdown" and "%config Mcp.tool_timeout" in c.source
    )
    assert "for every call" not in prose
    assert "*before* `%mcp connect`" in prose and "A server already connected keeps its own" in prose
    demo = str(NOTEBOOKS.parent / "tests" / "servers" / "demo_server.py")
    cells = [
        f"%load_ext mcpnb\nimport sys\nimport mcpnb\npool = mcpnb.default_pool()\nDEMO = {demo!r}\n"
        "pool.connect('before', command=sys.executable, args=[DEMO, 'stdio'])",
        "%config Mcp.tool_timeout = 0.5",
        "%mcp connect after -- {{sys.executable}} {{DEMO}} stdio",
        "print(pool.connection('before').config.tool_timeout, pool.connection('after').config.tool_timeout)",
        "kept = %mcp call before.slow seconds=1 tag=kept\nprint(kept.text)",  # 60 s allowed: it finishes
        "try:\n    %mcp call after.slow seconds=3 tag=cut\n"
        "except mcpnb.CallTimeoutError as cut:\n    print('timed out:', cut)",
        "%mcp disconnect --all",
    ]
    run = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(
        run, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    said = ["".join(o.get("text", "") for o in c.outputs) for c in run.cells]
    assert said[3].split() == ["60.0", "0.5"], said[3]
    assert said[4].startswith("slept 1"), said[4]
    assert said[5].startswith("timed out:") and "after 0.5 s" in said[5], said[5]


def test_mcp_features_headless():
    nb = execute(NOTEBOOKS / "05-mcp-features.ipynb")
    text = lambda c: "".join(  # noqa: E731
        o.get("text", "") + o.get("data", {}).get("text/plain", "") + o.get("evalue", "") for o in c.outputs
    )
    assert "probe://status" in text(_find(nb, "%mcp resources probe"))
    assert "probe://files/{+path}" in text(_find(nb, "%mcp resources probe"))  # templates too
    assert text(_find(nb, ".instructions)")).startswith("probe-kit is a teaching MCP server")
    assert "# Welcome to probe-kit" in text(_find(nb, "probe://files/welcome.md"))
    assert "Unknown resource: 'probe://statu'; did you mean 'probe://status'?" in text(
        _find(nb, "%mcp read probe probe://statu\n")
    )
    assert "'gencommit'" in text(_find(nb, '"tool_name", "gen"'))
    assert "'welcome.md'" in text(_find(nb, 'template="probe://files'))
    shown = text(_find(nb, "%mcp logs probe -n 4"))
    assert "log: debug: Debug detail" in shown and "log: info: Tool execution started" in shown
    assert "(0 log notifications sent)" in text(_find(nb, "--log-level error"))
    watched = text(_find(nb, "%mcp subscribe probe probe://status"))
    assert watched.count("updated: probe://status") >= 2  # the update reached the subscribing cell
    assert "stopped watching probe://status" in text(_find(nb, "%mcp unsubscribe"))
    own = text(_find(nb, "%mcp connect greeter {{srv}}"))  # a server written in a cell, run in-process
    assert re.search(r"^greeter\s+inprocess\s+connected", own, re.M) and "Greets people by name." in own
    assert "Hello, Ada!" in text(_find(nb, "%mcp call greeter.greet"))
    assert "Be kind to your clients." in text(_find(nb, "%mcp read greeter"))
