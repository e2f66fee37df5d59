"""The ``@modelcontextprotocol/conformance`` server scenarios, run against probe-kit over Streamable HTTP.

probe-kit runs as its own process (``python -m mcpnb.probekit --http``, toolset ``full``, which holds
the conformance fixtures) on 127.0.0.1; the runner (Node >= 22, from ``tests/peers``) connects one
session per scenario. Every scenario of ``--suite all`` must pass, for each spec version: 2025-06-18
and 2025-11-25 with the suite's 0.1.16 release (the active suite plus the pending
``json-schema-2020-12`` and ``server-sse-polling``) and with its 0.2.0 pre-release
(``conformance-next``), and 2026-07-28 with the pre-release (stateless requests, input rounds,
caching hints, header checks). A scenario
passes only with no FAILURE and no WARNING check. The scenario table is printed either way. The
extensions' scenarios (tasks, SEP-2663; skills, SEP-2640) are not part of ``--suite all``: each runs
on its own.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PEERS = ROOT / "tests" / "peers" / "node_modules"
NODE = PEERS / "node" / "bin" / "node"
RUNNER = PEERS / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
NEXT_RUNNER = PEERS / "conformance-next" / "dist" / "index.js"
#: Each spec version, with the releases of the suite that check it (the pre-release checks the
#: older versions too, with checks of its own).
RUNS = [
    ("2025-06-18", "0.1.16"),
    ("2025-11-25", "0.1.16"),
    ("2025-06-18", "0.2.0-pre"),
    ("2025-11-25", "0.2.0-pre"),
    ("2026-07-28", "0.2.0-pre"),
]
RUNNERS = {"0.1.16": RUNNER, "0.2.0-pre": NEXT_RUNNER}
RUN_TIMEOUT = 240.0

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SUMMARY_ROW = re.compile(r"^([✓✗]) ([\w/-]+): (\d+) passed, (\d+) failed", re.M)


class ProbeKit(tuple):
    """(url, stderr file) of the probe-kit the scenarios run against, and how it is doing."""

    proc: subprocess.Popen[str]

    def gone(self) -> str:
        """Why it stopped answering, when it did: its exit code and the end of its stderr."""
        if self.proc.poll() is None:
            return ""
        tail = self[1].read_text()[-2000:]
        return f"\nprobe-kit is gone (exit code {self.proc.returncode}); its stderr ends:\n{tail}"


@pytest.fixture(scope="module")
def probekit(tmp_path_factory: pytest.TempPathFactory):
    """probe-kit over HTTP in a child process; yields (url, stderr file); stopped afterwards."""
    if not (NODE.exists() and RUNNER.exists() and NEXT_RUNNER.exists()):
        pytest.fail(
            "node@22 and @modelcontextprotocol/conformance are missing: run `npm ci --prefix tests/peers`"
        )
    root = tmp_path_factory.mktemp("root")
    (root / "README.md").write_text("# A project for the conformance run\n")
    err = root.parent / "probekit-stderr.txt"
    args = [sys.executable, "-m", "mcpnb.probekit", "--http", "--port", "0", "--toolset", "full"]
    with err.open("w") as sink:
        proc = subprocess.Popen(
            [*args, "--root", str(root)], stdout=subprocess.PIPE, stderr=sink, text=True, cwd=ROOT
        )
    try:
        url = (proc.stdout.readline() if proc.stdout else "").strip()
        assert url.startswith("http://127.0.0.1:"), f"probe-kit did not print its URL: {err.read_text()}"
        kit = ProbeKit((url, err))
        kit.proc = proc
        yield kit
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def scenarios_for(version: str, runner: Path) -> list[str]:
    """The scenario names ``runner`` lists for ``version`` (the table must have exactly these)."""
    listed = subprocess.run(
        [str(NODE), str(runner), "list", "--server", "--spec-version", version],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    return re.findall(r"^\s+- ([\w/-]+) \[", listed, re.M)


def checks_by_scenario(out: Path) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for checks in out.glob("server-*/checks.json"):
        name = re.sub(r"-\d{4}-\d\d-\d\dT.*$", "", checks.parent.name.removeprefix("server-"))
        found[name] = json.loads(checks.read_text())
    return found


def table(rows: list[tuple[str, str, int, int, int]]) -> str:
    width = max(len(r[0]) for r in rows)
    lines = [f"{'scenario'.ljust(width)}  result  passed  failed  warnings"]
    for name, mark, passed, failed, warnings in rows:
        lines.append(f"{name.ljust(width)}  {mark:<6}  {passed:>6}  {failed:>6}  {warnings:>8}")
    return "\n".join(lines)


@pytest.mark.timeout(RUN_TIMEOUT + 30)
@pytest.mark.parametrize(("version", "release"), RUNS, ids=[f"{v}-{r}" for v, r in RUNS])
def test_server_suite_passes(version, release, probekit, tmp_path, capsys):
    url, stderr_file = probekit
    out = tmp_path / "results"
    env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"}
    runner = RUNNERS[release]
    args = [str(NODE), str(runner), "server", "--url", url, "--suite", "all", "--spec-version", version]
    run = subprocess.run(
        [*args, "-o", str(out)], capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env, cwd=ROOT
    )
    output = ANSI.sub("", run.stdout + run.stderr)
    summary = {m[2]: (m[1], int(m[3]), int(m[4])) for m in SUMMARY_ROW.finditer(output)}
    checks = checks_by_scenario(out)
    expected = scenarios_for(version, runner)
    rows = []
    for name in expected:
        mark, passed, failed = summary.get(name, ("?", 0, 0))
        warnings = sum(c["status"] == "WARNING" for c in checks.get(name, []))
        failed = max(failed, sum(c["status"] == "FAILURE" for c in checks.get(name, [])))
        rows.append(
            (
                name,
                "pass" if mark == "✓" and not failed and not warnings else "FAIL",
                passed,
                failed,
                warnings,
            )
        )
    report = (
        f"conformance {release} server --suite all --spec-version {version} (exit {run.returncode}):\n"
        f"{table(rows)}"
    )
    with capsys.disabled():
        print("\n" + report)

    assert len(expected) >= 25
    if version == "2025-11-25":
        assert {"json-schema-2020-12", "server-sse-polling"} <= set(expected)
    if version == "2026-07-28":
        assert {"server-stateless", "input-required-result-multi-round", "caching"} <= set(expected)
    bad = [r for r in rows if r[1] != "pass"]
    details = "\n".join(
        f"{c['id']}: {c['status']} {c.get('errorMessage') or ''}"
        for r in bad
        for c in checks.get(r[0], [])
        if c["status"] in ("FAILURE", "WARNING")
    )
    assert not bad and run.returncode == 0, f"{report}\n{details}\n{output[-3000:]}{probekit.gone()}"
    assert set(summary) == set(expected), f"the runner ran other scenarios than it lists:\n{output}"
    said = stderr_file.read_text()
    assert "Traceback" not in said, f"probe-kit printed a traceback for a client's request:\n{said}"


#: The extensions' scenarios: tasks (``tasks-status-notifications`` is left out: its notifications
#: are optional and probe-kit sends none, so it has no check to pass) and skills (SEP-2640, with its
#: optional ``resources/directory/read``, which probe-kit declares).
EXTENSION_SCENARIOS = [
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
]
#: Scenarios whose checks SKIP when a server does not declare what they test: every check must run.
OPTIONAL_FEATURES = {"sep-2640-skills-directory"}


@pytest.mark.timeout(RUN_TIMEOUT + 30)
@pytest.mark.parametrize("scenario", EXTENSION_SCENARIOS)
def test_extension_scenario_passes(scenario, probekit, tmp_path):
    url, stderr_file = probekit
    out = tmp_path / "results"
    env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"}
    args = [str(NODE), str(NEXT_RUNNER), "server", "--url", url, "--scenario", scenario, "-o", str(out)]
    run = subprocess.run(args, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env, cwd=ROOT)
    output = ANSI.sub("", run.stdout + run.stderr)
    checks = [c for found in checks_by_scenario(out).values() for c in found]
    bad = [
        f"{c['id']}: {c['status']} {c.get('errorMessage') or ''}"
        for c in checks
        if c["status"] in ("FAILURE", "WARNING")
    ]
    assert checks and not bad and run.returncode == 0, "\n".join([*bad, output[-3000:]]) + probekit.gone()
    if scenario in OPTIONAL_FEATURES:
        skipped = [f"{c['id']}: {c.get('errorMessage')}" for c in checks if c["status"] != "SUCCESS"]
        assert not skipped, "\n".join(skipped)
    assert "Traceback" not in stderr_file.read_text()
