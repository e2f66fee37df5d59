"""Project family: scan a folder, write a context summary, plan a feature, estimate, mock data.

These give a notebook real tables about a real tree (files by language, dependencies from the
manifests), which is what a person exploring a server wants to see first.
"""

import json
import random
from collections.abc import Callable
from typing import Any

from mcpnb.probekit import schemas
from mcpnb.probekit.responses import Payload, ProbeError, structured, text_table
from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.tools.planning import estimate_task, mock_value, plan_feature
from mcpnb.probekit.tools.scan import project_context, scan


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The project family bound to this server's allowed root."""

    @structured(schemas.PROJECT_SCAN)
    def analyze_project(path: str = ".") -> Payload:
        """Scan a folder inside the allowed root: files, sizes and lines by language, and the dependencies
        declared in pyproject.toml, requirements*.txt and package.json."""
        data = scan(state.root, path)
        text = (
            f"{data['totals']['files']} files, {data['totals']['lines']} lines in {path}\n\n"
            + text_table(data["languages"], ["language", "files", "bytes", "lines"])
            + "\n\nDependencies:\n"
            + text_table(data["dependencies"], ["name", "spec", "source", "dev"])
        )
        return Payload(data, text)

    @structured(schemas.PROJECT_CONTEXT)
    def init_project_context(path: str = ".") -> Payload:
        """Write a short project context (name, main language, dependencies, install/test commands) as
        Markdown, ready to paste into a README or an agent's context file. Nothing is written to disk."""
        data = project_context(state.root, path)
        return Payload(data, data["contextMarkdown"])

    @structured(schemas.FEATURE_PLAN)
    def add_feature(feature: str, path: str = ".") -> Payload:
        """Plan a feature: keywords, the files that mention them (ranked), and the steps to take."""
        data = plan_feature(state.root, feature, path)
        return Payload(
            data,
            text_table(data["candidates"], ["path", "score", "matches"])
            + "\n\nSteps:\n"
            + text_table(data["steps"], ["order", "action", "path"]),
        )

    @structured(schemas.ESTIMATE)
    def estimate(task: str, files: int = 1, unknowns: int = 0) -> Payload:
        """Estimate a task in hours (optimistic/likely/pessimistic, PERT expected) and story points."""
        data = estimate_task(task, files, unknowns)
        return Payload(
            data,
            f"{data['points']} points; expected {data['expected']} h "
            f"({data['optimistic']}–{data['pessimistic']} h)\n\n"
            + text_table(data["factors"], ["factor", "weight", "reason"]),
        )

    @structured(schemas.MOCK_DATA)
    def gen_mock(schema: dict[str, Any], count: int = 5, seed: int = 0) -> Payload:
        """Generate `count` mock records from a JSON Schema; the same seed gives the same records."""
        if not 0 < count <= 1000:
            raise ProbeError("`count` must be between 1 and 1000.")
        rng = random.Random(seed)
        records = [mock_value(schema, rng) for _ in range(count)]
        flat = [r for r in records if isinstance(r, dict)]
        cols = list(flat[0])[:6] if flat else []
        text = text_table(flat, cols) if cols else json.dumps(records, indent=1)
        return Payload({"seed": seed, "count": count, "records": records}, text)

    return [analyze_project, init_project_context, add_feature, estimate, gen_mock]
