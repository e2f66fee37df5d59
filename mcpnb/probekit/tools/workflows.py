"""Workflows (``start_*``): run a chain of the other tools' logic and report every step.

Each step really runs (scans, analyses, generates), reports progress, and contributes outputs,
artifacts, risks and next actions to one ``WorkflowReport``. The original returned instructions
for an AI to follow; here a person can read what was done.

The step runner lives in :mod:`.steps`; this module is long because it holds the ten workflows side by
side, each a short list of steps, which reads best in one place.
"""

import difflib
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from mcp import types
from pydantic import Field

from mcpnb.probekit import schemas
from mcpnb.probekit.paths import confine, read_text
from mcpnb.probekit.responses import ProbeError
from mcpnb.probekit.runio import RunIO, task_tool
from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.tools import code, git, planning, scan, ui
from mcpnb.probekit.tools.analysis import analyze, severity_counts
from mcpnb.probekit.tools.steps import Step, StepOut, bump, findings_actions, preview, run_steps


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The ten start_* workflows, each a list of steps over the other families' logic."""
    root = state.root

    def scan_step(path: str) -> Step:
        def run(bag: dict[str, Any]) -> StepOut:
            bag["scan"] = scan.scan(root, path)
            t = bag["scan"]["totals"]
            return StepOut(f"{t['files']} files, {t['lines']} lines, {len(bag['scan']['dependencies'])} deps")

        return ("scan project", path, run)

    def findings_step(label: str, path: str, cats: set[str]) -> Step:
        def run(bag: dict[str, Any]) -> StepOut:
            found = code.run_findings(code.load_sources(root, None, path), cats)
            bag.setdefault("findings", []).extend(found)
            counts = ", ".join(f"{c['count']} {c['severity']}" for c in severity_counts(found)) or "none"
            risks = (
                [
                    {
                        "level": "high",
                        "description": f"{sum(f.severity == 'high' for f in found)} high-severity "
                        f"{label} findings",
                        "mitigation": "fix them before merging",
                    }
                ]
                if any(f.severity == "high" for f in found)
                else []
            )
            return StepOut(f"{len(found)} findings ({counts})", risks=risks, actions=findings_actions(found))

        return (label, path, run)

    async def start_feature(io: RunIO, feature: str, path: str = ".") -> types.CallToolResult:
        """Workflow: scan the project, find the files a feature touches, estimate it, draft tests."""

        def plan(bag: dict[str, Any]) -> StepOut:
            bag["plan"] = planning.plan_feature(root, feature, path)
            c = bag["plan"]["candidates"]
            return StepOut(
                f"{len(c)} candidate files: " + ", ".join(x["path"] for x in c[:3]),
                actions=[
                    {"priority": s["order"], "action": s["action"], "reason": "from the plan"}
                    for s in bag["plan"]["steps"]
                ],
            )

        def est(bag: dict[str, Any]) -> StepOut:
            e = planning.estimate_task(feature, files=max(1, len(bag["plan"]["candidates"][:5])))
            return StepOut(
                f"{e['points']} points, expected {e['expected']} h",
                risks=[
                    {
                        "level": "medium",
                        "description": "estimate spread is wide",
                        "mitigation": "split the feature",
                    }
                ]
                if e["pessimistic"] > 3 * e["optimistic"]
                else [],
            )

        def tests(bag: dict[str, Any]) -> StepOut:
            py = [c["path"] for c in bag["plan"]["candidates"] if c["path"].endswith(".py")]
            if not py:
                return StepOut("no Python file to test", notes="skipped test skeleton")
            rel = (Path(path) / py[0]).as_posix()
            _, text = read_text(root, rel)
            tests_, src = code.pytest_skeleton(code.api_symbols(text, rel), Path(py[0]).stem)
            return StepOut(
                f"{len(tests_)} test stubs for {py[0]}",
                artifacts=[
                    {
                        "type": "test",
                        "path": f"tests/test_{Path(py[0]).stem}.py",
                        "description": "pytest skeleton",
                        "contentPreview": preview(src),
                    }
                ],
            )

        steps = [
            scan_step(path),
            ("plan feature", feature, plan),
            ("estimate", feature, est),
            ("draft tests", path, tests),
        ]
        return await run_steps("start_feature", feature, steps, io)

    async def start_onboard(io: RunIO, path: str = ".") -> types.CallToolResult:
        """Workflow: scan, write the project context, list the public API, summarise code health."""

        def context(bag: dict[str, Any]) -> StepOut:
            ctx = scan.project_context(root, path)
            return StepOut(
                f"{ctx['name']}: {ctx['primaryLanguage']}",
                artifacts=[
                    {
                        "type": "doc",
                        "path": "CONTEXT.md",
                        "description": "project context",
                        "contentPreview": preview(ctx["contextMarkdown"]),
                    }
                ],
            )

        def api(bag: dict[str, Any]) -> StepOut:
            syms = [s for n, t in code.load_sources(root, None, path) for s in code.api_symbols(t, n)]
            return StepOut(
                f"{len(syms)} public symbols",
                actions=[
                    {"priority": 3, "action": "read the API table", "reason": f"{len(syms)} entry points"}
                ],
            )

        steps = [
            scan_step(path),
            ("project context", path, context),
            ("public API", path, api),
            findings_step("code health", path, {"review", "security"}),
        ]
        return await run_steps("start_onboard", path, steps, io)

    async def start_bugfix(io: RunIO, path: str = ".", error: str = "") -> types.CallToolResult:
        """Workflow: read the traceback, find likely bugs near it, propose mechanical fixes, draft a test."""

        def locate(bag: dict[str, Any]) -> StepOut:
            sources = code.load_sources(root, None, path)
            bag["frames"] = code.traceback_frames(error, sources)
            found = code.run_findings(sources, {"debug", "review"})
            lines = {(Path(f["file"]).name, f["line"]) for f in bag["frames"]}
            near = [
                f for f in found if any(Path(f.file).name == n and abs(f.line - ln) <= 3 for n, ln in lines)
            ]
            bag["near"] = near or found
            return StepOut(
                f"{len(bag['frames'])} frames, {len(near)} findings near them, {len(found)} in total",
                actions=findings_actions(bag["near"]),
            )

        def propose(bag: dict[str, Any]) -> StepOut:
            # findings name files relative to the root (folders) or as given (one file)
            files = [path] if confine(root, path).is_file() else [f.file for f in bag["near"][:1]]
            if not files:
                return StepOut("nothing to fix mechanically", notes="no Python file with findings")
            rel = files[0]
            _, text = read_text(root, rel)
            fixed, changes = code.apply_fixes(text, rel)
            diff = "".join(
                difflib.unified_diff(text.splitlines(True), fixed.splitlines(True), f"a/{rel}", f"b/{rel}")
            )
            return StepOut(
                f"{len(changes)} change(s) proposed in {rel}",
                artifacts=[
                    {
                        "type": "code",
                        "path": rel,
                        "description": "proposed patch (not applied)",
                        "contentPreview": preview(diff),
                    }
                ]
                if changes
                else [],
            )

        steps = [("locate", preview(error, 80) or path, locate), ("propose fix", path, propose)]
        return await run_steps("start_bugfix", path, steps, io)

    async def start_ui(
        io: RunIO, description: str, framework: str = "html", brand_color: str = "#3366ff"
    ) -> types.CallToolResult:
        """Workflow: check the component catalog, search it, derive design tokens, compose the
        components, and render them into one HTML preview page (returned as the last artifact)."""
        cat = ui.load_catalog()[0]

        def init_catalog(bag: dict[str, Any]) -> StepOut:  # the design's init_component_catalog
            problems = ui.validate_catalog(cat)
            if problems:
                raise ProbeError("The catalog is inconsistent: " + "; ".join(problems[:5]))
            return StepOut(f"catalog {cat['version']}: {len(cat['components'])} components, sound")

        def render(bag: dict[str, Any]) -> StepOut:  # the design's render_ui
            comps = {c["id"]: c for c in cat["components"]}
            page = ui.render_page([comps[h["id"]] for h in bag["hits"]], brand_color, description[:60])
            bag["preview"] = page
            return StepOut(
                [f"preview.html: {len(bag['hits'])} components, {len(page)} characters"],
                artifacts=[
                    {
                        "type": "file",
                        "path": "preview.html",
                        "description": "the rendered preview page (complete)",
                        "contentPreview": page,
                    }
                ],
            )

        def find(bag: dict[str, Any]) -> StepOut:
            bag["hits"] = [h for seg in ui.segments(description) for h in ui.search(cat, seg, limit=1)]
            return StepOut(", ".join(h["id"] for h in bag["hits"]) or "no match")

        def tokens(bag: dict[str, Any]) -> StepOut:
            bag["tokens"] = ui.design_tokens("app", brand_color, 16, 1.25)
            return StepOut(
                f"{len(bag['tokens'])} tokens",
                artifacts=[
                    {
                        "type": "config",
                        "path": "tokens.css",
                        "description": "design tokens",
                        "contentPreview": preview(ui.tokens_css(bag["tokens"])),
                    }
                ],
            )

        def compose(bag: dict[str, Any]) -> StepOut:
            if not bag["hits"]:
                raise ProbeError("no catalog component matched the description")
            comps = {c["id"]: c for c in cat["components"]}
            files = [ui.component_code(comps[h["id"]], framework, None) for h in bag["hits"]]
            return StepOut(
                f"{len(files)} component files",
                artifacts=[
                    {
                        "type": "code",
                        "path": p,
                        "description": f"{lang} component",
                        "contentPreview": preview(src),
                    }
                    for p, lang, src in files
                ],
                actions=[
                    {
                        "priority": 2,
                        "action": "wire the components to data",
                        "reason": "they render static props",
                    }
                ],
            )

        steps: list[Step] = [
            ("init component catalog", {"catalog": "bundled"}, init_catalog),
            ("search catalog", {"description": description}, find),
            ("design tokens", {"brand_color": brand_color}, tokens),
            ("compose", {"framework": framework}, compose),
            ("render preview", {"brand_color": brand_color, "title": description[:60]}, render),
        ]
        page = lambda bag: f"\n\nPreview (preview.html):\n{bag['preview']}" if "preview" in bag else ""  # noqa: E731
        return await run_steps("start_ui", description, steps, io, tail=page)

    async def start_ralph(io: RunIO, path: str, max_iterations: int = 5) -> types.CallToolResult:
        """Workflow: the "Ralph loop" — analyse, apply safe fixes, repeat until nothing changes."""
        _, original = read_text(root, path)

        def iteration(n: int) -> Step:
            def run(bag: dict[str, Any]) -> StepOut:
                src = bag.get("src", original)
                if bag.get("stable"):
                    return StepOut("already stable", notes="no further change")
                fixed, changes = code.apply_fixes(src, path)
                bag["src"], bag["stable"] = fixed, not changes
                left = len(analyze(fixed, path))
                return StepOut(f"{len(changes)} change(s); {left} finding(s) left")

            return (f"iteration {n}", path, run)

        def result(bag: dict[str, Any]) -> StepOut:
            diff = "".join(
                difflib.unified_diff(original.splitlines(True), bag.get("src", original).splitlines(True))
            )
            return StepOut(
                "stable" if bag.get("stable") else "stopped at the iteration limit",
                artifacts=[
                    {
                        "type": "code",
                        "path": path,
                        "description": "patch (not applied)",
                        "contentPreview": preview(diff),
                    }
                ],
            )

        steps = [iteration(i + 1) for i in range(max(1, min(max_iterations, 20)))] + [
            ("result", path, result)
        ]
        return await run_steps("start_ralph", path, steps, io)

    async def start_review(io: RunIO, path: str = ".", diff: str | None = None) -> types.CallToolResult:
        """Workflow: review, security scan and performance pass over a path; commit message for a diff."""
        steps = [
            findings_step("code review", path, {"review", "debug"}),
            findings_step("security scan", path, {"security"}),
            findings_step("performance", path, {"perf"}),
        ]
        if diff:

            def commit(bag: dict[str, Any]) -> StepOut:
                msg = git.build_commit(diff).data
                return StepOut(
                    msg["finalMessage"].splitlines()[0],
                    risks=[{"level": "high", "description": "breaking change", "mitigation": "announce it"}]
                    if msg["breaking"]
                    else [],
                )

            steps.append(("commit message", "diff", commit))
        return await run_steps("start_review", path, steps, io)

    async def start_release(
        io: RunIO, version: str, commits: list[str] | None = None, path: str = "."
    ) -> types.CallToolResult:
        """Workflow: collect commits (given or git log), bump the version by semver, write the changelog."""

        def collect(bag: dict[str, Any]) -> StepOut:
            pairs = [("", c) for c in commits] if commits else git.git_log(root, confine(root, path))
            bag["entries"] = git.parse_commits(pairs)
            return StepOut(f"{len(bag['entries'])} commits")

        def next_version(bag: dict[str, Any]) -> StepOut:
            bag["next"] = bump(version, bag["entries"])
            return StepOut(
                f"{version} -> {bag['next']}",
                actions=[
                    {"priority": 1, "action": f"tag v{bag['next']}", "reason": "semver from commit types"}
                ],
            )

        def changelog(bag: dict[str, Any]) -> StepOut:
            md = git.build_changelog(bag["entries"], bag["next"], "given" if commits else "git").text
            return StepOut(
                f"{md.count(chr(10))} lines",
                artifacts=[
                    {
                        "type": "doc",
                        "path": "CHANGELOG.md",
                        "description": f"changelog for {bag['next']}",
                        "contentPreview": preview(md),
                    }
                ],
            )

        steps = [
            ("collect commits", path, collect),
            ("next version", version, next_version),
            ("changelog", version, changelog),
        ]
        return await run_steps("start_release", version, steps, io)

    async def start_refactor(io: RunIO, path: str = ".") -> types.CallToolResult:
        """Workflow: find refactoring targets (long functions, many arguments, smells)."""
        steps = [findings_step("structure", path, {"review"}), findings_step("performance", path, {"perf"})]
        return await run_steps("start_refactor", path, steps, io)

    async def start_api(io: RunIO, path: str = ".") -> types.CallToolResult:
        """Workflow: extract the public API, generate mock arguments from annotations, draft tests."""

        def extract(bag: dict[str, Any]) -> StepOut:
            bag["symbols"] = [
                s for n, t in code.load_sources(root, None, path) for s in code.api_symbols(t, n)
            ]
            return StepOut(f"{len(bag['symbols'])} public symbols")

        def mocks(bag: dict[str, Any]) -> StepOut:
            rng = random.Random(0)
            kinds = {
                "int": {"type": "integer"},
                "str": {"type": "string"},
                "float": {"type": "number"},
                "bool": {"type": "boolean"},
            }
            rows = []
            for s in bag["symbols"]:
                if s["kind"] == "function":
                    args = re.findall(r"(\w+): (int|str|float|bool)", s["signature"])
                    call_args = ", ".join(f"{a}={planning.mock_value(kinds[t], rng, a)!r}" for a, t in args)
                    rows.append(f"{s['name']}({call_args})")
            return StepOut(
                f"{len(rows)} example calls",
                artifacts=[
                    {
                        "type": "code",
                        "path": "examples.py",
                        "description": "example calls with mock arguments",
                        "contentPreview": preview("\n".join(rows)),
                    }
                ],
            )

        def tests(bag: dict[str, Any]) -> StepOut:
            t, src = code.pytest_skeleton(
                bag["symbols"], Path(path).stem if path.endswith(".py") else "module_under_test"
            )
            return StepOut(
                f"{len(t)} test stubs",
                artifacts=[
                    {
                        "type": "test",
                        "path": "tests/test_api.py",
                        "description": "pytest skeleton",
                        "contentPreview": preview(src),
                    }
                ],
            )

        steps = [
            ("extract API", path, extract),
            ("mock arguments", path, mocks),
            ("draft tests", path, tests),
        ]
        return await run_steps("start_api", path, steps, io)

    async def start_doc(io: RunIO, path: str = ".") -> types.CallToolResult:
        """Workflow: project context plus API reference, assembled into one Markdown document."""

        def doc(bag: dict[str, Any]) -> StepOut:
            ctx = scan.project_context(root, path)
            syms = [s for n, t in code.load_sources(root, None, path) for s in code.api_symbols(t, n)]
            md = ctx["contextMarkdown"] + "\n" + code.api_markdown(syms)
            return StepOut(
                f"{len(md.splitlines())} lines of Markdown",
                artifacts=[
                    {
                        "type": "doc",
                        "path": "docs/index.md",
                        "description": "generated documentation",
                        "contentPreview": preview(md),
                    }
                ],
                actions=[
                    {
                        "priority": 2,
                        "action": "add docstrings where missing",
                        "reason": "the API section shows them",
                    }
                ],
            )

        steps = [scan_step(path), ("write docs", path, doc)]
        return await run_steps("start_doc", path, steps, io)

    runners = [
        start_feature,
        start_onboard,
        start_bugfix,
        start_ui,
        start_ralph,
        start_review,
        start_release,
        start_refactor,
        start_api,
        start_doc,
    ]
    out = []
    for runner in runners:
        _cap_copied(runner)
        tool = task_tool(runner)
        tool.__name__ = runner.__name__
        tool.output_schema = dict(schemas.WORKFLOW_REPORT)  # type: ignore[attr-defined]
        out.append(tool)
    return out


#: The longest each text argument a workflow copies into its report may be (and so into its task's
#: record, which the store keeps and every tasks/get reads): said as ``maxLength`` in the schema,
#: so a client knows before it sends, and checked on every call.
COPIED_CAPS = {
    "path": 500,
    "feature": 2000,
    "description": 2000,
    "framework": 100,
    "brand_color": 100,
    "version": 100,
    "error": 50_000,
    "diff": 200_000,
}
#: At most this many commit messages, each at most this long (``start_release``).
MAX_COMMITS, MAX_COMMIT = 1000, 2000


def _cap_copied(runner: Callable[..., Any]) -> None:
    """Give ``runner``'s text arguments their :data:`COPIED_CAPS` (their schema's ``maxLength``)."""
    hints = runner.__annotations__
    for name, cap in COPIED_CAPS.items():
        if name not in hints:
            continue
        capped = Annotated[str, Field(max_length=cap)]
        hints[name] = capped | None if hints[name] == (str | None) else capped
    if "commits" in hints:
        item = Annotated[str, Field(max_length=MAX_COMMIT)]
        hints["commits"] = Annotated[list[item], Field(max_length=MAX_COMMITS)] | None  # type: ignore[valid-type]
