"""Static analysis of Python source with ``ast``: the findings behind review, security, perf, debug.

Rules are plain and explainable (each finding names its rule, line and a suggestion), so a class
can read the rule that fired instead of trusting a score.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

SECRET_NAME = re.compile(r"(pass(word|wd)?|secret|token|api_?key|private_?key|credentials?)$", re.I)
SQL_WORDS = re.compile(r"\b(select|insert|update|delete|drop|create|alter)\b", re.I)
MUTABLE_CALLS = {"list", "dict", "set"}
SHADOWED = {n for n in dir(builtins) if not n.startswith("_") and n.islower()} - {
    "copyright",
    "credits",
    "license",
}
SEVERITY_ORDER = ["critical", "high", "medium", "low", "info"]


RULES: dict[str, tuple[str, str, str]] = {
    "S-EVAL": (
        "security",
        "high",
        "Parse the input instead (ast.literal_eval, json.loads) or dispatch on known names.",
    ),
    "S-SHELL": ("security", "high", "Pass a list of arguments and drop shell=True."),
    "S-OS-SYSTEM": ("security", "medium", "Use subprocess.run([...]) with a list of arguments."),
    "S-PICKLE": ("security", "medium", "Use json or a schema-checked format for data you did not produce."),
    "S-YAML-LOAD": ("security", "medium", "Use yaml.safe_load()."),
    "S-TLS-VERIFY": ("security", "medium", "Keep verify=True; point it at a CA bundle if needed."),
    "S-SQL-STRING": (
        "security",
        "high",
        "Use query parameters: cursor.execute('... WHERE id = ?', (value,)).",
    ),
    "D-BREAKPOINT": ("debug", "high", "Remove it before committing."),
    "D-PRINT": ("debug", "info", "Use logging so the output can be switched off."),
    "R-SHADOW-BUILTIN": ("review", "low", "Pick another name."),
    "S-HARDCODED-SECRET": ("security", "high", "Read it from the environment or a secrets manager."),
    "P-STR-CONCAT-LOOP": ("perf", "low", "Collect parts in a list and ''.join() them once."),
    "P-NESTED-LOOP": ("perf", "medium", "Index the inner data in a dict/set first, or use itertools."),
    "R-MUTABLE-DEFAULT": ("review", "medium", "Default to None and create the object inside the function."),
    "R-TOO-MANY-ARGS": ("review", "low", "Group related arguments into a dataclass."),
    "R-LONG-FUNCTION": ("review", "low", "Split it into smaller functions."),
    "R-NO-DOCSTRING": ("review", "info", "Say why it exists in one line."),
    "D-UNREACHABLE": ("debug", "low", "Remove it or move it before the jump."),
    "P-RANGE-LEN": ("perf", "low", "Iterate directly, or use enumerate()."),
    "P-APPEND-LOOP": ("perf", "info", "A list comprehension is shorter and faster."),
    "R-NONE-COMPARE": ("review", "low", "Use 'is None' / 'is not None'."),
    "D-IS-LITERAL": ("debug", "medium", "Use == for strings and numbers."),
    "P-LIST-MEMBERSHIP": ("perf", "low", "Use a set literal."),
    "R-BARE-EXCEPT": ("review", "medium", "Catch the specific exception, or at least 'except Exception:'."),
    "D-SWALLOWED-EXCEPTION": ("debug", "medium", "Log it or handle it; a silent pass hides bugs."),
    "D-ASSERT-TUPLE": ("debug", "high", "Write 'assert cond, message' without parentheses."),
}
"""rule -> (category, severity, suggestion)."""


@dataclass(frozen=True)
class Finding:
    """One rule hit: flat on purpose, so a list of them is a table."""

    rule: str
    category: str
    severity: str
    file: str
    line: int
    message: str
    suggestion: str


def _call_name(node: ast.Call) -> str:
    """Dotted name of what is called (``subprocess.run``), or '' when it is not a plain name."""
    parts: list[str] = []
    cur: ast.AST = node.func
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if isinstance(cur, ast.Name):
        parts.append(cur.id)
        return ".".join(reversed(parts))
    return ".".join(reversed(parts))


def _is_dynamic_string(node: ast.AST) -> bool:
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"


def _string_text(node: ast.AST) -> str:
    return " ".join(
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    )


class _Analyzer(ast.NodeVisitor):
    def __init__(self, filename: str) -> None:
        self.file = filename
        self.findings: list[Finding] = []
        self.loop_depth = 0

    def add(self, node: ast.AST, rule: str, message: str) -> None:
        category, severity, suggestion = RULES[rule]
        if rule == "P-NESTED-LOOP" and self.loop_depth >= 2:
            severity = "high"
        line = getattr(node, "lineno", 0)
        self.findings.append(Finding(rule, category, severity, self.file, line, message, suggestion))

    # --- calls: security and debug -------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        name = _call_name(node)
        short = name.rsplit(".", 1)[-1]
        if name in {"eval", "exec"}:
            self.add(node, "S-EVAL", f"{name}() runs arbitrary code")
        if any(
            k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in node.keywords
        ):
            self.add(node, "S-SHELL", f"{name or 'call'}(..., shell=True) lets input reach a shell")
        if name in {"os.system", "os.popen"}:
            self.add(node, "S-OS-SYSTEM", f"{name}() runs a shell command")
        if name in {"pickle.loads", "pickle.load", "marshal.loads"}:
            self.add(node, "S-PICKLE", f"{name}() can execute code from untrusted data")
        if name == "yaml.load" and not any(k.arg == "Loader" for k in node.keywords) and len(node.args) < 2:
            self.add(node, "S-YAML-LOAD", "yaml.load() without a Loader can build objects")
        if any(
            k.arg == "verify" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in node.keywords
        ):
            self.add(node, "S-TLS-VERIFY", "TLS certificate checking is switched off")
        if (
            short in {"execute", "executemany", "raw"}
            and node.args
            and _is_dynamic_string(node.args[0])
            and SQL_WORDS.search(_string_text(node.args[0]))
        ):
            self.add(node, "S-SQL-STRING", "SQL built from strings can be injected")
        if name in {"breakpoint", "pdb.set_trace", "ipdb.set_trace"}:
            self.add(node, "D-BREAKPOINT", f"{name}() left in the code stops the program")
        if name == "print":
            self.add(node, "D-PRINT", "print() used for diagnostics")
        self.generic_visit(node)

    # --- assignments: secrets, shadowing, string building ----------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self._check_secret(node, target.id, node.value)
                if target.id in SHADOWED:
                    self.add(node, "R-SHADOW-BUILTIN", f"'{target.id}' hides the builtin")
        self.generic_visit(node)

    def _check_secret(self, node: ast.AST, name: str, value: ast.AST) -> None:
        if (
            SECRET_NAME.search(name)
            and isinstance(value, ast.Constant)
            and isinstance(value.value, str)
            and len(value.value) >= 6
            and not value.value.startswith(("${", "<"))
        ):
            self.add(node, "S-HARDCODED-SECRET", f"'{name}' holds a hard-coded secret")

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if (
            self.loop_depth
            and isinstance(node.op, ast.Add)
            and (
                isinstance(node.value, ast.JoinedStr)
                or (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
            )
        ):
            self.add(node, "P-STR-CONCAT-LOOP", "string built with += inside a loop")
        self.generic_visit(node)

    # --- functions: defaults, size, docs ----------------------------------------------------------
    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = node.args
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            mutable = isinstance(default, ast.List | ast.Dict | ast.Set) or (
                isinstance(default, ast.Call) and _call_name(default) in MUTABLE_CALLS
            )
            if mutable:
                self.add(
                    default,
                    "R-MUTABLE-DEFAULT",
                    f"{node.name}() has a mutable default argument shared between calls",
                )
        n_args = (
            len(args.args)
            + len(args.kwonlyargs)
            - (1 if args.args and args.args[0].arg in {"self", "cls"} else 0)
        )
        if n_args > 6:
            self.add(node, "R-TOO-MANY-ARGS", f"{node.name}() takes {n_args} arguments")
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        if length > 50:
            self.add(node, "R-LONG-FUNCTION", f"{node.name}() is {length} lines long")
        if not node.name.startswith("_") and ast.get_docstring(node) is None:
            self.add(node, "R-NO-DOCSTRING", f"{node.name}() has no docstring")
        saved, self.loop_depth = self.loop_depth, 0
        self._unreachable(node.body)
        self.generic_visit(node)
        self.loop_depth = saved

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _unreachable(self, body: list[ast.stmt]) -> None:
        for i, stmt in enumerate(body[:-1]):
            if isinstance(stmt, ast.Return | ast.Raise | ast.Continue | ast.Break):
                self.add(body[i + 1], "D-UNREACHABLE", "code after a return/raise never runs")
                break

    # --- loops ----------------------------------------------------------------------------------
    def _loop(self, node: ast.For | ast.While | ast.AsyncFor) -> None:
        if self.loop_depth >= 1:
            self.add(node, "P-NESTED-LOOP", f"loop nested {self.loop_depth + 1} deep")
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and _call_name(node.iter) == "range":
            inner = node.iter.args[0] if len(node.iter.args) == 1 else None
            if isinstance(inner, ast.Call) and _call_name(inner) == "len":
                self.add(node, "P-RANGE-LEN", "for i in range(len(...)) indexes manually")
        if (
            isinstance(node, ast.For)
            and len(node.body) == 1
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Call)
            and isinstance(node.body[0].value.func, ast.Attribute)
            and node.body[0].value.func.attr == "append"
        ):
            self.add(node, "P-APPEND-LOOP", "loop only appends to a list")
        self.loop_depth += 1
        self.generic_visit(node)
        self.loop_depth -= 1

    visit_For = _loop
    visit_While = _loop
    visit_AsyncFor = _loop

    # --- comparisons, exceptions, asserts -----------------------------------------------------------
    def visit_Compare(self, node: ast.Compare) -> None:
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, ast.Eq | ast.NotEq) and isinstance(right, ast.Constant) and right.value is None:
                self.add(node, "R-NONE-COMPARE", "comparison to None with ==/!=")
            if (
                isinstance(op, ast.Is | ast.IsNot)
                and isinstance(right, ast.Constant)
                and isinstance(right.value, str | int | float)
                and not isinstance(right.value, bool)
            ):
                self.add(node, "D-IS-LITERAL", "'is' compares identity, not value")
            if self.loop_depth and isinstance(op, ast.In | ast.NotIn) and isinstance(right, ast.List):
                self.add(node, "P-LIST-MEMBERSHIP", "membership test on a list literal in a loop")
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is None:
            self.add(node, "R-BARE-EXCEPT", "bare 'except:' also catches KeyboardInterrupt")
        if all(isinstance(s, ast.Pass) for s in node.body):
            self.add(node, "D-SWALLOWED-EXCEPTION", "exception silently swallowed")
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        if isinstance(node.test, ast.Tuple) and node.test.elts:
            self.add(node, "D-ASSERT-TUPLE", "assert on a tuple is always true")
        self.generic_visit(node)


def analyze(source: str, filename: str = "<source>") -> list[Finding]:
    """All findings for one source text, sorted by line then rule (stable across runs)."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        from mcpnb.probekit.responses import ProbeError

        raise ProbeError(f"Could not parse {filename}: line {exc.lineno}: {exc.msg}") from exc
    analyzer = _Analyzer(filename)
    analyzer.visit(tree)
    return sorted(analyzer.findings, key=lambda f: (f.file, f.line, f.rule))


def as_records(findings: list[Finding]) -> list[dict[str, Any]]:
    return [asdict(f) for f in findings]


def severity_counts(findings: list[Finding]) -> list[dict[str, Any]]:
    counts = Counter(f.severity for f in findings)
    return [{"severity": s, "count": counts[s]} for s in SEVERITY_ORDER if counts[s]]
