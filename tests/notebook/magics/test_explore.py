"""Exploring subcommands through a real IPython shell against real servers: tools, call (line and
cell), resources, read, prompts, prompt. The demo server over stdio, a counting server in-process,
server-everything over stdio. No protocol mocking."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import pytest
from IPython.core.error import UsageError

from mcpnb.client.errors import ConnectError
from mcpnb.client.results import ToolResult

from .conftest import bundle, cell, connect_demo, line

PY = sys.executable


def test_tools_listing_filter_and_store(ip, mcp):
    connect_demo(ip)
    line(ip, "serve probe-kit --toolset core")
    every = line(ip, "tools")
    assert {t.server for t in every} == {"demo", "probe"}
    only = line(ip, "tools demo --filter point -o found")
    assert [t.name for t in only] == ["point", "bad_point"]
    assert ip.user_ns["found"] is only
    assert [t.name for t in line(ip, "tools demo point")] == ["point", "bad_point"]  # the same, shorter
    with pytest.raises(UsageError, match="give the pattern once"):
        line(ip, "tools demo point --filter add")
    line(ip, "serve probe-kit --name full")
    ui = {t.name for t in line(ip, "tools full ui")}  # in a name, or a word of the description
    assert {"ui_search", "genui", "start_ui", "render_ui"} <= ui
    assert not ui & {"open_local_page", "analyze_project", "security_scan"}  # "required", "built"
    globbed = [t.name for t in line(ip, "tools demo --filter 'p*'")]
    assert {"pid", "people", "point"} <= set(globbed) and all(n.startswith("p") for n in globbed)
    data = bundle(ip, only)
    assert "x*" in data["text/plain"] and "<table" in data["text/html"]
    with pytest.raises(UsageError, match="did you mean 'demo'"):
        line(ip, "tools dmeo")


def test_a_filter_that_keeps_nothing_says_so(ip, mcp, capsys):
    """ "(no tools)" alone read as if the server had none; said once, in the listing's place (it was
    printed, with "(no tools)" still shown under it)."""
    connect_demo(ip)
    capsys.readouterr()
    kept = line(ip, "tools demo zzz")
    assert list(kept) == [] and capsys.readouterr().out == ""
    said = bundle(ip, kept)["text/plain"]
    assert said.startswith("no tool of demo matches 'zzz' (") and said.endswith(
        "tools: %mcp tools demo lists them)"
    )
    assert "(no tools)" not in said
    assert "no tool" not in bundle(ip, line(ip, "tools demo point"))["text/plain"]  # something matched


def test_a_listing_of_every_server_names_those_it_could_not_list(ip, mcp):
    connect_demo(ip)
    with pytest.raises(ConnectError):
        line(ip, "connect gone -- /nonexistent/server")
    every = line(ip, "tools")
    note = "not listed: gone (failed); %mcp status says more"
    assert {t.server for t in every} == {"demo"} and every.not_listed == {"gone": "failed"}
    data = bundle(ip, every)
    assert data["text/plain"].endswith("\n" + note) and note in data["text/html"]
    assert note in bundle(ip, line(ip, "tools --filter 'p*'"))["text/plain"]  # a filter keeps it
    assert "not listed" not in bundle(ip, line(ip, "tools demo"))["text/plain"]
    line(ip, f"connect time -- {PY} -m mcp_server_time")  # connected, and offers neither: not named
    for listing in ("resources", "prompts"):
        found = line(ip, listing)
        assert found.not_listed == {"gone": "failed"}, listing
        assert repr(found).endswith("\n" + note) and note in bundle(ip, found)["text/html"]
        assert line(ip, f"{listing} time").not_listed == {}
    box = line(ip, "functions")  # tools a model will not be told of: the person is
    assert box.not_listed == {"gone": "failed"} and repr(box).endswith("\nnot in this toolbox: gone (failed)")
    assert "not in this toolbox: gone (failed)" in bundle(ip, box)["text/html"]
    assert line(ip, "functions demo").not_listed == {}


# ---------------------------------------------------------------- calls
def test_call_line_capture_and_store(ip, mcp):
    connect_demo(ip)
    result = line(ip, "call demo.add a=1 b=2")
    assert isinstance(result, ToolResult) and result.data == 3
    cell(ip, "x = %mcp call demo.echo text='hello world'")
    assert ip.user_ns["x"].text == "hello world"
    line(ip, "call demo.people -o people")
    assert list(ip.user_ns["people"].df["name"]) == ["Ada", "Linus", "Grace"]
    assert line(ip, "call add a=5 b=5").data == 10  # a bare tool name works when it is unique


def test_a_tool_name_with_a_space_typed_unquoted_is_shown_quoted(ip, mcp):
    from mcp.server.mcpserver import MCPServer

    srv = MCPServer("spaced", log_level="WARNING")
    srv.add_tool(lambda: "hi", name="my tool")
    ip.user_ns["spaced_server"] = srv
    line(ip, "connect s {{spaced_server}}")
    with pytest.raises(UsageError) as info:
        line(ip, "call s.my tool")
    said = str(info.value)
    assert "server 's' has no tool 'my'; did you mean s.'my tool'? (a name with a space is quoted)" in said
    suggested = said.split("did you mean ", 1)[1].split("?", 1)[0]
    assert line(ip, f"call {suggested}").text == "hi"  # as suggested, it runs


def test_call_text_argument_keeps_what_was_typed(ip, mcp):
    connect_demo(ip)
    assert line(ip, "call demo.echo text=007").data == "007"  # the schema wants a string
    assert line(ip, "call demo.echo text=true").data == "true"


def test_a_json_object_or_a_dict_on_the_line_is_the_arguments(ip, mcp):
    """``%mcp call demo.add {"a": 1, "b": 2}``, as people type it after seeing the JSON a tool takes."""
    connect_demo(ip)
    assert line(ip, 'call demo.add {"a": 40, "b": 2}').data == 42
    ip.user_ns["args"] = {"a": 1, "b": 2}
    assert line(ip, "call demo.add {{args}}").data == 3
    assert line(ip, 'call demo.echo {"text": "a {b} c"}').data == "a {b} c"  # spaces and braces kept
    assert line(ip, 'call demo.add {"a": 5} b=6').data == 11  # with key=value beside it
    with pytest.raises(UsageError, match=r"^the magic line: argument 'a' is given twice$"):
        line(ip, 'call demo.add {"a": 5, "b": 1} a=6')
    with pytest.raises(UsageError, match=r"^the magic line: invalid JSON at line 1, column \d+"):
        line(ip, 'call demo.add {"a": 5, "b": 1')  # never closes
    with pytest.raises(UsageError, match=r"^\{\{args\}\} is a list; the magic line needs a dict"):
        ip.user_ns["args"] = [1, 2]
        line(ip, "call demo.add {{args}}")


def test_cell_call_body_forms_and_interpolation(ip, mcp):
    connect_demo(ip)
    ip.user_ns["who"] = "Ada"
    ip.user_ns["num"] = 40
    cell(ip, "%%mcp call demo.echo -o r1\ntext: hello {{who}}\n")
    assert ip.user_ns["r1"].data == "hello Ada"
    cell(ip, "%%mcp call demo.echo -o r1\ntext: 'it''s {{who}}: 007'\n")  # YAML's single quotes
    assert ip.user_ns["r1"].data == "it's Ada: 007"
    cell(ip, '%%mcp call demo.echo -o r1\ntext: "it\'s"\n')  # JSON's double quotes
    assert ip.user_ns["r1"].data == "it's"
    cell(ip, "%%mcp call demo.echo -o r1\ntext: it's 'here'\n")  # quotes inside a text stay
    assert ip.user_ns["r1"].data == "it's 'here'"
    cell(ip, '%%mcp call demo.add -o r2\n{"a": {{num}}, "b": 2}\n')
    assert ip.user_ns["r2"].data == 42
    cell(ip, "%%mcp call demo.echo -o r3\ntext: costs $5 {not an expression}\n")
    assert ip.user_ns["r3"].data == "costs $5 {not an expression}"  # no $var / {expr} expansion
    res = cell(ip, "r4 = %mcp call demo.echo text=$who")  # IPython's way, not ours: said, not sent
    assert isinstance(res.error_in_exec, UsageError)
    assert str(res.error_in_exec).startswith("$who would reach the server as typed")
    assert "{{who}}" in str(res.error_in_exec)
    res = cell(ip, """r4 = %mcp call demo.echo text='"$who"'""")  # as JSON text: sent as typed
    assert res.success and ip.user_ns["r4"].data == "$who"
    code = "def page():\n    return render('{{ title }}')\n"  # a template's braces, kept as typed
    res = cell(ip, "%%mcp call demo.echo -o r5\ntext: |\n" + "".join(f"  {x}\n" for x in code.splitlines()))
    assert res.success and ip.user_ns["r5"].data == code


def test_interpolation_sees_function_locals(ip, mcp):
    connect_demo(ip)
    ip.user_ns["who"] = "global"
    cell(
        ip,
        "def f():\n    who = 'local'\n    r = %mcp call demo.echo text={{who}}\n    return r\nfrom_f = f()",
    )
    assert ip.user_ns["from_f"].data == "local"
    cell(  # an expression sees them too, before the notebook's
        ip,
        'def g():\n    n = 20\n    r = %mcp call demo.add a={{n * 2}} b="{{len(who) - 4}}"\n    return r\n'
        "from_g = g()",
    )
    assert ip.user_ns["from_g"].data == 42


def test_trailing_semicolon_silences(ip, mcp):
    connect_demo(ip)
    silenced = cell(ip, "%mcp status;")
    assert silenced.success and silenced.result is None
    assert cell(ip, "%mcp status").result is not None


def test_cell_call_timeout_and_raw(ip, mcp):
    connect_demo(ip)
    cell(ip, "%%mcp call demo.add --raw -o raw\na: 1\nb: 1\n")
    assert ip.user_ns["raw"]["structuredContent"] == {"result": 2}
    assert "application/json" in bundle(ip, ip.user_ns["raw"])
    res = cell(ip, "%%mcp call demo.slow --timeout 0.5\nseconds: 5\n")
    assert res.error_in_exec is not None and "timed out" in str(res.error_in_exec)
    shown = "\n".join(res.error_in_exec._render_traceback_())  # the advice names the magic's option
    assert "pass --timeout SECONDS to wait longer (%config Mcp.tool_timeout = SECONDS" in shown
    assert "timeout=" not in shown and "raise tool_timeout" not in shown  # how, not what
    with pytest.raises(UsageError, match=r"--timeout must be greater than 0, got 0\.0"):
        line(ip, "call demo.slow seconds=1 --timeout 0")


@pytest.fixture
def counter(mcp):
    """An in-process server whose only tool records every call it receives."""
    from mcp.server.mcpserver import MCPServer

    calls: list[int] = []
    server = MCPServer("counter", log_level="WARNING")

    @server.tool()
    def count(n: int, label: str = "") -> int:
        """Record a call."""
        calls.append(n)
        return len(calls)

    mcp.pool.connect("counter", server=server)
    return calls


def test_bad_arguments_are_caught_before_anything_is_sent(ip, mcp, counter):
    with pytest.raises(UsageError, match=r"argument 'n': \"abc\" is not of type \"integer\"") as info:
        line(ip, "call counter.count n=abc")
    assert "nothing was sent" in str(info.value) and "count(n*: integer" in str(info.value)
    with pytest.raises(UsageError, match=r"line 2\): \"x\" is not of type"):
        cell(ip, '%%mcp call counter.count\nlabel: ok\nn: "x"\n').raise_error()
    with pytest.raises(UsageError, match="missing required argument 'n'"):
        line(ip, "call counter.count label=x")
    with pytest.raises(UsageError, match=r"unknown argument 'nn'.*did you mean 'n'"):
        line(ip, "call counter.count nn=1")
    assert counter == []  # the server saw no call at all
    assert line(ip, "call counter.count n=7").data == 1
    assert counter == [7]


def test_json_lists_and_objects_typed_on_the_line_reach_the_tool_whole(ip, mcp):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("picker", log_level="WARNING")

    @server.tool()
    def pick(choices: list[str], weights: dict[str, int] | None = None) -> dict[str, Any]:
        """Answer with what arrived."""
        return {"choices": choices, "weights": weights}

    mcp.pool.connect("picker", server=server)
    got = line(ip, 'call picker.pick choices=["a b", "c"] weights={"a b": 2}')
    assert got.data == {"choices": ["a b", "c"], "weights": {"a b": 2}}
    got = line(ip, "call picker.pick choices='[\"x\"]'")  # quoted as a shell would want: still works
    assert got.data["choices"] == ["x"]


def test_unknown_tools_servers_and_subcommands_suggest(ip, mcp):
    connect_demo(ip)
    with pytest.raises(UsageError, match="did you mean 'echo'"):
        line(ip, "call demo.ecko text=x")
    with pytest.raises(UsageError, match="did you mean 'demo'"):
        line(ip, "call dmeo.echo text=x")
    with pytest.raises(UsageError, match="did you mean 'tools'"):
        line(ip, "tols")
    with pytest.raises(UsageError, match="did you mean '--timeout'"):
        line(ip, "call demo.echo text=x --timout 3")
    with pytest.raises(UsageError, match="takes no cell body"):
        ip.run_cell_magic("mcp", "status", "something")
    # a server named without its tool or prompt says to name one, and where they are listed
    with pytest.raises(
        UsageError, match=r"^'demo' is a server: name one of its tools, demo.TOOL \(%mcp tools demo"
    ):
        line(ip, "call demo")
    with pytest.raises(
        UsageError, match=r"got 'demo.': name the tool after the dot \(%mcp tools demo lists them\)"
    ):
        line(ip, "call demo.")
    with pytest.raises(
        UsageError, match=r"got 'demo': name one of its prompts, demo.PROMPT \(%mcp prompts demo"
    ):
        line(ip, "prompt demo")
    # a space for the dot read the tool as a malformed key=value ("expected key=value, got 'echo'")
    with pytest.raises(
        UsageError, match=r"^write the tool as demo.echo, with a dot: %mcp call demo.echo key=value …$"
    ):
        line(ip, "call demo echo text=x")
    with pytest.raises(UsageError, match=r"^write the tool as demo.echo, with a dot: %mcp call demo.echo$"):
        line(ip, "call demo echo")
    with pytest.raises(
        UsageError, match=r"^write the prompt as demo.greet, with a dot: %mcp prompt demo.greet key"
    ):
        line(ip, "prompt demo greet name=x")
    with pytest.raises(UsageError, match=r"expected key=value, got 'echo'"):
        line(ip, "call demo.add echo")  # a real mistake in the arguments is still said as one
    assert line(ip, "call demo.echo echo").data == "echo"  # echo's one text parameter, bare
    for sub, needed in (("call", "NAME.TOOL"), ("prompt", "NAME.PROMPT")):  # not the optional key=value
        with pytest.raises(UsageError, match=rf"the following arguments are required: {needed}\n"):
            line(ip, sub)


def test_tool_error_renders_as_server_error(ip, mcp):
    connect_demo(ip)
    result = line(ip, "call demo.fail message=nope")
    assert result.is_error
    data = bundle(ip, result)
    assert "The server reported an error" in data["text/plain"] and "nope" in data["text/plain"]


# ---------------------------------------------------------------- server-everything, resources, prompts
@pytest.fixture
def everything_connected(ip, mcp, everything):
    return line(ip, f"connect ev -- node {everything} stdio")


def test_everything_calls(ip, mcp, everything_connected):
    assert "5" in line(ip, "call ev.get-sum a=2 b=3").text
    image = line(ip, "call ev.get-tiny-image")
    assert "image/png" in bundle(ip, image)
    structured = line(ip, "call ev.get-structured-content location=Chicago")
    assert structured.data is not None


def test_one_tool_in_full_and_the_call_it_suggests(ip, mcp, everything_connected):
    """``%mcp tools ev.get-structured-content``: the listing's row in full (it said "no server named
    'ev.get-structured-content'"); the call line it suggests runs as written."""
    card = line(ip, "tools ev.get-structured-content -o card")
    assert ip.user_ns["card"] is card and (card.server, card.name) == ("ev", "get-structured-content")
    text = bundle(ip, card)["text/plain"]
    assert 'location*: one of: "New York", "Chicago", "Los Angeles"\n    Choose city' in text
    assert "returns: structured content: an object with keys temperature*, conditions*, humidity*" in text
    suggested = text.rsplit("call it: %mcp ", 1)[1]
    assert line(ip, suggested).data["temperature"] is not None
    assert (
        "(default 10)"
        in bundle(ip, line(ip, "tools ev.trigger-long-running-operation --refresh"))["text/plain"]
    )
    assert line(ip, "tools mcp__ev__get-sum") == line(ip, "tools ev.get-sum")  # a flat name too
    with pytest.raises(UsageError, match="shows one tool: a pattern filters a listing"):
        line(ip, "tools ev.get-sum --filter a")
    with pytest.raises(UsageError, match="server 'ev' has no tool 'get-summ'; did you mean 'get-sum'"):
        line(ip, "tools ev.get-summ")
    with pytest.raises(UsageError, match="no server named 'nope'"):
        line(ip, "tools nope.get-sum --refresh")


def test_resources_read_prompts_prompt(ip, mcp, everything_connected):
    res = line(ip, "resources ev -o res")
    assert ip.user_ns["res"] is res and len(res) > 0
    uri = str(res[0].uri)
    assert "<table" in bundle(ip, res)["text/html"]
    contents = line(ip, f"read ev {uri}")
    assert contents.text and uri in bundle(ip, contents)["text/plain"]
    prompts = line(ip, "prompts ev")
    assert "args-prompt" in repr(prompts) and "city*" in repr(prompts)
    listed = repr(res)  # the templates too, placeholders shown: fill them in to read one
    assert "demo://resource/dynamic/text/{resourceId}" in listed and "Dynamic Blob Resource" in listed
    with pytest.raises(
        UsageError,
        match=r"fill in \{resourceId\} first, e.g. %mcp read ev demo://resource/dynamic/text/VALUE",
    ):
        line(ip, "read ev demo://resource/dynamic/text/{resourceId}")
    blob = line(ip, "read ev demo://resource/dynamic/blob/1")
    shown = bundle(ip, blob)["text/plain"]
    assert "blob" in shown and "text/plain" in shown  # summarised: size and type
    html = bundle(ip, blob)["text/html"]
    assert (
        "save it: r = %mcp read ev demo://resource/dynamic/blob/1, then r.save(&#x27;.&#x27;) (as 1.txt)"
        in html
    )
    assert "[blob: text/plain" in repr(blob)  # print() outside a notebook says as much
    assert blob.text.startswith("Resource 1: ")  # its bytes are text/plain: read as text too
    assert blob.text in repr(blob) and blob.text in bundle(ip, blob)["text/html"]
    messages = line(ip, "prompt ev.args-prompt city=Paris state=IDF")
    assert "Paris" in repr(messages)
    with pytest.raises(UsageError, match="missing required argument 'city'"):
        line(ip, "prompt ev.args-prompt")
    with pytest.raises(UsageError, match=r"did you mean 'args-prompt'\? \(%mcp prompts ev lists them\)$"):
        line(ip, "prompt ev.args-promt city=x")
    everything_listing = line(ip, "prompts")
    assert len(everything_listing) == len(prompts)


def test_a_prompts_bare_word_goes_to_the_argument_the_named_ones_leave(ip, mcp, everything_connected):
    """server-everything's ``args-prompt(city*, state)``: ``state=`` named, the bare word is the city
    (as a tool's bare value goes to the parameter its named ones leave)."""
    said = line(ip, 'prompt ev.args-prompt state=IDF "Paris la Défense"').text
    assert "Paris la Défense" in said and "IDF" in said
    assert "Lyon" in line(ip, "prompt ev.args-prompt Lyon").text  # alone: the one required, as before
    with pytest.raises(UsageError, match="expected key=value, got 'Lyon'"):  # both named: nothing left
        line(ip, "prompt ev.args-prompt city=Paris state=IDF Lyon")


def test_one_prompt_in_full_and_the_line_it_suggests(ip, mcp, everything_connected):
    """``%mcp prompts ev.args-prompt``, as ``%mcp tools NAME.TOOL`` (it said: no server named
    'ev.args-prompt'): each argument's description, and the line to get it."""
    card = line(ip, "prompts ev.args-prompt -o card")
    assert ip.user_ns["card"] is card and card.prompt.name == "args-prompt"
    text = bundle(ip, card)["text/plain"]
    assert text.startswith("ev.args-prompt") and "\narguments:\ncity*\n    " in text and "\nstate\n" in text
    suggested = text.rsplit("get it: %mcp ", 1)[1]
    assert suggested == "prompt ev.args-prompt city=…"
    assert "Lyon" in line(ip, suggested.replace("…", "Lyon")).text
    assert "<code>city*</code>" in bundle(ip, card)["text/html"]
    with pytest.raises(
        UsageError, match="server 'ev' has no prompt 'args-promt'; did you mean 'args-prompt'"
    ):
        line(ip, "prompts ev.args-promt")


def test_resources_and_prompts_of_every_server_name_one_whose_listing_failed(ip, mcp, tmp_path):
    """The faulty server offers resources and prompts, then answers their listing with HTTP 500:
    the other servers' rows are listed, and that one is named with why, not left out."""
    import subprocess

    from conftest import ROOT, wait_until

    faulty = subprocess.Popen(
        [PY, str(ROOT / "tests" / "servers" / "faulty_server.py"), "http", "--marks", str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = faulty.stdout.readline().strip()
        line(ip, f"connect web {url} --wait 30")
        connect_demo(ip)
        for listing in ("resources", "prompts"):
            line(ip, "call web.fail_next status=500")
            listed = line(ip, listing)
            assert set(listed.servers) == {"demo"} and len(listed) > 0
            assert list(listed.not_listed) == ["web"] and listed.not_listed["web"].startswith(
                "listing failed: "
            )
            assert "not listed: web (listing failed: " in repr(listed)
            assert wait_until(lambda: mcp.pool.status()["web"].state == "connected")
    finally:
        faulty.kill()
        faulty.wait()


SHOP = """
import fastmcp
from pydantic import BaseModel

class Line(BaseModel):
    sku: str
    qty: int = 1

shop = fastmcp.FastMCP("shop")

@shop.tool
def order(lines: list[Line], ship_to: dict[str, str], note: str = "") -> dict:
    return {"items": sum(item.qty for item in lines), "city": ship_to["city"], "note": note}
"""


def test_a_yaml_body_reaches_a_fastmcp_tool_with_nested_arguments(ip, mcp):
    """A FastMCP server written in the notebook (pydantic models as arguments), called with the body
    people write after ``%%mcp require``: YAML's flow style and a ``- item`` list."""
    assert cell(ip, SHOP).success
    line(ip, "connect shop {{shop}}")
    body = "lines:\n  - {sku: A1, qty: 2}\n  - sku: B2\nship_to: {street: 1 Main, city: Oslo}\n"
    result = ip.run_cell_magic("mcp", "call shop.order", body)
    assert result.data == {"items": 3, "city": "Oslo", "note": ""}
    # on the line too; a string argument keeps the text typed, braces and all
    result = line(ip, "call shop.order lines=[{sku: A1, qty: 4}] ship_to={city: Bergen} note={draft}")
    assert result.data == {"items": 4, "city": "Bergen", "note": "{draft}"}
    with pytest.raises(
        UsageError, match=r"argument 'lines'\[0\]\[\"qty\"\] \(line 2\): \"two\" is not of type"
    ):
        ip.run_cell_magic(
            "mcp", "call shop.order", "lines:\n  - {sku: A1, qty: two}\nship_to: {city: Oslo}\n"
        )


def test_an_error_deep_in_a_yaml_block_names_its_own_line(ip, mcp):
    """A mistake inside an indented block points at the line it is on, not at the block's key
    (``lines:`` was line 4 of a nine-line body; the bad ``qty`` is line 9)."""
    assert cell(ip, SHOP).success
    line(ip, "connect shop {{shop}}")
    body = (
        "ship_to:\n  street: 1 Main\n  city: Oslo\nlines:\n  - sku: A1\n    qty: 2\n"
        "\n  - sku: B2\n    qty: two\nnote: gift\n"
    )
    with pytest.raises(UsageError) as caught:
        ip.run_cell_magic("mcp", "call shop.order", body)
    assert 'argument \'lines\'[1]["qty"] (line 9): "two" is not of type' in str(caught.value)
    fixed = body.replace("qty: two", "qty: 3")
    assert ip.run_cell_magic("mcp", "call shop.order", fixed).data == {
        "items": 5,
        "city": "Oslo",
        "note": "gift",
    }
    # a key the schema wants but a nested object lacks: the object's own line
    with pytest.raises(UsageError) as caught:
        ip.run_cell_magic("mcp", "call shop.order", fixed.replace("  - sku: B2\n    qty", "  - qty"))
    assert "argument 'lines'[1] (line 8): \"sku\" is a required property" in str(caught.value)


def test_one_file_for_a_list_of_files_says_how_to_write_the_list(ip, mcp, tmp_path):
    """server-filesystem's ``read_multiple_files`` takes ``paths``, an array: ``paths=notes.txt``
    said only 'is not of type "array"'; what the error says to write then reads the file."""
    from tests.conftest import reference_server

    (tmp_path / "notes.txt").write_text("the notes\n")
    line(ip, f"connect fs -- node {reference_server('server-filesystem')} {tmp_path}")
    note = tmp_path / "notes.txt"
    with pytest.raises(UsageError) as caught:
        line(ip, f"call fs.read_multiple_files paths={note}")
    hint = f"a list is written in brackets: paths=[{note}]"
    assert hint in str(caught.value) and "(nothing was sent)" in str(caught.value)
    assert "the notes" in line(ip, f"call fs.read_multiple_files paths=[{note}]").text
    with pytest.raises(
        UsageError,
        match=re.escape(
            f'(line 1): {json.dumps(str(note))} is not of type "array"; '
            "a list is written in brackets: paths: ["
        ),
    ):
        cell(ip, f"%%mcp call fs.read_multiple_files\npaths: {note}").raise_error()
