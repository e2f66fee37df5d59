"""A person who mistypes: each slip is one short line saying what to type, nothing is sent on a
guess, and the kernel, the servers and the rest of the cell carry on."""

from __future__ import annotations

import json
import sys

import pytest
from IPython.core.error import UsageError

from mcpnb.client.errors import json_problem
from mcpnb.notebook.magics.parser import Parser, parse_body, parse_pairs
from tests.frontend import iopub_until_idle, shell_reply


# ---------------------------------------------------------------- the line
@pytest.mark.parametrize(
    ("words", "says"),
    [
        (["name=", "Ada"], "got 'Ada' after 'name=': write name=VALUE with no space after '='"),
        (["name:Ada"], "got 'name:Ada': write name=… on the magic line"),
        (["task=x", "--timeout", "5"], "every word after '--' is an argument; put options before '--'"),
        (["name=‘Ada", "Lovelace’"], "typographic quotes, which group nothing"),
    ],
)
def test_a_word_that_is_no_pair_says_which_slip_made_it(words, says):
    with pytest.raises(UsageError, match="expected key=value") as caught:
        parse_pairs(words, [])
    assert says in str(caught.value)


def test_a_quoted_pair_spaced_as_python_spaces_it_has_no_space_in_its_value():
    """``"password = hunter2"`` on a prompt's line: the key was read as ``password``, the value as
    `` hunter2``, sent with its space, unsaid. One spaced only after ``=`` keeps what was typed."""
    assert dict(parse_pairs(["password = hunter2", 'name = "Ada Lovelace"'], [])) == {
        "password": "hunter2",
        "name": "Ada Lovelace",
    }
    assert dict(parse_pairs(["q= x"], [])) == {"q": " x"}


def test_a_url_or_a_drive_on_the_line_is_not_taken_for_a_body_lines_colon():
    for word in ("https://example.com", "C:\\data"):
        with pytest.raises(UsageError) as caught:
            parse_pairs([word], [])
        assert "magic line" not in str(caught.value) and "quote values with spaces" in str(caught.value)


@pytest.mark.parametrize("dash", ["\u2014", "\u2013", "\u2212"])
def test_an_option_typed_with_a_typographic_dash_names_the_option(dash):
    parser = Parser("call", "")
    parser.add_argument("pairs", nargs="*")
    parser.add_argument("--timeout", type=float)
    with pytest.raises(
        UsageError, match=f"'{dash}timeout' starts with .*U\\+{ord(dash):04X}.*type --timeout"
    ):
        parser.parse(["a=1", f"{dash}timeout", "5"])
    with pytest.raises(UsageError, match="type --timeout"):  # a phone capitalises the first letter
        parser.parse([f"{dash}Timeout", "5"])
    assert parser.parse(["--", f"{dash}timeout"]).pairs == [f"{dash}timeout"]  # after --: a value
    assert parser.parse([f"{dash}hello"]).pairs == [f"{dash}hello"]  # no option of that name


def test_python_and_single_quoted_json_says_what_json_writes():
    for text, says in (
        ("{'task': 'x'}", "JSON quotes with \" only, not '"),
        ('{"a": None}', "Python's None: JSON writes null"),
        ('{"a": True}', "Python's True: JSON writes true"),
    ):
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            assert says in json_problem(text, exc)


# ---------------------------------------------------------------- a tool's one text, in a cell body
def test_key_equals_lines_over_a_tools_one_text_are_refused_not_sent_as_the_text():
    with pytest.raises(UsageError, match=r"line 1: write 'query: …' \(a colon in a cell body"):
        parse_body("query = login\nlimit = 3", [], bare="query", params=["query", "limit"])
    with pytest.raises(UsageError, match=r"line 1: write 'task: …'"):  # no text parameter: same words
        parse_body("task = x\nfiles = 3", [])
    code = "x = 1\nprint(x)"  # code whose names are no parameter: the text, as written
    assert parse_body(code, [], bare="source", params=["source"]) == {"source": code}
    code = "code = open('x.py').read()\nprint(len(code))"  # the review's: Python that names one
    assert parse_body(code, [], bare="code", params=["code"]) == {"code": code}


def test_a_placeholder_slip_in_argument_lines_is_said_not_sent_as_the_text():
    ns = [{"topic": "login"}]
    with pytest.raises(UsageError, match=r"no variable 'topc' in the notebook; did you mean 'topic'\?"):
        parse_body("query: {{topc}}\nlimit: 3", ns, bare="query", params=["query", "limit"])
    with pytest.raises(UsageError, match="'topc'"):
        parse_body('{"query": "{{topc}}", "limit": 3}', ns, bare="query", params=["query", "limit"])
    with pytest.warns(UserWarning, match="sent as written"):  # a text with a template's braces: text
        args = parse_body("date picker {{topc}}", ns, bare="query", params=["query", "limit"])
    assert args == {"query": "date picker {{topc}}"}
    workflow = "name: CI\non: push\njobs:\n  go:\n    steps:\n      - run: echo ${{ secrets.TOKEN }}"
    with pytest.warns(UserWarning):  # the review's: a GitHub workflow is a text, its {{…}} not ours
        args = parse_body(workflow, ns, bare="content", params=["path", "content"])
    assert args == {"content": workflow}


# ---------------------------------------------------------------- in a real kernel
def _run(kc, code: str) -> tuple[str, str, int]:
    """Run ``code``: its reply's status, what the person reads, and how many traceback lines show."""
    msg_id = kc.execute(code)
    said, traceback = [], 0
    for msg in iopub_until_idle(kc, msg_id, 120):
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            said.append(content["text"])
        elif kind in ("execute_result", "display_data"):
            said.append(content["data"].get("text/plain", ""))
        elif kind == "error":
            traceback = len(content["traceback"])
            said.append(f"{content['ename']}: {content['evalue']}")
    return shell_reply(kc, msg_id)["status"], "".join(said), traceback


SLIPS = [  # what was typed, what the person must read
    ("%mcp tools greet", "no server named 'greet'; 'greet' is a tool of probe: probe.greet"),
    ("%mcp connect p2 --timout 5 -- python -m mcpnb.probekit", "%config Mcp.startup_timeout"),
    ("%mcp --timeout 5 call probe.greet name=Ada", "--timeout goes after the subcommand: %mcp call"),
    ("%mcp call probe.greet name=Ada \u2014timeout 5", "type --timeout"),
    ("%mcp connect p2 \u2013era legacy -- python -m mcpnb.probekit", "type --era"),
    ("%mcp call probe.echo text=hi", "server 'probe' has no tool 'echo'; did you mean demo.echo?"),
    ("%mcp call demo.greet name=Ada", "did you mean probe.greet?"),
    ("%mcp call probe.greet name:Ada", "write name=… on the magic line"),
    ("%%mcp call probe.ui_search\nquery = login\nlimit = 3", "line 1: write 'query: …'"),
    ("%%mcp call probe.ui_search\nquery: {{topc}}\nlimit: 3", "did you mean 'topic'?"),
]


def test_slips_in_a_kernel_are_one_short_line_and_nothing_is_lost(kernel):
    setup = (
        "%load_ext mcpnb\n%mcp serve probe-kit;\n"
        f"%mcp connect demo -- {sys.executable} tests/servers/demo_server.py stdio;\ntopic = 'login'"
    )
    status, said, _ = _run(kernel, setup)
    assert status == "ok", said
    wrong = []  # every slip said wrongly, not only the first
    for code, says in SLIPS:
        status, said, traceback = _run(
            kernel, f"kept = {code!r}\n{code}" if not code.startswith("%%") else code
        )
        short = traceback == 0 and "Traceback" not in said and len(said.strip().splitlines()) <= 2
        if status != "error" or says not in said or not short:  # a UsageError: no traceback
            wrong.append((code, said))
    assert not wrong, wrong
    # the line before a slip ran, both servers stayed connected, and the call typed right works
    last_line = SLIPS[-3][0]
    check = (
        "import mcpnb\npool = mcpnb.default_pool()\n"
        f"print(kept == {last_line!r},\n"
        "      sorted(row.name for row in pool.status() if row.state == 'connected'))\n"
        "r = %mcp call probe.greet name=Ada\nprint(r.text)"
    )
    status, said, _ = _run(kernel, check)
    assert status == "ok", said
    assert "True ['demo', 'probe']" in said and "Hello, Ada!" in said
    # the review's: a search's own syntax for its one text, beside a parameter of that name, is meant
    status, said, _ = _run(kernel, 'r = %mcp call probe.ui_search "limit:3 date picker"\nprint(r.is_error)')
    assert status == "ok" and "False" in said, said
