"""notebooks/04-requirements.ipynb runs headless (nbclient) and shows what it promises: dedup, a
conflict settled three ways, a version check, an optional server, a cycle, two skills sharing one
server. (tests/test_notebooks.py runs every notebook; this checks what this one says.)"""

from __future__ import annotations

import pytest

from tests.test_notebooks import NOTEBOOKS, execute


@pytest.fixture(scope="module")
def nb():
    return execute(NOTEBOOKS / "04-requirements.ipynb")


def _cell(nb, text: str):
    return next(c for c in nb.cells if c.cell_type == "code" and text in c.source)


def _cells(nb, text: str):
    return [c for c in nb.cells if c.cell_type == "code" and text in c.source]


def _shown(cell) -> str:
    return "".join(
        o["data"]["text/plain"] for o in cell.outputs if o.output_type in ("execute_result", "display_data")
    )


def _error(cell) -> str:
    return "".join(f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error")


def _printed(cell) -> str:
    """What the cell printed: a lesson that shows an error catches it and prints it (papermill fails
    a run on any error output, ``raises-exception`` or not)."""
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_declared_servers_connect_then_stay_untouched(nb):
    first, again = (
        _cells(nb, "%%mcp require -o needs")[0],
        _cells(nb, "%%mcp require\nmcpServers:\n  probe:\n")[0],
    )
    first_rows = [r for r in _shown(first).splitlines() if r.startswith(("probe ", "ui "))]
    assert len(first_rows) == 2 and all(r.endswith("connected") for r in first_rows), first_rows
    assert "connected  connected" not in _shown(first)  # the state says it; the notes once said it again
    assert _shown(again).count("already connected with these settings: untouched") == 2
    html = next(o for o in first.outputs if o.output_type in ("execute_result", "display_data"))["data"][
        "text/html"
    ]
    assert "<table" in html and "version wanted" in html


def test_two_skills_share_one_server(nb):
    shown = _shown(_cell(nb, "--skill skills/pull-requests"))
    (row,) = [line for line in shown.splitlines() if line.startswith("probe ")]
    assert "skill 'pull-requests', skill 'commit-messages'" in row and "deduplicated" in row
    assert "skills (in order): commit-messages, pull-requests" in shown


def test_one_conflict_settled_three_ways(nb):
    priority, newest = _cells(nb, "skills: [skills/workflows]")[:2]
    asked = _cell(nb, "--answers picks")
    assert "priority: notebook wins over skill 'workflows'" in _shown(priority)
    assert "newest: skill 'workflows' asks for 2.0, the highest" in _shown(newest)
    assert "answers given: notebook was chosen" in _shown(asked)


def test_a_version_check_shows_the_table_then_one_error(nb):
    cell = _cell(nb, 'version: ">=3"')
    assert "unsatisfied" in _shown(cell)
    said = (
        "RequiredServerError: 1 required server is not ready:\n  - probe: version 2.0.0 does not satisfy >=3"
    )
    assert _error(cell) == "" and _printed(cell).strip() == said


def test_an_optional_server_that_is_missing_is_a_warning(nb):
    cell = _cell(nb, "weather:")
    assert _error(cell) == ""
    assert "optional, so the notebook goes on without it" in _shown(cell)


def test_a_cycle_is_an_error_with_its_path(nb):
    cell = _cell(nb, "skills/loop-a")
    said = _printed(cell)
    assert (
        _error(cell) == ""
        and said.startswith("RequirementCycleError:")
        and "loop-a → loop-b → loop-a" in said
    )
