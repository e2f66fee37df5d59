"""mcpnb.teach: checks that teach, hints on request, schema problems in words, JSON-RPC by hand.

The checkers that read a server's schema run against a real probe-kit (in-process, or over HTTP on
127.0.0.1 for the hand-cranked wire). The full lessons, with every worked solution and every common
mistake, run in a kernel in tests/test_course.py.
"""

from __future__ import annotations

import sys

import pandas as pd
import pytest

import mcpnb
from mcpnb import teach

#: The handshake of lesson 10 after its first message.
HANDSHAKE_TAIL = [
    "ui/notifications/initialized",
    "ui/notifications/tool-input",
    "ui/notifications/tool-result",
]

INTEGER_LIMIT = {
    "type": "object",
    "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["query"],
}


@pytest.fixture
def course(pool, monkeypatch):
    """probe-kit connected as ``probe``, where the lessons' checkers look for it."""
    mcpnb.serve_probekit("probe", pool=pool)
    monkeypatch.setattr("mcpnb.notebook.teach.exercises.course_pool", lambda: pool)
    return pool


@pytest.fixture
def scratch():
    """An exercise registered for one test, and forgotten after it."""
    before = dict(teach.EXERCISES)
    yield
    teach.EXERCISES.clear()
    teach.EXERCISES.update(before)


# ---------------------------------------------------------------- check and hint
def test_mcpnb_teach_is_the_notebook_room_s_teach_package():
    assert mcpnb.teach is teach  # the client room never imports it: tests/client/test_room.py
    assert {"06.arguments", "07.opening", "08.ttl", "09.retry"} <= set(teach.EXERCISES)


def test_an_answer_left_as_dots_is_not_answered_yet():
    for value in (..., {"killed server": ..., "HTTP 401": False, "command not found": False}):
        verdict = teach.check("09.retry", value)
        assert verdict.passed is None and not verdict
        assert "not answered yet" in repr(verdict) and "teach.hint('09.retry')" in repr(verdict)


def test_right_and_wrong_answers_get_their_verdicts():
    right = teach.check("07.opening", {"legacy": "initialize", "modern": "server/discover"})
    assert right.passed is True and repr(right).startswith("✓ 07.opening: ")
    swapped = teach.check("07.opening", {"legacy": "server/discover", "modern": "initialize"})
    assert swapped.passed is False and repr(swapped).startswith("✗ 07.opening: the other way round")
    assert "stuck? `teach.hint('07.opening')`" in swapped.message
    later = teach.check("07.opening", {"legacy": "notifications/initialized", "modern": "server/discover"})
    assert "comes later" in later.message


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("07.session", "MCP-Protocol-Version", "the *client* sends that one"),
        ("07.session", "mcp-session-id", None),
        ("07.mrtr", 1, "1 is the legacy count"),
        ("07.mrtr", True, "give a number"),
        ("07.mrtr", 2, None),
        ("07.forged", -32603, "the server's own failure"),
        ("07.forged", "-32602", "a number"),
        ("07.forged", -32602, None),
        ("08.poll-field", {"legacy": "ttl", "modern": "ttlMs"}, "`ttl` is how long the task is kept"),
        ("08.poll-field", {"legacy": "pollIntervalMs", "modern": "pollInterval"}, "the other way round"),
        ("08.poll-field", {"legacy": "pollInterval", "modern": "pollIntervalMs"}, None),
        ("08.ttl", 20000, "should be the live handle that `--task` gives"),
        ("09.state", "failed", "`failed` is where a server ends when the pool gives up"),
        ("09.state", "Reconnecting ", None),
        ("09.timeout", 4, "4 s works, but it is not the smallest"),
        ("09.timeout", 0, "positive number"),
        ("09.timeout", 1, None),
        ("09.retry", {"killed server": True, "HTTP 401": True, "command not found": False}, "a 401 will not"),
        ("09.retry", {"killed server": False, "HTTP 401": False, "command not found": False}, "*is* retried"),
        # "no" is true in Python: it was told "a 401 will not go away" for the right answer
        ("09.retry", {"killed server": "yes", "HTTP 401": "no", "command not found": "no"}, "True or False"),
    ],
)
def test_each_mistake_is_told_what_to_change(name, value, says):
    verdict = teach.check(name, value)
    if says is None:
        assert verdict.passed is True, verdict
    else:
        assert verdict.passed is False and says in verdict.message, verdict


def test_hints_come_one_at_a_time_then_point_at_the_solutions(scratch):
    @teach.exercise("test.hints", hints=["first", "second"], notebook="99-test.ipynb")
    def _never(value):
        raise teach.Wrong("no")

    assert repr(teach.hint("test.hints")) == "💡 test.hints: (1/2) first"
    assert repr(teach.hint("test.hints")) == "💡 test.hints: (2/2) second"
    # a path from the lesson's folder, where the student's file browser is: notebooks/ is that folder
    last = repr(teach.hint("test.hints"))
    assert "`solutions/99-test.md`" in last and "notebooks/solutions" not in last


def test_a_lesson_registers_its_own_exercise_and_a_crashing_checker_is_a_verdict(scratch):
    @teach.exercise("test.square", hints=[])
    def _square(value):
        if value != 4:
            raise teach.Wrong(f"{value} is not 2 squared")
        return "2 × 2"

    assert teach.check("test.square", 4).message == "2 × 2"
    assert "3 is not 2 squared" in teach.check("test.square", 3).message

    @teach.exercise("test.crash", hints=[])
    def _crash(value):
        return value["missing"]

    verdict = teach.check("test.crash", {})  # never raises: Run All goes on
    assert verdict.passed is False and "could not read this answer (KeyError" in verdict.message


def test_an_unknown_exercise_name_suggests_the_right_one_and_never_raises():
    verdict = teach.check("06.argument", {})
    assert verdict.passed is False and "did you mean '06.arguments'" in verdict.message
    assert "did you mean '06.arguments'" in teach.hint("06.argument").text


def test_verdict_html_escapes_and_shows_backticks_as_code():
    html = teach.Verdict("x", False, "`<b>` is not <allowed>")._repr_html_()
    assert "<code>&lt;b&gt;</code> is not &lt;allowed&gt;" in html and "✗ x" in html


# ---------------------------------------------------------------- schema problems in words
def test_a_string_where_the_schema_wants_an_integer():
    said = teach.explain({"query": "x", "limit": "2"}, INTEGER_LIMIT, sender="your arguments send")
    assert said == [
        "your arguments send `limit` as a string ('2'); the schema wants an integer: "
        "drop the quotes and write 2"
    ]


def test_missing_extra_enum_range_and_booleans_in_words():
    from mcpnb.notebook.teach.schema_words import unknown_parameters

    assert teach.explain({"limit": 2}, INTEGER_LIMIT, sender="your arguments send") == [
        "`query` is required by the schema and your arguments have no `query`"
    ]
    closed = {**INTEGER_LIMIT, "additionalProperties": False}
    assert "no `limt` (did you mean `limit`?)" in teach.explain({"query": "q", "limt": 2}, closed)[0]
    assert unknown_parameters({"query": "q", "limt": 2}, INTEGER_LIMIT) == [
        "the tool has no parameter `limt` (did you mean `limit`?); the server would ignore it"
    ]
    enum = {"type": "object", "properties": {"city": {"enum": ["Lyon", "Oslo"]}}}
    assert teach.explain({"city": "Rome"}, enum) == [
        "`city` is 'Rome'; the schema allows only 'Lyon', 'Oslo'"
    ]
    ranged = {"type": "integer", "minimum": 18}
    assert "outside the range the schema sets (minimum 18)" in teach.explain(3, ranged)[0]
    flag = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert "`n` as a boolean (True)" in teach.explain({"n": True}, flag)[0]  # True is no integer in JSON
    assert teach.explain({"query": "q", "limit": 2}, INTEGER_LIMIT) == []


# ---------------------------------------------------------------- checkers that read a live server
def test_arguments_are_checked_against_the_servers_real_input_schema(course):
    wrong_type = teach.check("06.arguments", {"query": "date picker", "limit": "2"})
    assert "your arguments send `limit` as a string ('2'); the schema wants an integer" in wrong_type.message
    typo = teach.check("06.arguments", {"query": "date picker", "limt": 2})
    assert "no parameter `limt` (did you mean `limit`?)" in typo.message
    assert (
        "you ask for the default (5) results" in teach.check("06.arguments", {"query": "date picker"}).message
    )
    assert teach.check("06.arguments", {"query": "date picker", "limit": 2}).passed


def test_a_checker_that_needs_a_server_says_which_cells_to_run(course):
    verdict = teach.check("06.fix-point", {"x": 3, "y": 2})
    assert verdict.passed is False and "asks the `demo` server" in verdict.message


def test_after_run_all_a_checker_says_to_reconnect_the_server_the_last_cell_disconnected(course):
    """Every lesson ends with ``%mcp disconnect``: after Run All, the exercises said "run the cells of
    section 1 first", which the person had just done."""
    course.disconnect("probe")
    verdict = teach.check("06.arguments", {"query": "date picker", "limit": 2})
    assert verdict.passed is False and "run `%mcp reconnect probe`, then check again" in verdict.message
    course.reconnect("probe")
    assert teach.check("06.arguments", {"query": "date picker", "limit": 2}).passed


def test_the_frame_exercise_recounts_the_lesson_s_people(course):
    from mcpnb.notebook.teach.structured_output import PEOPLE_COUNT, PEOPLE_SCHEMA, PEOPLE_SEED

    people = course.call(
        "probe", "gen_mock", {"schema": PEOPLE_SCHEMA, "count": PEOPLE_COUNT, "seed": PEOPLE_SEED}
    )
    assert "its `.df` is the DataFrame" in teach.check("06.frame", people).message
    assert "these are the 30 records themselves" in teach.check("06.frame", people.df).message
    assert teach.check("06.frame", people.df["city"].value_counts()).passed
    assert teach.check("06.frame", people.df.groupby("city").size().to_frame("n")).passed
    shifted = people.df["city"].value_counts().sort_index()
    shifted.iloc[0], shifted.iloc[1] = shifted.iloc[0] + 1, shifted.iloc[1] - 1
    assert "not per city" in teach.check("06.frame", shifted).message
    assert "add up to 1" in teach.check("06.frame", pd.Series({"Lyon": 1})).message
    mean_age = people.df.groupby("city")["age"].mean()  # int() cut it to "counts" adding up to 152
    assert "yours have fractions" in teach.check("06.frame", mean_age).message


def test_task_checkers_read_a_real_handle(course):
    serve_http = mcpnb.serve_probekit("old", http=True, era="legacy", pool=course)
    assert serve_http.era == "legacy"
    short = course.start_task("old", "slow_task", {"steps": 1, "delay": 0}, ttl_ms=20)
    assert "`--ttl` counts milliseconds" in teach.check("08.ttl", short).message
    right = course.start_task("old", "slow_task", {"steps": 1, "delay": 0}, ttl_ms=20_000)
    assert teach.check("08.ttl", right).passed
    assert "a result (the call waited)" in teach.check("08.cancel", right.result()).message


# ---------------------------------------------------------------- JSON-RPC by hand
def test_the_hand_cranked_wire_shows_what_each_era_sends(pool):
    mcpnb.serve_probekit("kit", http=True, pool=pool)
    url = pool.connection("kit").config.url

    legacy = teach.Wire(url, "legacy")
    hello = legacy.send(
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    assert hello.status == 200 and hello.result["protocolVersion"] == "2025-11-25"
    assert legacy.session_id and hello.headers["mcp-session-id"] == legacy.session_id
    assert legacy.notify("notifications/initialized").status == 202
    listed = legacy.send("tools/list")
    assert listed.sent_headers["Mcp-Session-Id"] == legacy.session_id
    assert any(t["name"] == "estimate" for t in listed.result["tools"])

    modern = teach.Wire(url, "modern", tasks=True)
    found = modern.send("server/discover")
    assert "mcp-session-id" not in found.headers and modern.session_id is None
    assert "io.modelcontextprotocol/tasks" in found.result["capabilities"]["extensions"]
    assert "io.modelcontextprotocol/clientInfo" in repr(found)  # the first envelope is shown whole
    task = modern.send("tools/call", {"name": "slow_task", "arguments": {"steps": 1, "delay": 0}})
    assert task.sent_headers["Mcp-Name"] == "slow_task" and task.result["resultType"] == "task"
    assert "(the same envelope as before)" in repr(task) and "_meta" in task.request["params"]
    refused = modern.send("tasks/get", {"taskId": "no-such-task"})
    assert refused.result is None and "no-such-task" in refused.error["message"]
    with pytest.raises(ValueError, match="legacy' or 'modern"):
        teach.Wire(url, "2024")


def test_teach_imports_no_heavy_module_until_used():
    import subprocess

    heavy = "{'pandas', 'jsonschema', 'mcp', 'ipywidgets'}"
    code = f"import mcpnb, sys; mcpnb.teach; print(sorted({heavy} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_visibility_exercise_takes_the_names_the_lesson_shows(pool, monkeypatch):
    """Lesson 10's toolbox table names the tool ``mcp__probe__dice``: an answer written that way (or
    ``probe.dice``) is the same answer, not "a model would be offered `dice` too"."""
    mcpnb.serve_probekit("probe", pool=pool, toolset="apps")
    monkeypatch.setattr("mcpnb.notebook.teach.exercises.course_pool", lambda: pool)
    for offered in ({"dice"}, {"mcp__probe__dice"}, {"probe.dice"}, [" dice "]):
        assert teach.check("10.visibility", offered).passed, offered
    assert "for the page only" in teach.check("10.visibility", {"mcp__probe__dice_history"}).message
    assert "names a tool of 'time'" in teach.check("10.visibility", {"time.dice"}).message
    assert "offered `dice` too" in teach.check("10.visibility", set()).message


# ---------------------------------------------------------------- what a student sweep found
@pytest.fixture
def lesson(monkeypatch):
    """The notebook's variables as a checker sees them (IPython's user namespace in a lesson)."""
    variables: dict = {}
    monkeypatch.setattr("mcpnb.notebook.teach.exercises.lesson_variables", lambda: variables)
    return variables


def test_the_search_exercise_runs_the_search_the_arguments_ask_for(course):
    """The schema and a substring were all it checked: a category that filters everything out and a
    query with more words passed, "date-picker" (the same search) failed."""
    right = {"query": "date picker", "limit": 2}
    assert teach.check("06.arguments", right).passed
    assert teach.check("06.arguments", {"query": "date-picker", "limit": 2}).passed
    assert teach.check("06.arguments", {"query": "Date Picker", "limit": 2, "category": "form"}).passed
    nothing = teach.check("06.arguments", {**right, "category": "nonexistent"})
    assert "finds nothing for these arguments (`category` 'nonexistent' leaves none)" in nothing.message
    more = teach.check("06.arguments", {"query": "not a date picker at all", "limit": 2})
    assert more.passed is False and "holds `badge` too" in more.message, more
    assert (
        "does not ask for a date picker"
        in teach.check("06.arguments", {"query": "datepicker", "limit": 2}).message
    )


def test_numpy_numbers_are_the_json_numbers_mcpnb_sends(course):
    np = pytest.importorskip("numpy")
    assert teach.check("06.arguments", {"query": "date picker", "limit": np.int64(2)}).passed
    assert teach.explain({"query": "q", "limit": np.int64(2)}, INTEGER_LIMIT) == []
    said = teach.explain(
        {"query": "q", "limit": np.float64(2.5)}, INTEGER_LIMIT, sender="your arguments send"
    )
    assert said == ["your arguments send `limit` as a number (2.5); the schema wants an integer"]
    assert teach.explain({"query": "q", "limit": object()}, INTEGER_LIMIT)[0].startswith(
        "your value has `limit` as a value of type object (not JSON)"
    )


def test_the_frame_exercise_says_to_reconnect_probe_rather_than_blame_the_answer(course):
    from mcpnb.notebook.teach.structured_output import PEOPLE_COUNT, PEOPLE_SCHEMA, PEOPLE_SEED

    people = course.call(
        "probe", "gen_mock", {"schema": PEOPLE_SCHEMA, "count": PEOPLE_COUNT, "seed": PEOPLE_SEED}
    )
    counts = people.df["city"].value_counts()
    course.disconnect("probe")
    verdict = teach.check("06.frame", counts)
    assert verdict.passed is False and "could not read this answer" not in verdict.message
    assert "run `%mcp reconnect probe`, then check again" in verdict.message
    course.reconnect("probe")
    assert teach.check("06.frame", counts).passed


@pytest.fixture
def legacy_hello(pool):
    """A real probe-kit's answer to a 2025-11-25 ``initialize``, as the lesson's Wire shows it."""
    mcpnb.serve_probekit("kit", http=True, pool=pool)
    wire = teach.Wire(pool.connection("kit").config.url, "legacy")
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return wire.send("initialize", hello)


def test_the_session_exercise_knows_the_headers_the_legacy_server_really_sends(legacy_hello, lesson):
    """It said "`x-accel-buffering` is not among the headers the legacy server sent back", which
    it was. Each real header other than the session's is named as there, and what it is for."""
    said = teach.check("07.session", "X-Accel-Buffering").message
    assert "yes, the legacy server sent `x-accel-buffering`, but that one is about streaming" in said
    from mcpnb.notebook.teach.two_eras import OTHER_RESPONSE_HEADERS

    others = set(legacy_hello.headers) - {"mcp-session-id", "content-type"}
    assert "x-accel-buffering" in others and others <= set(OTHER_RESPONSE_HEADERS)
    for known in ({}, {"legacy_hello": legacy_hello}):  # without the lesson's variables, and with them
        lesson.clear()
        lesson.update(known)
        for header in sorted(others):
            said = teach.check("07.session", header.title()).message
            assert f"yes, the legacy server sent `{header}`, but that one" in said, said
            assert "which one carries the session?" in said
    assert "not among the headers" in teach.check("07.session", "x-powered-by").message  # checked for real
    for right in (
        "Mcp-Session-Id",
        "Mcp-Session-Id:",
        f"Mcp-Session-Id: {legacy_hello.headers['mcp-session-id']}",
    ):
        assert teach.check("07.session", right).passed, right
    assert "with hyphens" in teach.check("07.session", "mcp_session_id").message
    assert "the *client* sends that one" in teach.check("07.session", "Mcp-Method").message


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("07.mrtr", 2.0, None),
        ("07.mrtr", 2.5, "give a number"),
        ("07.forged", -32602.0, None),
        ("07.forged", -32600.0, "-32600 is for a request"),
        ("08.poll-field", {"legacy": "pollInterval ", "modern": " pollIntervalMs"}, None),
        ("08.poll-field", {"legacy": " ttl", "modern": "ttlMs"}, "`ttl` is how long the task is kept"),
        ("09.state", "reconnecting (attempt 1/3)", None),
        ("09.state", "demo state: reconnecting (attempt 1/3) in 0.50 s after: connection lost", None),
        ("09.state", "reconnecting: attempt 1/3 under way since 22:41:07", None),  # the status, once waited
        ("09.state", "disconnected", "after `%mcp disconnect`; nobody disconnected demo"),
        ("09.state", "connecting", "`connecting` is the state of a first connect"),
        (
            "10.handshake",
            ["ui/initialize", *HANDSHAKE_TAIL, "ui/initialize"],
            "`ui/initialize` is listed twice",
        ),
    ],
)
def test_answers_the_sweep_found_misjudged(name, value, says):
    verdict = teach.check(name, value)
    if says is None:
        assert verdict.passed is True, verdict
    else:
        assert verdict.passed is False and says in verdict.message, verdict
    assert "could not read this answer" not in verdict.message


def test_the_state_exercise_never_says_connecting_is_the_state_after_a_disconnect():
    for state in ("disconnected", "connecting"):
        assert "(or after `%mcp disconnect`)" not in teach.check("09.state", state).message


def test_the_cancel_exercise_wants_a_cancel_of_the_students_own_task_on_new(course, lesson):
    mcpnb.serve_probekit("kit", http=True, pool=course)
    url = course.connection("kit").config.url
    course.connect("old", url=url, era="legacy")
    course.connect("new", url=url, era="modern")
    long = course.start_task("new", "slow_task", {"steps": 50, "delay": 0.2})
    long.cancel()
    assert teach.check("08.cancel", long).passed  # a handle cancelled on new, the lesson's or not
    lesson["long"] = long  # ... but section 2's own is not the student's
    assert "that is section 2's `long`" in teach.check("08.cancel", long).message
    on_old = course.start_task("old", "slow_task", {"steps": 50, "delay": 0.2})
    on_old.cancel()
    assert "that task runs on `old`; the exercise asks for `new`" in teach.check("08.cancel", on_old).message
    mine = course.start_task("new", "slow_task", {"steps": 50, "delay": 0.2})
    assert "still working: call `.cancel()`" in teach.check("08.cancel", mine).message
    said = mine.cancel()
    assert "is what `.cancel()` returns" in teach.check("08.cancel", said).message
    assert teach.check("08.cancel", mine).passed
    quick = course.start_task("new", "slow_task", {"steps": 1, "delay": 0})
    quick.result()
    ended = teach.check("08.cancel", quick).message
    assert "it completed: no cancel was sent" in ended
    assert "your cancel came after it had completed" not in ended
    assert quick.cancel() == "completed"  # too late: the check says so, not "no cancel was sent"
    late = teach.check("08.cancel", quick).message
    assert "your cancel came after it had completed" in late and "no cancel was sent" not in late
    assert "call `.cancel()` at once" in late


def test_the_visibility_exercise_after_run_all_says_to_reconnect_not_to_serve_the_full_toolset(
    pool, monkeypatch
):
    """Lesson 10's last cell disconnects probe; the check said to run `%mcp serve probe-kit`, which
    serves every tool, and then the right answer failed ("a model would be offered add_feature")."""
    monkeypatch.setattr("mcpnb.notebook.teach.exercises.course_pool", lambda: pool)
    assert "`%mcp serve probe-kit --toolset apps`" in teach.check("10.visibility", {"dice"}).message
    mcpnb.serve_probekit("probe", pool=pool, toolset="apps")
    toolbox = pool.functions("probe")
    for names in (toolbox.keys(), toolbox.short.keys(), iter(["dice"]), toolbox):
        assert teach.check("10.visibility", names).passed, names
    pool.disconnect("probe")
    for name, answer in (("10.visibility", {"dice"}), ("10.page", "ui://probe-kit/dice.html")):
        said = teach.check(name, answer).message
        assert "run `%mcp reconnect probe`, then check again" in said and "`%mcp serve probe-kit`" not in said
    pool.reconnect("probe")
    assert teach.check("10.visibility", {"dice"}).passed
    mcpnb.serve_probekit("probe", pool=pool)  # the full toolset, as the old message had it served
    full = teach.check("10.visibility", {"dice"}).message
    assert "not the lesson's two" in full and "`%mcp serve probe-kit --toolset apps`" in full
    assert "offered `add_feature` too" not in full
