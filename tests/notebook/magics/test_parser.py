"""The line and cell-body parser: key=value words, bodies, {{var}} interpolation, targets."""

from __future__ import annotations

import re
import sys
import types

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from IPython.core.error import UsageError

from mcpnb.notebook.magics.parser import (
    Arguments,
    bare_argument,
    interpolate_json,
    is_bare_value,
    parse_body,
    parse_pairs,
    parse_value,
    safe_token,
    split_line,
    split_target,
)


def test_values_are_json_when_they_parse_else_text():
    assert parse_value("5") == (5, True)
    assert parse_value("true") == (True, True)
    assert parse_value('["a", 1]') == (["a", 1], True)
    assert parse_value("hello") == ("hello", False)
    assert parse_value("NaN") == ("NaN", False)  # not JSON on the wire: kept as text


def test_pairs_from_the_line():
    args = parse_pairs(split_line('a=1 text="hello world" flags=[1,2] empty='), [])
    assert args == {"a": 1, "text": "hello world", "flags": [1, 2], "empty": ""}
    assert args.raw == {"a": "1", "flags": "[1,2]"}  # what was typed, for schemas that want text


def test_json_values_on_a_call_line_keep_their_quotes_and_spaces():
    line = 'choices=["a b", "c"] obj={"k": {"n": [1, 2]}} esc=["say \\"hi\\""] text="x y" rows={{data}}'
    assert split_line(line) == [
        "choices=[a b,",
        "c]",
        "obj={k:",
        "{n:",
        "[1,",
        "2]}}",
        'esc=[say "hi"]',
        "text=x y",
        "rows={{data}}",
    ]
    words = split_line(line, json_values=True)
    assert words == [
        'choices=["a b", "c"]',
        'obj={"k": {"n": [1, 2]}}',
        'esc=["say \\"hi\\""]',
        "text=x y",
        "rows={{data}}",
    ]
    args = parse_pairs(words, [{"data": [{"id": 1}]}])
    assert args == {
        "choices": ["a b", "c"],
        "obj": {"k": {"n": [1, 2]}},
        "esc": ['say "hi"'],
        "text": "x y",
        "rows": [{"id": 1}],
    }
    # not a whole JSON value: the shell's reading, as before
    assert split_line("pattern=[a-z]+ a=[1,2 b=3", json_values=True) == ["pattern=[a-z]+", "a=[1,2", "b=3"]
    # a whole object of arguments is one word as typed; one that never closes is the rest of the line
    assert split_line('t.x {"a": "b c"} k=1', json_values=True) == ["t.x", '{"a": "b c"}', "k=1"]
    assert split_line('t.x {"a": "b c" \n', json_values=True) == ["t.x", '{"a": "b c"']


def test_pairs_errors_are_usage_errors():
    with pytest.raises(UsageError, match="expected key=value"):
        parse_pairs(["oops"], [])
    with pytest.raises(UsageError, match="given twice"):
        parse_pairs(["a=1", "a=2"], [])
    with pytest.raises(UsageError, match="quotes"):
        split_line('a="unclosed')


def test_key_value_body_with_comments_and_multiline_json():
    body = """
    # a comment
    query: login form
    limit: 3
    schema: {
      "type": "object"
    }
    url: http://example.com/x
    """
    args = parse_body(body)
    assert args == {
        "query": "login form",
        "limit": 3,
        "schema": {"type": "object"},
        "url": "http://example.com/x",
    }
    assert args.lines["limit"] == 4


def test_a_literal_block_takes_the_indented_lines_as_they_are():
    body = """source: |
    def f(x=[]):
        return eval("{{x}}")  # kept: {{ }} means nothing in a block

    print(f())
path: a.py
diff: |-
  -old
  +new
empty: |
kept: |+
  x

"""
    args = parse_body(body, [])
    assert (
        args["source"]
        == 'def f(x=[]):\n    return eval("{{x}}")  # kept: {{ }} means nothing in a block\n\nprint(f())\n'
    )
    assert args["path"] == "a.py" and args.lines["path"] == 6
    assert args["diff"] == "-old\n+new"  # |- drops the final newline
    assert args["empty"] == "" and args["kept"] == "x\n\n"
    indented = parse_body("  a: |\n    one\n  b: 2\n")  # the block ends where the indent does
    assert indented == {"a": "one\n", "b": 2}


def test_a_literal_block_not_indented_is_said_so():
    """Code pasted under ``source: |`` at the left edge was read as keys: "unknown argument
    'def f()'", which sent the person to the tool's arguments instead of the indentation."""
    with pytest.raises(
        UsageError,
        match=r"^cell body line 1: the text of 'source' goes on the lines below '\|', indented \(line 2 ",
    ):
        parse_body("source: |\ndef f(): pass\n")
    with pytest.raises(UsageError, match=r"line 3 starts at the left edge"):
        parse_body("source: |-\n\nprint('hi')\n")
    assert parse_body("empty: |\nkept: 1\n") == {"empty": "", "kept": 1}  # an empty block, then a key


def test_json_body():
    assert parse_body('{"a": 1, "b": [true, null]}') == {"a": 1, "b": [True, None]}
    # Python 3.13 names the slip itself, at the comma; before, json said "Expecting property name"
    # after it, and mcpnb's hint names it
    said = (
        "column 8: Illegal trailing comma"
        if sys.version_info >= (3, 13)
        else r"column 9: .* \(a trailing comma\?\)$"
    )
    with pytest.raises(UsageError, match=f"line 1, {said}"):
        parse_body('{"a": 1,}')
    with pytest.raises(UsageError, match=r"line 2, column 1: .* \(JSON does not allow comments\)$"):
        parse_body('{"a": 1,\n// the second\n"b": 2}')
    # json's "Unterminated string starting at" reads cut off: the position is said once, first
    with pytest.raises(
        UsageError, match=r"line 1, column 7: Unterminated string \(a missing closing quote\?\)$"
    ):
        parse_body('{"a": "b}')
    with pytest.raises(
        UsageError, match=r"line 1: the value of 'a' is neither JSON nor YAML \(a bracket not closed\?\)"
    ):
        parse_body("a: {oops\nb: 2")


def test_yaml_flow_values_and_blocks_as_people_write_them():
    """What ``%%mcp require`` bodies taught: YAML's flow style and ``- item`` blocks (they were
    "not valid JSON", and a block's ``- sku: B2`` line was read as an argument named ``- sku``)."""
    body = (
        "lines:\n  - {sku: A1, qty: 2}\n  - sku: B2\n    tags: [new, sale]\n"
        "ship_to: {street: 1 Main, city: Oslo}\nn: 3"
    )
    assert parse_body(body) == {
        "lines": [{"sku": "A1", "qty": 2}, {"sku": "B2", "tags": ["new", "sale"]}],
        "ship_to": {"street": "1 Main", "city": "Oslo"},
        "n": 3,
    }
    # only JSON's words are values: YAML 1.1 would send false, 750 and a date JSON cannot carry
    assert parse_body("opts: {country: no, at: 12:30, day: 2024-01-01, ok: true, x: null, f: 1.5e3}") == {
        "opts": {"country": "no", "at": "12:30", "day": "2024-01-01", "ok": True, "x": None, "f": 1500.0}
    }
    assert parse_body("where:\n  city: {{city}}\n  tags: {{tags}}", [{"city": "Oslo", "tags": ["a b"]}]) == {
        "where": {"city": "Oslo", "tags": ["a b"]}
    }
    assert parse_body("query:\nlimit: 3") == {"query": "", "limit": 3}  # nothing indented: no block
    line = parse_pairs(["tags=[new, sale]", "where={city: Oslo}", "title=[draft] notes"], [])
    assert line == {"tags": ["new", "sale"], "where": {"city": "Oslo"}, "title": "[draft] notes"}
    assert line.raw["where"] == "{city: Oslo}"  # for an argument that wants a string
    with pytest.raises(UsageError, match=r"line 1: the indented lines below 'where' are not YAML"):
        parse_body("where:\n  - a\n  b: c")


def test_bad_body_lines_point_at_the_line():
    with pytest.raises(UsageError, match="line 2"):
        parse_body("a: 1\nnot a pair")


def test_interpolation_from_the_namespace():
    ns = [{"rows": [{"x": 1}], "name": 'Ada "the first"', "n": 3}]
    assert parse_body("data: {{rows}}\nwho: hello {{name}}\ncount: {{ n }}", ns) == {
        "data": [{"x": 1}],  # a whole placeholder is the object itself
        "who": 'hello Ada "the first"',
        "count": 3,
    }
    assert parse_body('{"data": {{rows}}, "who": "hi {{name}}"}', ns) == {
        "data": [{"x": 1}],
        "who": 'hi Ada "the first"',  # escaped inside a JSON string
    }
    assert parse_pairs(["data={{rows}}"], ns) == {"data": [{"x": 1}]}
    assert parse_body("{{args}}", [{"args": {"a": 1}}]) == {"a": 1}


def test_python_constants_between_double_braces_are_values_not_variable_names():
    """``{{True}}`` once said "no variable 'True' in the notebook"."""
    assert parse_pairs(["a={{True}}", "b={{None}}", "c={{False}}"], [{}]) == {
        "a": True,
        "b": None,
        "c": False,
    }


def test_a_key_given_twice_in_a_json_object_is_an_error_not_the_last_one_wins():
    for body in ('{"a": 1, "a": 2, "b": 2}', 'a: {"x": 1, "x": 2}'):
        with pytest.raises(UsageError, match=r"key '(a|x)' is given twice"):
            parse_body(body, [{}])
    with pytest.raises(UsageError, match="key 'x' is given twice"):
        parse_pairs(['a={"x": 1, "x": 2}'], [{}])
    assert parse_body('{"a": {"x": 1}, "b": {"x": 2}}', [{}]) == {"a": {"x": 1}, "b": {"x": 2}}


def test_an_expression_between_double_braces_is_evaluated_in_the_notebook():
    """As IPython's ``{expr}`` and JupySQL's ``{{expr}}``: ``{{len(rows)}}`` used to reach the server
    as the text "{{len(rows)}}"."""
    user = {"rows": [{"x": 1}, {"x": 2}], "name": "Ada", "n": 3}
    local = {"n": 10}  # a function's own variables come first, as for a plain {{n}}
    ns = [local, user]
    assert parse_pairs(["count={{len(rows)}}", "first={{ rows[0] }}", "more={{n + 1}}"], ns) == {
        "count": 2,
        "first": {"x": 1},  # a whole placeholder is the object itself
        "more": 11,
    }
    assert parse_body("who: {{name.upper()}} and {{n * 2}}\nxs: {{[r['x'] for r in rows]}}", ns) == {
        "who": "ADA and 20",
        "xs": [1, 2],
    }
    assert parse_body('{"total": {{sum(r["x"] for r in rows)}}, "who": "{{name.lower()}}"}', ns) == {
        "total": 3,
        "who": "ada",
    }
    assert parse_body("{{dict(query=name, limit=n)}}", ns) == {"query": "Ada", "limit": 10}
    with pytest.raises(
        UsageError, match=r"^\{\{1/0\}\}: ZeroDivisionError: division by zero \(nothing was sent\)$"
    ):
        parse_pairs(["x={{1/0}}"], ns)
    with pytest.raises(UsageError, match=r"^\{\{len\(rowz\)\}\}: NameError: name 'rowz' is not defined"):
        parse_body("x: {{len(rowz)}}", ns)
    secret = {"token": "sk-live-4242-do-not-show"}
    with pytest.raises(UsageError, match=r"^\{\{int\(token\)\}\}: ValueError: invalid literal") as info:
        parse_pairs(["n={{int(token)}}"], [secret])
    assert "sk-live" not in str(info.value)  # the value it could not read is not repeated
    import numpy as np  # a notebook's numbers: JSON's own inside a JSON body too

    assert parse_body('{"n": {{np.int64(4)}}, "xs": {{np.arange(2)}}}', [{"np": np}]) == {
        "n": 4,
        "xs": [0, 1],
    }
    # a text that starts with a placeholder is text, not JSON ("the value of 'who' is not valid JSON")
    assert parse_body("who: {{name}}, welcome ({{n}})", ns) == {"who": "Ada, welcome (10)"}
    # what Python cannot parse is a template for the server, sent as typed
    assert parse_pairs(["t={{#each rows}}{{/each}}"], ns) == {"t": "{{#each rows}}{{/each}}"}


def test_interpolation_errors_suggest_names():
    with pytest.raises(UsageError, match="did you mean 'rows'"):
        parse_body("data: {{rowz}}", [{"rows": 1}])
    with pytest.raises(UsageError, match="not JSON"):
        interpolate_json('{"a": {{obj}}}', [{"obj": object()}])


def test_targets():
    assert split_target("demo.add") == ("demo", "add")
    assert split_target("demo.tool.with.dots") == ("demo", "tool.with.dots")
    assert split_target("mcp__demo__add") == ("demo", "add")
    assert split_target("add") == (None, "add")
    with pytest.raises(UsageError):
        split_target("demo.")


def test_safe_token_hides_what_may_be_a_secret():
    assert "sekret" not in safe_token("Authorization: Bearer sekret")
    assert "abcdefghijklmnopqrstuvwxyz0123" not in safe_token("abcdefghijklmnopqrstuvwxyz0123")
    assert safe_token("extra") == "'extra'"


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_body_parser_never_crashes(text):
    try:
        result = parse_body(text, [{"x": 1, "name": "n"}])
    except UsageError:
        return
    assert isinstance(result, Arguments)
    assert all(isinstance(k, str) for k in result)


_keyish = st.text(alphabet=st.characters(blacklist_characters=":\n\r#"), min_size=1, max_size=8)
_line = st.tuples(_keyish, st.text(max_size=30)).map(lambda kv: f"{kv[0]}: {kv[1]}")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_line, st.text(max_size=20)), max_size=8).map("\n".join))
def test_key_value_bodies_never_crash(text):
    try:
        result = parse_body(text, [{"x": [1, 2]}])
    except UsageError as exc:
        assert str(exc)  # a message a person can read
        return
    assert isinstance(result, Arguments)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
    )
)
def test_any_json_object_body_round_trips(value):
    import json

    body = json.dumps({"v": value})
    assert parse_body(body) == {"v": value}
    lines = parse_body("v: " + json.dumps(value))
    if isinstance(value, str) and not value.strip():
        return  # "v: " + '""' parses; a bare blank string is not distinguishable from empty text
    assert "v" in lines


# ---------------------------------------------------------------- fuzzing the line parser
_line_text = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60)


@settings(max_examples=400, deadline=None)
@given(_line_text)
@example("0\x1f=1")  # str.strip() took the \x1f (Python calls it whitespace; shlex does not)
@example('{"')  # a quote in an object that never closes: the JSON reader says what is wrong
def test_any_line_splits_into_words_or_says_why(text):
    try:
        words = split_line(text)
    except UsageError as exc:
        assert "check your quotes" in str(exc)
        # tool arguments: the same, or a "{" that never closes, handed whole to the JSON reader
        with pytest.raises(UsageError, match=r"check your quotes|invalid JSON at line 1, column \d+: \w"):
            parse_pairs(split_line(text, json_values=True), [{"x": 1}])
        return
    # no JSON value (key={...}, key=[...]) nor a whole object of arguments ({...}): the same words
    if not re.search(r"=[\[{]|(?:^|[ \t\r\n])\{", text):
        assert split_line(text, json_values=True) == words
    assert all(isinstance(w, str) for w in words)
    try:
        args = parse_pairs(words, [{"x": 1}])
    except UsageError as exc:
        assert str(exc)
        return
    assert isinstance(args, Arguments) and set(args) <= {w.partition("=")[0] for w in words}


@settings(max_examples=300, deadline=None)
@given(_line_text)
def test_any_target_splits_or_says_why(text):
    try:
        server, name = split_target(text)
    except UsageError as exc:
        assert "expected NAME.TOOL" in str(exc)
        return
    assert isinstance(name, str) and (server is None or isinstance(server, str))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='{}"\\ab:,[]1 ', max_size=40))
def test_interpolating_any_json_text_never_crashes(text):
    try:
        out = interpolate_json(text, [{"a": [1, "x"], "b": 'q"uote'}])
    except UsageError as exc:
        assert "{{" in str(exc)
        return
    assert isinstance(out, str)


SQL = """-- people named with an A
SELECT name, '12:30' AS t
FROM people
WHERE name LIKE 'A%'
"""


def test_a_body_that_is_no_arguments_is_the_one_text_parameter_as_written():
    """JupySQL's ``%%sql`` cell: the body is the query (its ``'12:30'`` no ``key: value``)."""
    assert dict(parse_body(SQL, bare="sql")) == {"sql": SQL.rstrip()}
    assert dict(parse_body("    indented\n      more\n", bare="q")) == {"q": "indented\n  more"}
    # a notebook variable's {{name}} is filled, as JupySQL fills it; other braces are the text's own
    ns = [{"cid": 7, "who": types.SimpleNamespace(name="Ann")}]
    assert dict(parse_body("WHERE id = {{cid}} AND n = '{{ who.name }}'", ns, bare="q")) == {
        "q": "WHERE id = 7 AND n = 'Ann'"
    }
    kept = "{{ item }} {{#each rows}} {{len(cid)}} {{cid.nope}}"
    with pytest.warns(
        UserWarning, match=r"\{\{item\}\}: no variable 'item' in the notebook; it was sent as written"
    ):
        assert dict(parse_body(kept, ns, bare="q")) == {"q": kept}
    # arguments by name still read as arguments; a body of comments is no text
    assert dict(parse_body("sql: SELECT 1\n", bare="sql")) == {"sql": "SELECT 1"}
    assert dict(parse_body('{"sql": "SELECT 2"}', bare="sql")) == {"sql": "SELECT 2"}
    assert dict(parse_body("{{args}}", [{"args": {"sql": "SELECT 3"}}], bare="sql")) == {"sql": "SELECT 3"}
    assert dict(parse_body("# nothing yet\n", bare="sql")) == {}
    with pytest.raises(UsageError, match="expected 'key: value'"):
        parse_body(SQL)  # a tool without one text parameter: still an error


@pytest.mark.parametrize(
    ("word", "bare"),
    [
        ("SELECT * FROM t WHERE id=2", True),  # a = inside a value, after no name
        ("https://x.test/?a=1", True),
        ("{{q}}", True),  # a text
        ("{{args}}", False),  # a dict: all the arguments
        ('{"sql": "SELECT 1"}', False),
        ("sql=SELECT 1", False),
        ("a.b-c_d=1", False),
    ],
)
def test_which_words_are_bare_values(word, bare):
    assert is_bare_value(word, [{"q": "SELECT 1", "args": {"sql": "x"}}]) is bare


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('{"text": "hi"', "invalid JSON"),  # a brace left open
        ("text: hi\ntext: again", "argument 'text' is given twice"),
    ],
)
def test_a_body_meant_as_arguments_with_a_mistake_goes_out_as_text_and_says_so(body, says):
    """A tool with one text parameter takes any body as that text; one that reads as arguments gone
    wrong once went out as text without a word."""
    with pytest.warns(UserWarning, match="the cell body went out as the text of 'text', as written") as said:
        assert dict(parse_body(body, bare="text")) == {"text": body}
    assert says in str(said[0].message)


def test_spaces_around_equals_are_named_as_such():
    """``a = 1`` said "expected key=value, got 'a'", and on a tool of one text "quote it"."""
    for words in (["a", "=", "1", "b=2"], ["a", "=1"]):
        with pytest.raises(UsageError, match=r"write a=VALUE with no spaces around '='"):
            parse_pairs(words, [])
    assert parse_pairs(["a=1", "b=x = y"], []) == {"a": 1, "b": "x = y"}  # inside a quoted value: kept


# ---------------------------------------------------------------- letters of any script
def test_names_in_any_script_are_names_not_a_text_parameters_value():
    """``テキスト="引用 符"`` names the argument テキスト: with ASCII-only names it was a bare word and
    went out as the one text parameter's value, ``"テキスト=引用 符"``. A name typed where none is
    meant is refused as an ASCII one is; a decomposed ``café`` is the composed one a schema has."""
    assert not is_bare_value("テキスト=引用 符", [])
    assert not is_bare_value("名前=日本", []) and not is_bare_value("größe=1.5", [])
    assert not is_bare_value("שם=שלום", []) and not is_bare_value("cafe\u0301=x", [])
    # still values: what starts with a digit or holds a "/" (a URL's query), as before
    assert is_bare_value("1a=b", []) and is_bare_value("a/b=c", []) and is_bare_value("日本 語=x", [])
    args = parse_pairs(split_line('テキスト="引用 符" שם=שלום cafe\u0301=x'), [])
    assert args == {"テキスト": "引用 符", "שם": "שלום", "café": "x"}
    with pytest.raises(UsageError, match="no spaces around"):
        parse_pairs(["名前", "=山田"], [])


def test_a_body_of_names_in_any_script_is_arguments_not_the_text():
    for body in ('テキスト: 日本語\nשם: "עברית"\n', '{"テキスト": "日本語", "שם": "עברית"}'):
        args = parse_body(body, [], bare="テキスト")
        assert args == {"テキスト": "日本語", "שם": "עברית"} and not args.text_body
    assert parse_body("cafe\u0301: x", []) == {"café": "x"}
    # an empty block before a line that starts with a name is meant, in any script
    assert parse_body("kept: |\n名前: 山田", []) == {"kept": "", "名前": "山田"}


def test_an_ideographic_space_between_arguments_separates_them():
    """A Japanese input method types U+3000 for a space: ``名前=山田　Ärger=怒り`` was one argument,
    名前 = "山田　Ärger=怒り". Within a value, and in quotes, it stays text."""
    for json_values in (False, True):
        words = split_line("年齢=1 名前=山田\u3000Ärger=怒り\u3000", json_values=json_values)
        assert words == ["年齢=1", "名前=山田", "Ärger=怒り"]
        assert split_line("名前=山田\u3000太郎", json_values=json_values) == ["名前=山田\u3000太郎"]
        assert split_line("a=\"x\u3000b=1\" c='\u3000'", json_values=json_values) == [
            "a=x\u3000b=1",
            "c=\u3000",
        ]
    assert split_line("\u3000名前=山田 \u3000年齢=3") == ["名前=山田", "年齢=3"]


def test_full_width_equals_and_colon_are_named_with_what_to_type():
    with pytest.raises(UsageError, match=r"'＝' after '名前' is the full-width equals sign \(U\+FF1D\).*'='"):
        parse_pairs(["名前＝山田", "年齢=30"], [])
    with pytest.raises(
        UsageError, match=r"line 1: '：' after '名前' is the full-width colon \(U\+FF1A\).*':'"
    ):
        parse_body("名前：山田\n年齢: 30", [])
    # a tool's one text parameter takes it as its text, as any word, and says so; named by it, refused
    with pytest.warns(UserWarning, match="full-width equals"):
        assert bare_argument("source", "名前＝山田", []) == {"source": "名前＝山田"}
    with pytest.raises(UsageError, match="full-width equals"):
        bare_argument("名前", "名前＝山田", [])
    # a text body may hold one: it is text
    assert parse_body("注意：熱い", [], bare="source") == {"source": "注意：熱い"}


def test_a_non_ascii_variable_is_filled_in_a_text_body():
    """``{{名前}}`` in a query body: with ASCII-only names it went out as typed, unsaid."""
    ns = [{"名前": "山田", "café": "c"}]
    args = parse_body("SELECT * FROM t WHERE name = '{{名前}}' -- {{cafe\u0301}}", ns, bare="source")
    assert args == {"source": "SELECT * FROM t WHERE name = '山田' -- c"}
    with pytest.warns(UserWarning, match="no variable '名称'"):
        parse_body("{{名称}}", ns, bare="source")
    with pytest.raises(UsageError, match="double braces"):
        parse_pairs(["a={名前}"], ns)  # IPython's style, refused for a name in any script


def test_a_crlf_body_goes_out_with_newlines_as_a_block_does():
    text = parse_body("print('日本')\r\nx = 1\r\n", [], bare="source")
    block = parse_body("source: |\r\n  print('日本')\r\n  x = 1\r\n", [])
    assert text == {"source": "print('日本')\nx = 1"} and block == {"source": "print('日本')\nx = 1\n"}


def test_prose_in_any_script_over_a_tools_one_text_is_the_text():
    """A subject line in Japanese over a note to translate (``件名: 会議``), a formula (``Δt=0.01``),
    a German label (``Übersetzung:``): words beyond ASCII the tool takes no parameter of were always
    the text; reading every script's names as names made them "unknown argument" errors. A name the
    tool has (``テキスト``), or one it could be a slip for, is still an argument."""
    params = ["text"]
    for body in ("件名: 会議\n本文: 明日10時", "Übersetzung: Guten Morgen"):
        args = parse_body(body, [], bare="text", params=params)
        assert args == {"text": body} and args.text_body
    assert is_bare_value("Δt=0.01", [], params) and is_bare_value("α = 0.5", [], params)
    assert not is_bare_value("テキスト=x", [], ["テキスト"])  # the tool's own name
    assert not is_bare_value("テキス=x", [], ["テキスト"])  # a slip for it: "unknown argument", with a hint
    assert parse_body("テキスト: 日本語", [], bare="テキスト", params=["テキスト"]) == {"テキスト": "日本語"}
    assert not is_bare_value("txt=x", [], params)  # ASCII: a name, as it always was


@pytest.mark.parametrize("bare", [None, "query"])
@pytest.mark.parametrize("value", ["{topic}", "$topic"])
def test_ipythons_way_to_insert_a_variable_in_a_body_is_said_as_on_the_line(value, bare):
    """``query: {topic}`` went out as the text "{topic}" (YAML read a mapping and the typed text was
    kept), and ``query: $topic`` made the whole body a tool's one text, its ``limit`` lost with it:
    the line form said to write ``{{topic}}``; the cell body now says the same."""
    ns = [{"topic": "checkout page"}]
    with pytest.raises(
        UsageError, match=re.escape(f"{value} would reach the server as typed") + r".*\{\{topic\}\}"
    ):
        parse_body(f"query: {value}\nlimit: 1", ns, bare=bare)
    # quoted, it is the text on purpose; a name the notebook does not have is a template's own
    assert dict(parse_body(f'query: "{value}"\nlimit: 1', ns, bare=bare)) == {"query": value, "limit": 1}
    assert (
        dict(parse_body(f"query: {value.replace('topic', 'other')}\nlimit: 1", ns, bare=bare))["limit"] == 1
    )


def test_a_text_body_with_ipythons_braces_goes_out_as_written_and_says_so():
    """A one-text tool's body that is prose (a letter's ``Subject: {topic}`` line above it) is its
    text, as it always was; the person is told how %mcp inserts a variable, not refused."""
    ns = [{"topic": "checkout"}]
    body = "Subject: {topic}\nPlease write a friendly note about it."
    with pytest.warns(
        UserWarning, match=r"went out as the text of 'text', as written; \{topic\} would reach"
    ):
        assert dict(parse_body(body, ns, bare="text", params=["text"])) == {"text": body}


def test_on_windows_a_backslash_is_a_paths_not_an_escape(monkeypatch):
    """A Windows kernel: ``-- python C:\\tools\\server.py`` was split by POSIX rules as
    ``C:toolsserver.py``, and the server never started."""
    from mcpnb.notebook.magics import parser

    line = r'-- python C:\tools\server.py --data "C:\My Data\x.csv"'
    assert split_line(line)[2] == "C:toolsserver.py"  # POSIX: an escape, as a shell does
    monkeypatch.setattr(parser, "BACKSLASH_ESCAPES", False)
    assert split_line(line) == ["--", "python", r"C:\tools\server.py", "--data", r"C:\My Data\x.csv"]
    assert split_line(r"path=C:\in\a.csv n=2", json_values=True) == [r"path=C:\in\a.csv", "n=2"]
