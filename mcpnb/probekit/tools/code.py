"""Code family: review, security, perf, debug and fix over Python source, plus API docs and tests.

Each tool takes either ``source`` (text pasted in a cell) or ``path`` (a file or folder inside the
allowed root), so the same tool works on a snippet and on a project.
"""

import ast
import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcpnb.probekit import schemas
from mcpnb.probekit.paths import confine, is_inside, read_text
from mcpnb.probekit.responses import Payload, ProbeError, structured, text_table
from mcpnb.probekit.state import ProbeState
from mcpnb.probekit.tools.analysis import Finding, analyze, as_records, severity_counts

SKIP_DIRS = {
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    "build",
    "dist",
}
MAX_FILES = 300


def load_sources(root: Path, source: str | None, path: str | None) -> list[tuple[str, str]]:
    """``(name, text)`` pairs from pasted source, one file, or every ``.py`` file under a folder."""
    if (source is None) == (path is None):
        raise ProbeError(
            "Give exactly one of `source` (Python text) or `path` (a file or folder in the root)."
        )
    if source is not None:
        return [("<source>", source)]
    assert path is not None
    target = confine(root, path)
    if target.is_dir():
        out = []
        for file in sorted(target.rglob("*.py")):
            rel = file.relative_to(root.resolve())
            if SKIP_DIRS & set(rel.parts) or not is_inside(root, file):
                continue
            out.append((rel.as_posix(), file.read_text(encoding="utf-8", errors="replace")))
            if len(out) >= MAX_FILES:
                break
        return out
    _, text = read_text(root, path)
    return [(path, text)]


def run_findings(sources: list[tuple[str, str]], categories: set[str]) -> list[Finding]:
    found: list[Finding] = []
    for name, text in sources:
        found.extend(f for f in analyze(text, name) if f.category in categories)
    return found


def findings_payload(tool: str, target: str, found: list[Finding], related: list[dict[str, Any]]) -> Payload:
    records = as_records(found)
    counts = severity_counts(found)
    summary = ", ".join(f"{c['count']} {c['severity']}" for c in counts) or "no findings"
    text = f"{tool} on {target}: {summary}\n\n" + text_table(
        records, ["severity", "rule", "file", "line", "message"]
    )
    return Payload(
        {"tool": tool, "target": target, "findings": records, "counts": counts, "related": related}, text
    )


TRACE_RE = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def traceback_frames(error: str, sources: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Frames of a pasted traceback, with the source line when the file is one we analysed."""
    by_name = {Path(n).name: t.splitlines() for n, t in sources}
    frames = []
    for file, line, func in TRACE_RE.findall(error or ""):
        lines = by_name.get(Path(file).name) or (sources[0][1].splitlines() if len(sources) == 1 else [])
        n = int(line)
        code = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        frames.append({"file": file, "line": n, "function": func, "code": code})
    return frames


FIXES = {
    "R-NONE-COMPARE": [
        (re.compile(r"\s*==\s*None\b"), " is None"),
        (re.compile(r"\s*!=\s*None\b"), " is not None"),
    ],
    "R-BARE-EXCEPT": [(re.compile(r"\bexcept\s*:"), "except Exception:")],
    "S-YAML-LOAD": [(re.compile(r"\byaml\.load\("), "yaml.safe_load(")],
    "D-ASSERT-TUPLE": [(re.compile(r"\bassert\s*\((.*),\s*(.+)\)\s*$"), r"assert \1, \2")],
}


def apply_fixes(source: str, name: str) -> tuple[str, list[dict[str, Any]]]:
    """Apply the safe, mechanical fixes line by line; mutable defaults get a None guard."""
    lines = source.splitlines()
    changes: list[dict[str, Any]] = []
    found = analyze(source, name)
    for f in found:
        for pattern, repl in FIXES.get(f.rule, []):
            before = lines[f.line - 1]
            after = pattern.sub(repl, before)
            if after != before:
                lines[f.line - 1] = after
                changes.append(
                    {"rule": f.rule, "line": f.line, "before": before.strip(), "after": after.strip()}
                )
        if f.rule == "D-BREAKPOINT":
            before = lines[f.line - 1]
            indent = before[: len(before) - len(before.lstrip())]
            lines[f.line - 1] = f"{indent}pass  # breakpoint removed"
            changes.append({"rule": f.rule, "line": f.line, "before": before.strip(), "after": "pass"})
    fixed = "\n".join(lines) + ("\n" if source.endswith("\n") else "")
    fixed, more = _fix_mutable_defaults(fixed)
    return fixed, changes + more


def _fix_mutable_defaults(source: str) -> tuple[str, list[dict[str, Any]]]:
    tree = ast.parse(source)
    lines = source.splitlines()
    edits: list[tuple[int, str, str, str, int]] = []  # (def line, param, literal, indent, body line)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = node.args.args[len(node.args.args) - len(node.args.defaults) :]
        for param, default in zip(params, node.args.defaults, strict=True):
            if (
                isinstance(default, ast.List | ast.Dict | ast.Set)
                and not getattr(default, "elts", None)
                and not (isinstance(default, ast.Dict) and default.keys)
            ):
                body = node.body[1] if ast.get_docstring(node) and len(node.body) > 1 else node.body[0]
                indent = lines[body.lineno - 1][: body.col_offset]
                edits.append((default.lineno, param.arg, ast.unparse(default), indent, body.lineno))
    changes = []
    for def_line, param, literal, indent, body_line in sorted(edits, key=lambda e: -e[4]):
        before = lines[def_line - 1]
        lines[def_line - 1] = re.sub(
            rf"\b{param}(\s*(?::[^=]*)?)=\s*{re.escape(literal)}", rf"{param}\1=None", before
        )
        lines.insert(body_line - 1, f"{indent}if {param} is None:\n{indent}    {param} = {literal}")
        changes.append(
            {
                "rule": "R-MUTABLE-DEFAULT",
                "line": def_line,
                "before": before.strip(),
                "after": lines[def_line - 1].strip(),
            }
        )
    out = "\n".join(lines) + ("\n" if source.endswith("\n") else "")
    return out, sorted(changes, key=lambda c: c["line"])


def api_symbols(source: str, name: str) -> list[dict[str, Any]]:
    """Public functions, classes and methods with their signatures and first docstring line."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ProbeError(f"Could not parse {name}: line {exc.lineno}: {exc.msg}") from exc
    out = []

    def sig(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
        ret = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
        prefix = "async def" if isinstance(fn, ast.AsyncFunctionDef) else "def"
        return f"{prefix} {fn.name}({ast.unparse(fn.args)}){ret}"

    def doc(node: ast.AST) -> str:
        text = ast.get_docstring(node) or ""  # type: ignore[arg-type]
        return text.strip().splitlines()[0] if text.strip() else ""

    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not node.name.startswith("_"):
            out.append(
                {
                    "name": node.name,
                    "kind": "function",
                    "signature": sig(node),
                    "line": node.lineno,
                    "doc": doc(node),
                    "file": name,
                }
            )
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            out.append(
                {
                    "name": node.name,
                    "kind": "class",
                    "signature": f"class {node.name}({bases})",
                    "line": node.lineno,
                    "doc": doc(node),
                    "file": name,
                }
            )
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    not item.name.startswith("_") or item.name == "__init__"
                ):
                    out.append(
                        {
                            "name": f"{node.name}.{item.name}",
                            "kind": "method",
                            "signature": sig(item),
                            "line": item.lineno,
                            "doc": doc(item),
                            "file": name,
                        }
                    )
    return out


def api_markdown(symbols: list[dict[str, Any]]) -> str:
    lines = ["# API", ""]
    for s in symbols:
        lines += [
            f"## `{s['name']}`",
            "",
            f"```python\n{s['signature']}\n```",
            "",
            s["doc"] or "_No docstring._",
            "",
        ]
    return "\n".join(lines)


def pytest_skeleton(symbols: list[dict[str, Any]], module: str) -> tuple[list[dict[str, Any]], str]:
    """One pytest function per public function and class; methods are covered by their class test."""
    tests, blocks = (
        [],
        [
            f'"""Tests for {module} (generated by probe-kit gentest)."""',
            "",
            "import pytest",
            "",
            f"import {module}" if module.isidentifier() else f"# import {module}",
            "",
        ],
    )
    for s in symbols:
        if s["kind"] == "method":
            continue
        test = f"test_{s['name'].lower()}"
        tests.append({"test": test, "target": s["name"], "line": s["line"]})
        call = f"{module}.{s['name']}"
        blocks += [
            "",
            f"def {test}():",
            f'    """{s["signature"]}"""',
            '    pytest.skip("write the expected behaviour first")',
            f"    result = {call}(...)  # fill in arguments",
            "    assert result is not None",
            "",
        ]
    return tests, "\n".join(blocks).rstrip() + "\n"


def tools(state: ProbeState) -> list[Callable[..., Any]]:
    """The code family bound to this server's allowed root."""

    def _findings(tool: str, categories: set[str], source: str | None, path: str | None) -> Payload:
        sources = load_sources(state.root, source, path)
        return findings_payload(tool, path or "<source>", run_findings(sources, categories), [])

    @structured(schemas.FINDINGS)
    def code_review(source: str | None = None, path: str | None = None) -> Payload:
        """Review Python code: bare excepts, mutable defaults, None comparisons, long functions, missing
        docstrings, plus the security, performance and debugging rules."""
        return _findings("code_review", {"review", "security", "perf", "debug"}, source, path)

    @structured(schemas.FINDINGS)
    def security_scan(source: str | None = None, path: str | None = None) -> Payload:
        """Find security problems: eval/exec, shell=True, os.system, hard-coded secrets, SQL built from
        strings, pickle/yaml loading, TLS verification off."""
        return _findings("security_scan", {"security"}, source, path)

    @structured(schemas.FINDINGS)
    def perf(source: str | None = None, path: str | None = None) -> Payload:
        """Find performance smells: nested loops, string += in loops, range(len()), append-only loops."""
        return _findings("perf", {"perf"}, source, path)

    @structured(schemas.FINDINGS)
    def debug(source: str | None = None, path: str | None = None, error: str | None = None) -> Payload:
        """Find likely bugs (breakpoints, swallowed exceptions, 'is' with literals, unreachable code) and,
        given a traceback in `error`, point at the lines it went through."""
        sources = load_sources(state.root, source, path)
        found = run_findings(sources, {"debug"}) + [
            f for f in run_findings(sources, {"review"}) if f.rule in {"R-BARE-EXCEPT", "R-NONE-COMPARE"}
        ]
        found.sort(key=lambda f: (f.file, f.line, f.rule))
        return findings_payload("debug", path or "<source>", found, traceback_frames(error or "", sources))

    @structured(schemas.FIX_RESULT)
    def fix(source: str | None = None, path: str | None = None) -> Payload:
        """Apply safe mechanical fixes (is None, except Exception, yaml.safe_load, mutable defaults,
        breakpoints) and return the fixed source and a diff. Files are never written."""
        sources = load_sources(state.root, source, path)
        if len(sources) != 1:
            raise ProbeError("fix works on one file at a time; give `source` or the path of a .py file.")
        name, text = sources[0]
        fixed, changes = apply_fixes(text, name)
        remaining = as_records(analyze(fixed, name))
        diff = "".join(
            difflib.unified_diff(text.splitlines(True), fixed.splitlines(True), f"a/{name}", f"b/{name}")
        )
        summary = f"{len(changes)} change(s), {len(remaining)} finding(s) remain\n\n"
        data = {
            "target": name,
            "changes": changes,
            "remaining": remaining,
            "fixedSource": fixed,
            "diff": diff,
        }
        return Payload(data, summary + (diff or "(no changes)"))

    @structured(schemas.API_DOC)
    def genapi(source: str | None = None, path: str | None = None) -> Payload:
        """Extract public functions, classes and methods with signatures and docstrings (as a table and
        as Markdown)."""
        symbols = [
            s for name, text in load_sources(state.root, source, path) for s in api_symbols(text, name)
        ]
        md = api_markdown(symbols)
        data = {"target": path or "<source>", "symbols": symbols, "markdown": md}
        return Payload(data, text_table(symbols, ["kind", "name", "line", "signature"]))

    @structured(schemas.TEST_SKELETON)
    def gentest(source: str | None = None, path: str | None = None, module: str | None = None) -> Payload:
        """Emit a pytest skeleton with one (skipped) test per public function and class found."""
        sources = load_sources(state.root, source, path)
        symbols = [s for name, text in sources for s in api_symbols(text, name)]
        mod = module or (Path(path).stem if path and path.endswith(".py") else "module_under_test")
        tests, code = pytest_skeleton(symbols, mod)
        return Payload({"target": path or "<source>", "module": mod, "tests": tests, "code": code}, code)

    return [code_review, security_scan, perf, debug, fix, genapi, gentest]
