"""The async-cell rewrite: real ``%mcp`` calls at a cell's top level become awaits; nothing else
changes (text in strings, lambdas, defs, comprehensions), and no cell becomes a syntax error."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from IPython.core.inputtransformer2 import TransformerManager

from mcpnb.notebook.cell.asynccell import transform

AWAITED = "(await get_ipython().arun_line_magic("
LINE = "get_ipython().run_line_magic('mcp', 'status')"


def rewrite(cell: str) -> str:
    return "".join(transform(cell.splitlines(keepends=True)))


def compiles(code: str) -> bool:
    try:
        compile(code, "<cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        (f"{LINE}\n", f"{AWAITED}'mcp', 'status'))\n"),
        (f"r = {LINE}\n", f"r = {AWAITED}'mcp', 'status'))\n"),
        (f"n = len({LINE}.rows)\n", f"n = len({AWAITED}'mcp', 'status')).rows)\n"),
        (f"if ready:\n    {LINE}\n", f"if ready:\n    {AWAITED}'mcp', 'status'))\n"),
        (f"x = 'é'; {LINE}\n", f"x = 'é'; {AWAITED}'mcp', 'status'))\n"),  # offsets count bytes
        (
            "get_ipython().run_cell_magic('mcp', 'call a.b', 'x: 1\\n')\n",
            "(await get_ipython().arun_cell_magic('mcp', 'call a.b', 'x: 1\\n'))\n",
        ),
    ],
)
def test_top_level_calls_become_awaits(cell, expected):
    assert rewrite(cell) == expected
    assert compiles(rewrite(cell))


@pytest.mark.parametrize(
    "cell",
    [
        f"f = lambda: {LINE}\n",  # was a SyntaxError: 'await' outside async function
        f'text = "{LINE}"\n',  # a string is not a call
        f"doc = '''\n{LINE}\n'''\n",
        f"def g():\n    return {LINE}\n",
        f"class C:\n    x = {LINE}\n",
        f"rows = [{LINE} for _ in range(2)]\n",
        f"gen = ({LINE} for _ in range(2))\n",
        f"msg = f'{{{LINE}}}'\n",
        "get_ipython().run_line_magic('time', 'x = 1')\n",  # another magic
        "x = (\n",  # incomplete: IPython reports it, the transformer leaves it alone
    ],
)
def test_everything_else_is_left_as_it_was(cell):
    assert rewrite(cell) == cell


def test_what_ipython_makes_of_magics_is_rewritten():
    """From the cell a person types, through IPython's own transforms, to the awaited call."""
    manager = TransformerManager()
    cell = "%mcp status\nr = %mcp call probe.estimate task=x\nf = lambda: 1\n"
    out = rewrite(manager.transform_cell(cell))
    assert out.count("await get_ipython().arun_line_magic(") == 2 and compiles(out)


# ---------------------------------------------------------------- fuzzing
_fragments = st.sampled_from(
    [
        LINE,
        "get_ipython().run_cell_magic('mcp', 'call a.b', 'k: v\\n')",
        "get_ipython().run_line_magic('mcp', 'call é.x text=\"a b\"')",
        "get_ipython().run_line_magic('other', 'x')",
        "get_ipython()",
        "1",
        "'é'",
        "x",
        "[1, 2]",
    ]
)
_expr = st.recursive(
    _fragments,
    lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda t: f"({t[0]}, {t[1]})"),
        inner.map(lambda e: f"lambda: {e}"),
        inner.map(lambda e: f"[{e} for _ in range(1)]"),
        inner.map(lambda e: f"({e} for _ in range(1))"),
        inner.map(lambda e: f"print({e})"),
        inner.map(lambda e: f"{e!r}"),  # the expression's text inside a string literal
        inner.map(lambda e: f"f'{{{e}}}'"),
    ),
    max_leaves=6,
)
_statement = st.one_of(
    _expr,
    _expr.map(lambda e: f"v = {e}"),
    _expr.map(lambda e: f"if x:\n    y = {e}"),
    _expr.map(lambda e: f"def g():\n    return {e}"),
    _expr.map(lambda e: f"class K:\n    a = {e}"),
    _expr.map(lambda e: f"with x:\n    {e}"),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_statement, min_size=1, max_size=4).map(lambda s: "\n".join(s) + "\n"))
def test_any_cell_stays_valid_and_keeps_its_strings(cell):
    out = rewrite(cell)
    if not compiles(cell):  # broken as typed: left for IPython to report
        assert out == cell
        return
    assert compiles(out), out
    before = [
        n for n in ast.walk(ast.parse(cell)) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    tree = compile(out, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    after = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert sorted(n.value for n in after) == sorted(n.value for n in before)  # no string added
    for line_in, line_out in zip(cell.splitlines(), out.splitlines(), strict=False):
        if "get_ipython" not in line_in:
            assert line_in == line_out
