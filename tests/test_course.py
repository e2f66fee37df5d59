"""The course in notebooks/: every exercise is solvable (its worked solution passes in a real kernel),
every common mistake gets its teaching message, the course map lists every notebook, and the
Binder spec builds the environment the course needs and opens on the map."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = NOTEBOOKS / "solutions"
CHECK = re.compile(r"""teach\.check\(\s*["']([\w.-]+)["']""")


@dataclass
class Solution:
    name: str
    code: str
    wrong: str
    says: str


def read_solutions(path: Path) -> dict[str, Solution]:
    """``## NAME`` sections: the first ```python block solves, ```python wrong errs, and the ``>``
    line is what the mistake is told."""
    found: dict[str, Solution] = {}
    for section in re.split(r"^## ", path.read_text(), flags=re.M)[1:]:
        name = section.split("\n", 1)[0].strip()
        code = re.search(r"```python\n(.*?)```", section, re.S)
        wrong = re.search(r"```python wrong\n(.*?)```", section, re.S)
        says = re.search(r"^> (.+)$", section, re.M)
        assert code and wrong and says, f"{path.name}: {name} needs a solution, a wrong block and a '>' line"
        found[name] = Solution(name, code.group(1).strip(), wrong.group(1).strip(), says.group(1).strip())
    return found


def exercise_cells(nb: nbformat.NotebookNode) -> dict[str, int]:
    """Exercise name -> index of the cell that checks it (cells tagged ``exercise``)."""
    out = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "exercise" in cell.metadata.get("tags", []):
            names = CHECK.findall(cell.source)
            assert len(names) == 1, f"an exercise cell checks exactly one exercise:\n{cell.source}"
            out[names[0]] = i
    return out


def _with_exercises() -> list[Path]:
    return [p for p in sorted(NOTEBOOKS.glob("*.ipynb")) if exercise_cells(nbformat.read(p, as_version=4))]


COURSE = _with_exercises()


def _text(cell: nbformat.NotebookNode) -> str:
    parts = []
    for out in cell.outputs:
        parts.append(out.get("text", "") + out.get("evalue", ""))
        parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def test_the_course_has_exercises_and_every_one_has_a_solution():
    mine = {"06-structured-output.ipynb", "07-two-eras.ipynb", "08-tasks.ipynb", "09-resilience.ipynb"}
    assert mine <= {p.name for p in COURSE}
    for path in COURSE:
        names = set(exercise_cells(nbformat.read(path, as_version=4)))
        solutions = SOLUTIONS / path.with_suffix(".md").name
        assert solutions.exists(), f"{path.name}: no worked solutions in {solutions}"
        assert set(read_solutions(solutions)) == names, path.name


@pytest.mark.parametrize("path", COURSE, ids=[p.name for p in COURSE])
def test_solutions_pass_and_mistakes_are_taught(path: Path):
    """Each exercise cell becomes two: the common mistake, then the worked solution."""
    nb = nbformat.read(path, as_version=4)
    solutions = read_solutions(SOLUTIONS / path.with_suffix(".md").name)
    for name, index in sorted(exercise_cells(nb).items(), key=lambda kv: -kv[1]):  # bottom up
        wrong = nbformat.v4.new_code_cell(solutions[name].wrong)
        right = nbformat.v4.new_code_cell(solutions[name].code)
        nb.cells[index : index + 1] = [wrong, right]
    placed: dict[str, list[int]] = {}  # name -> [the mistake's cell, the solution's cell]
    for i, cell in enumerate(nb.cells):
        for name in CHECK.findall(cell.source) if cell.cell_type == "code" else []:
            placed.setdefault(name, []).append(i)
    assert all(len(at) == 2 for at in placed.values()), placed
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    for name, (wrong_at, right_at) in placed.items():
        told, solved = _text(nb.cells[wrong_at]), _text(nb.cells[right_at])
        assert f"✗ {name}:" in told and solutions[name].says in told, f"{name} was told:\n{told}"
        assert f"✓ {name}:" in solved, f"{name}'s worked solution did not pass:\n{solved}"


def test_the_tasks_exercises_can_be_done_again_after_run_all():
    """08's last cell stopped probe-kit with the connections: after Run All, the exercises' calls
    said "server 'old' was disconnected; %mcp reconnect old", which then failed (connection refused)."""
    path = NOTEBOOKS / "08-tasks.ipynb"
    nb = nbformat.read(path, as_version=4)
    solutions = read_solutions(SOLUTIONS / path.with_suffix(".md").name)
    again = [
        "%mcp reconnect old",
        "%mcp reconnect new",
        solutions["08.ttl"].code,
        solutions["08.cancel"].code,
    ]
    nb.cells += [nbformat.v4.new_code_cell(code) for code in again]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()  # raises on an error in any cell not tagged raises-exception
    for name, cell in zip(("08.ttl", "08.cancel"), nb.cells[-2:], strict=True):
        assert f"✓ {name}:" in _text(cell), _text(cell)


def test_the_fix_point_exercise_asks_for_what_the_server_s_data_allows(pool):
    """06's exercise said "turned into the type" of an `x` the server sends as "not a number": the
    student's `int(bad.data["x"])` raised in their own cell, and the check never spoke; the
    solutions' mistake started from data the server never sends."""
    demo = str(ROOT / "tests" / "servers" / "demo_server.py")
    pool.connect("demo", command=sys.executable, args=[demo, "stdio"])
    sent = pool.call("demo", "bad_point").data["x"]
    nb = nbformat.read(NOTEBOOKS / "06-structured-output.ipynb", as_version=4)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert f'`"{sent}"` for `x`' in prose  # section 3 says what the server really sends
    task = next(c.source for c in nb.cells if c.source.startswith("**2. Repair a broken result.**"))
    assert "turned into" not in task and "the integer the server meant: 3" in task
    if not str(sent).lstrip("-").isdigit():  # text no int() reads: the exercise must say so
        assert f'`int("{sent}")` raises' in task
    mistake = read_solutions(SOLUTIONS / "06-structured-output.md")["06.fix-point"].wrong
    assert mistake.startswith("fixed = {**bad.data,"), mistake  # a mistake made on the real data


# ---------------------------------------------------------------- the map
def test_the_course_map_says_how_long_the_course_takes():
    """It said "about two hours in all" over times that add up to 155 minutes."""
    course_map = (NOTEBOOKS / "README.md").read_text()
    minutes = sum(int(m) for m in re.findall(r"^\| \d+ \| .*? \| (\d+) min \|", course_map, re.M))
    said = re.search(r"times below add up\s+to (\d+) minutes", course_map)
    assert said and int(said.group(1)) == minutes, minutes
    assert "two and a half hours" in course_map and 135 <= minutes <= 165


def test_the_course_map_lists_every_notebook_in_order():
    course_map = (NOTEBOOKS / "README.md").read_text()
    names = [
        "01-quickstart.ipynb",
        "02-people-in-the-loop.ipynb",
        "03-tools-for-llms.ipynb",
        "04-requirements.ipynb",
        "05-mcp-features.ipynb",
        "06-structured-output.ipynb",
        "07-two-eras.ipynb",
        "08-tasks.ipynb",
        "09-resilience.ipynb",
    ]
    names += [p.name for p in sorted(NOTEBOOKS.glob("*.ipynb")) if p.name not in names]
    positions = [course_map.find(n) for n in names]
    assert -1 not in positions, [n for n, at in zip(names, positions, strict=True) if at == -1]
    assert positions[:9] == sorted(positions[:9])
    assert "notebooks/README.md" in (ROOT / "README.md").read_text()  # the quick start links to it


def test_the_local_command_opens_a_notebook():
    """The map told a local install `jupyter lab notebooks/README.md`, which a JupyterLab without
    Binder's overrides.json opens as Markdown source (Markdown Preview is only Binder's default
    viewer): every `jupyter lab PATH` of both READMEs opens a notebook that exists."""
    commands = []
    for readme in (ROOT / "README.md", NOTEBOOKS / "README.md"):
        commands += re.findall(r"jupyter lab (\S+)", readme.read_text())
    assert commands
    for path in commands:
        assert path.endswith(".ipynb") and (ROOT / path).exists(), path
    course_map = (NOTEBOOKS / "README.md").read_text()
    assert "Open With → Markdown Preview" in course_map  # how to read the map rendered, locally


# ---------------------------------------------------------------- Binder
BINDER = ROOT / "binder"
COURSE_MAP_URL = "lab/tree/notebooks/README.md"


def test_binder_badge_and_default_view_open_the_course_map():
    badges = re.findall(
        r"https://mybinder\.org/v2/\S+?\?urlpath=([^)\s]+)", (NOTEBOOKS / "README.md").read_text()
    )
    assert badges and all(b == COURSE_MAP_URL for b in badges)
    import json

    overrides = json.loads((BINDER / "overrides.json").read_text())
    viewers = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == "Markdown Preview"  # the map opens rendered, not as source
    post_build = (BINDER / "postBuild").read_text()
    assert "overrides.json" in post_build and post_build.startswith("#!/bin/bash")


def test_repo2docker_reads_the_binder_spec():
    """``repo2docker --no-build`` prints the Dockerfile it would build (no Docker needed)."""
    exe = shutil.which("repo2docker", path=str(Path(sys.executable).parent)) or shutil.which("repo2docker")
    assert exe, "jupyter-repo2docker is in the test extra: pip install -e '.[test]'"
    done = subprocess.run(
        [exe, "--no-build", "--no-run", "--debug", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    dockerfile = done.stdout + done.stderr
    assert "python=3.11" in dockerfile  # binder/runtime.txt: the base image would be 3.10
    lines = dockerfile.splitlines()
    copy_src = next(i for i, line in enumerate(lines) if line.startswith("COPY --chown") and " src/ " in line)
    pip = next(
        i for i, line in enumerate(lines) if "pip install" in line and "binder/requirements.txt" in line
    )
    assert copy_src < pip, "the repository must be copied before pip installs '-e .[course]' from it"
    post_build = next(i for i, line in enumerate(lines) if "binder/postBuild" in line)
    assert post_build > copy_src
    requirements = [x.strip() for x in (BINDER / "requirements.txt").read_text().splitlines()]
    assert "-e .[course]" in requirements  # the course extra: what the lessons use beyond mcpnb


def _extras(line: str) -> set[str]:
    found = re.search(r"""pip install -e ["']?\.\[([\w,-]+)\]""", line)
    assert found, f"no `pip install -e .[...]` in {line!r}"
    return set(found.group(1).split(","))


def test_every_way_into_the_course_installs_what_binder_does():
    """Binder's environment is the one the course is run in (CI runs each lesson with the same
    extra): the quick start at the top of the README and the course map's local command install at
    least that. The quick start once installed JupyterLab alone, and lessons 3 and 6 failed."""
    binder = next(
        line for line in (BINDER / "requirements.txt").read_text().splitlines() if line.startswith("-e .[")
    )
    wanted = set(binder.removeprefix("-e .[").removesuffix("]").split(","))
    readme = (ROOT / "README.md").read_text()
    quick_start = next(line for line in readme.splitlines() if "notebooks/01-quickstart.ipynb" in line)
    local = next(line for line in (NOTEBOOKS / "README.md").read_text().splitlines() if "pip install" in line)
    for line in (quick_start, local):
        assert wanted <= _extras(line), f"{line.strip()!r} leaves out {sorted(wanted - _extras(line))}"
