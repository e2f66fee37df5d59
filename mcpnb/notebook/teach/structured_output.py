"""Exercises of ``06-structured-output.ipynb``: arguments against an inputSchema, a result repaired
to match its outputSchema, and a DataFrame made from structured content."""

from __future__ import annotations

import re
from typing import Any

from mcpnb.notebook.teach import exercises
from mcpnb.notebook.teach.exercises import Wrong, exercise
from mcpnb.notebook.teach.schema_words import explain, unknown_parameters

NOTEBOOK = "06-structured-output.ipynb"

#: The call the lesson makes for its table (the DataFrame exercise recomputes the answer from it).
PEOPLE_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "minimum": 18, "maximum": 90},
        "city": {"enum": ["Lyon", "Oslo", "Quito"]},
    },
}
PEOPLE_COUNT, PEOPLE_SEED = 30, 7


def live_server(server: str, where: str, purpose: str = "for the schema") -> Any:
    """The course pool, once ``server`` is connected in it; else a :class:`Wrong` that says which
    cell brings it back (after Run All the lesson's last cell has disconnected it)."""
    pool = exercises.course_pool()
    if server not in pool and pool.was_disconnected(server):  # after Run All: the last cell does that
        raise Wrong(
            f"this check asks the `{server}` server {purpose}, which was disconnected (the notebook's "
            f"last cells do that): run `%mcp reconnect {server}`, then check again"
        )
    if server not in pool:
        raise Wrong(f"this check asks the `{server}` server {purpose}: run the cells of {where} first")
    return pool


def live_tool(server: str, tool: str, where: str) -> Any:
    """The tool as the connected server describes it now (a checker reads the real schema)."""
    from mcpnb.client.errors import McpnbError

    pool = live_server(server, where)
    try:
        return next(t for t in pool.tools(server) if t.name == tool)
    except (McpnbError, StopIteration) as exc:
        raise Wrong(f"could not read `{server}.{tool}` to check against it ({exc}); rerun {where}") from None


#: What exercise 1 asks ``ui_search`` for: the 2 best matches for "date picker".
SEARCH = {"query": "date picker", "limit": 2}


def _found(args: dict[str, Any]) -> list[str]:
    """The ids of the components ``ui_search`` finds for ``args``, asked of the live server."""
    from mcpnb.client.errors import McpnbError

    try:
        result = exercises.course_pool().call("probe", "ui_search", args)
    except McpnbError as exc:
        raise Wrong(f"the server refused these arguments: {exc}") from None
    records = result.data.get("results") if isinstance(result.data, dict) else None
    if result.is_error or not isinstance(records, list):
        raise Wrong(f"the server answered these arguments with an error: {result.text[:200]}")
    return [str(r.get("id")) for r in records if isinstance(r, dict)]


def _words(text: Any) -> set[str]:
    """The words of a query as the search reads them ("date-picker" is "date" and "picker")."""
    return set(re.findall(r"[a-z0-9]+", str(text).lower()))


@exercise(
    "06.arguments",
    notebook=NOTEBOOK,
    hints=[
        "`%mcp tools probe --filter search` shows the parameters of `ui_search`; `*` marks a required one.",
        "A dict with two keys: the text to search for and how many results you want.",
        "The schema says `limit` is an integer: `2`, not `'2'`.",
    ],
)
def _arguments(args: Any) -> str:
    from mcpnb.client.arguments import native

    if not isinstance(args, dict):
        raise Wrong(
            f"`args` should be a dict of arguments, like {{'query': ...}}; you gave {type(args).__name__}"
        )
    schema = live_tool("probe", "ui_search", "section 1").input_schema
    problems = explain(args, schema, sender="your arguments send") + unknown_parameters(args, schema)
    if problems:
        raise Wrong("; ".join(problems))
    args = native(args)  # an np.int64 is sent as the JSON integer it holds
    if not _words(SEARCH["query"]) <= _words(args.get("query", "")):
        raise Wrong(
            f"the schema is happy, but the query {args.get('query')!r} does not ask for a date picker"
        )
    if args.get("limit") != SEARCH["limit"]:
        limit = args.get("limit", "the default (5)")
        raise Wrong(f"the schema is happy, but you ask for {limit} results; the exercise wants the 2 best")
    # What matters is what comes back: run the search these arguments ask for, and the lesson's.
    got, best = _found(args), _found(SEARCH)
    if got == best:
        return (
            "these arguments match the inputSchema; `%%mcp call probe.ui_search` with `{{args}}` sends them"
        )
    if not got:
        because = f" (`category` {args['category']!r} leaves none)" if args.get("category") else ""
        raise Wrong(f"the schema is happy, but the server finds nothing for these arguments{because}")
    extra = [i for i in got if i not in best]
    if extra:
        raise Wrong(
            f"the server's answer holds `{extra[0]}` too: the query's other words match other components; "
            'ask for "date picker" and nothing more'
        )
    raise Wrong(
        f"the server finds {', '.join(got)} for these arguments; the 2 best matches are {', '.join(best)}"
    )


@exercise(
    "06.fix-point",
    notebook=NOTEBOOK,
    hints=[
        "`bad.schema_error` names the field that breaks the promise.",
        "`bad.output_schema['properties']` says which type each field must have.",
        "Keep `y` as it is; make `x` the integer the server meant: 3.",
    ],
)
def _fix_point(fixed: Any) -> str:
    schema = live_tool("demo", "bad_point", "section 3").output_schema
    if not isinstance(fixed, dict):
        raise Wrong(f"`fixed` should be a dict like `bad.data`; you gave {type(fixed).__name__}")
    problems = explain(fixed, schema, sender="your result has")
    if problems:
        raise Wrong("; ".join(problems))
    extra = sorted(str(key) for key in fixed if key not in (schema.get("properties") or {}))
    if extra:  # the schema may not forbid extras, but the server never sent them
        fields = ", ".join(f"`{key}`" for key in extra)
        raise Wrong(
            f"{fields} is not a field of the outputSchema, and the server never sent it: a repair "
            "changes the field that breaks the promise and adds nothing"
        )
    if fixed.get("y") != 2:
        raise Wrong(f"`y` was fine (2) and should stay 2; you changed it to {fixed.get('y')!r}")
    if fixed.get("x") != 3:
        raise Wrong(f"`x` is an integer now, but {fixed.get('x')!r} is not the number the server meant (3)")
    return (
        "it matches the outputSchema now; a real server must send it like that, mcpnb only tells you when not"
    )


def _expected_counts() -> dict[str, int]:
    people = live_server("probe", "section 4", "to count the people again").call(
        "probe", "gen_mock", {"schema": PEOPLE_SCHEMA, "count": PEOPLE_COUNT, "seed": PEOPLE_SEED}
    )
    return {str(k): int(v) for k, v in people.df["city"].value_counts().items()}


def _counts_of(value: Any) -> dict[str, int]:
    """A Series of counts, or a DataFrame with one column of them, as {city: count}."""
    import pandas as pd

    if isinstance(value, pd.DataFrame):
        if "city" in value.columns and len(value) == PEOPLE_COUNT:
            raise Wrong(
                f"these are the {PEOPLE_COUNT} records themselves; group them by `city` and count "
                "(`.groupby('city').size()` or `['city'].value_counts()`)"
            )
        numeric = value.select_dtypes("number")
        if numeric.shape[1] != 1:
            raise Wrong(
                f"a DataFrame with {numeric.shape[1]} numeric columns; keep one column of counts "
                "(or give a Series)"
            )
        value = numeric.iloc[:, 0]
    if not isinstance(value, pd.Series):
        raise Wrong(
            f"`by_city` should be a pandas Series (or DataFrame) of counts; you gave {type(value).__name__}"
        )
    try:
        counts = {str(k): float(v) for k, v in value.items()}
    except (TypeError, ValueError):
        raise Wrong("the values should be counts (whole numbers), one per city") from None
    fractions = [v for v in counts.values() if not v.is_integer()]
    if fractions:  # int() would cut a mean age of 50.6 to a "count" of 50
        raise Wrong(
            f"the values should be counts (whole numbers); yours have fractions, like {fractions[0]:.4g}: "
            "a mean or another statistic? count the rows of each city"
        )
    return {k: int(v) for k, v in counts.items()}


@exercise(
    "06.frame",
    notebook=NOTEBOOK,
    hints=[
        "`people.df` is the DataFrame of the records; each row has a `city`.",
        "pandas counts rows per value with `.groupby('city').size()` or `df['city'].value_counts()`.",
    ],
)
def _frame(value: Any) -> str:
    from mcpnb.client.results import ToolResult

    if isinstance(value, ToolResult):
        raise Wrong("that is the whole ToolResult; its `.df` is the DataFrame to count in")
    got = _counts_of(value)
    if set(got) - {"Lyon", "Oslo", "Quito"}:
        raise Wrong(f"the index should be the cities; yours has {sorted(got)[:5]}")
    total = sum(got.values())
    if total != PEOPLE_COUNT:
        raise Wrong(f"your counts add up to {total}; there are {PEOPLE_COUNT} people (one row each)")
    expected = _expected_counts()
    if {k: v for k, v in got.items() if v} != expected:
        raise Wrong("the counts add up, but not per city: count the rows of each city in `people.df`")
    return "structured content → DataFrame → one line of pandas: that is why tools should return data"
