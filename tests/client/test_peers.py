"""Third-party servers we did not write: server-everything and server-filesystem (npm),
mcp-server-time (PyPI)."""

from __future__ import annotations

import sys

import pytest
from conftest import tcp_sockets

from mcpnb import CallError, ConnectError


def test_server_everything_over_stdio(pool, everything):
    pool.connect(
        "everything", command="node", args=[everything, "stdio"], env={"GZIP_ALLOWED_DOMAINS": "127.0.0.1"}
    )
    row = pool.status()["everything"]
    assert row.state == "connected" and row.era == "legacy"  # a 2025-era peer: auto mode falls back
    names = {t.name for t in pool.tools("everything", refresh=True)}
    assert {"echo", "get-sum", "get-structured-content"} <= names

    assert "hello mcpnb" in pool.call("everything", "echo", {"message": "hello mcpnb"}).text
    assert "42" in pool.call("everything", "get-sum", {"a": 2, "b": 40}).text
    weather = pool.call("everything", "get-structured-content", {"location": "Chicago"})
    assert set(weather.data) >= {"temperature", "conditions", "humidity"}
    assert weather.schema_valid is True
    assert "get-roots-list" not in names  # no roots configured: the capability is not declared
    # its instructions open with a Markdown heading: the preview gives its words
    said = repr(pool.status()).splitlines()[-1]
    assert said.startswith("instructions: Everything Server – Server Instructions …"), said


def test_df_of_a_tool_without_structured_content(pool, everything):
    """Older tools answer in text only: JSON text (server-everything's ``get-env``) becomes a table;
    plain text and an error say what there is instead of "not tabular: got null"."""
    from mcpnb.client.frames import NotTabularError

    pool.connect("everything", command="node", args=[everything, "stdio"], env={"COLOUR": "teal"})
    env = pool.call("everything", "get-env", {})
    assert env.structured is None and env.df.loc[0, "COLOUR"] == "teal"  # one object, one row
    with pytest.raises(
        NotTabularError, match=r"everything.echo returned no structuredContent, only text \(read \.text\)"
    ):
        _ = pool.call("everything", "echo", {"message": "hi"}).df
    from mcp.server.mcpserver import MCPServer

    mine = MCPServer("mine", log_level="WARNING")

    @mine.tool()
    def fail() -> str:
        raise ValueError("the disk is full")

    pool.connect("mine", server=mine)
    failed = pool.call("mine", "fail")
    assert failed.is_error
    with pytest.raises(
        NotTabularError, match=r"^mine.fail failed, so there is no table: Error executing tool fail$"
    ):
        _ = failed.dfs


def test_pool_prompt_checks_names_and_arguments_before_sending(pool, everything):
    """server-everything answers a typo in its own words ("Invalid input: expected string, received
    undefined at city" for ``citty``); the pool names the mistake, and sends a number as text (the
    SDK's model refused it: "1 validation error for GetPromptRequestParams")."""
    from mcpnb.client.errors import ArgumentsError

    pool.connect("ev", command="node", args=[everything, "stdio"])
    with pytest.raises(
        ArgumentsError, match=r"^server 'ev' has no prompt 'args-promt'; did you mean 'args-prompt'\?$"
    ):
        pool.prompt("ev", "args-promt", {"city": "Paris"})
    with pytest.raises(
        ArgumentsError,
        match=r"^ev.args-prompt: unknown argument 'citty'; did you mean 'city'\? \(its arguments: city",
    ):
        pool.prompt("ev", "args-prompt", {"citty": "Paris"})
    with pytest.raises(ArgumentsError, match=r"^ev.args-prompt: missing required argument 'city'$"):
        pool.prompt("ev", "args-prompt", {"state": "IDF"})
    assert "weather in 75001" in pool.prompt("ev", "args-prompt", {"city": 75001}).text
    said = pool.prompt("ev", "args-prompt", {"city": "Paris", "state": None}).text  # None: not given
    assert "Paris" in said and "null" not in said
    with pytest.raises(ArgumentsError, match=r"missing required argument 'city'$"):
        pool.prompt("ev", "args-prompt", {"city": None})


def test_a_prompt_that_embeds_a_resource_keeps_its_text(pool, everything):
    """server-everything's ``resource-prompt`` quotes a resource in its message: ``.text`` (what a
    model would be sent) left it out, and the text view showed ``[user] [resource]``."""
    pool.connect("ev", command="node", args=[everything, "stdio"])
    prompt = pool.prompt("ev", "resource-prompt", {"resourceType": "Text", "resourceId": "3"})
    embedded = [m.content.resource for m in prompt if m.content.type == "resource"]
    assert len(embedded) == 1 and embedded[0].text
    assert embedded[0].text in prompt.text
    shown = repr(prompt)
    assert f"[user] [resource {embedded[0].uri}" in shown and embedded[0].text[:40] in shown


def test_a_resource_read_refused_for_a_typo_says_the_listed_one_it_was_probably(pool, everything):
    from mcpnb import CallError

    pool.connect("ev", command="node", args=[everything, "stdio"])
    doc = "demo://resource/static/document/architecture.md"
    with pytest.raises(CallError, match=rf"not found \(MCP error -32602\); did you mean '{doc}'\?$"):
        pool.read("ev", doc.replace("architecture", "architectur"))
    with pytest.raises(
        CallError, match=r"Unknown resource: demo://resource/dynamic/text/abc \(MCP error -32603\)$"
    ):
        pool.read("ev", "demo://resource/dynamic/text/abc")  # fits a template: the server's words alone
    assert pool.read("ev", doc).text  # the right one reads


def test_server_everything_asks_for_the_configured_roots(pool, everything, tmp_path):
    """MCP roots (2025-11-25): offered only where configured; the server asks with ``roots/list``."""
    (tmp_path / "data").mkdir()
    pool.connect(
        "everything", command="node", args=[everything, "stdio"], roots=[tmp_path, tmp_path / "data"]
    )
    assert pool.connection("everything").config.roots == (str(tmp_path), str(tmp_path / "data"))
    said = pool.call("everything", "get-roots-list").text  # what the server received
    assert (
        "2 total" in said and f"URI: {tmp_path.as_uri()}\n" in said and (tmp_path / "data").as_uri() in said
    )


def test_numpy_values_reach_a_server_we_did_not_write(pool, everything):
    import numpy as np

    pool.connect("everything", command="node", args=[everything, "stdio"])
    said = pool.call("everything", "get-sum", {"a": np.int64(2), "b": np.float64(0.5)}).text
    assert said == "The sum of 2 and 0.5 is 2.5."


def test_a_root_that_is_no_folder_is_refused_before_the_server_starts(pool, everything, tmp_path):
    """It was offered to the server, which would then be told of a place it cannot work in."""
    from mcpnb.client.errors import ConnectError

    (tmp_path / "file.txt").write_text("x")
    for root, why in ((tmp_path / "gone", "does not exist"), (tmp_path / "file.txt", "is not a folder")):
        with pytest.raises(ConnectError, match=rf"key 'roots': the root '{root}' {why}$"):
            pool.connect("everything", command="node", args=[everything, "stdio"], roots=[tmp_path, root])
    assert pool.status()["everything"].retries == 0  # a setting to fix, not a server to retry
    (tmp_path / "gone").mkdir()
    pool.connect("everything", command="node", args=[everything, "stdio"], roots=[tmp_path / "gone"])
    assert "1 total" in pool.call("everything", "get-roots-list").text


def _listening_sockets() -> str:
    return " ".join(local for local, _, state, _ in tcp_sockets() if state == "0A")


def test_server_everything_over_streamable_http_pinned_to_loopback(pool, everything_http):
    port = everything_http.split(":")[2].split("/")[0]
    assert f"0.0.0.0:{port}" not in _listening_sockets()
    pool.connect("everything", url=everything_http)
    assert pool.status()["everything"].state == "connected"
    assert "via http" in pool.call("everything", "echo", {"message": "via http"}).text
    assert "7" in pool.call("everything", "get-sum", {"a": 3, "b": 4}).text
    assert (
        pool.call("everything", "get-structured-content", {"location": "Chicago"}).data["temperature"]
        is not None
    )


def test_a_request_the_server_refuses_fails_alone_and_the_session_keeps_its_state(pool, everything_http):
    """server-everything answers a body over 4 MB with HTTP 413 and a JSON-RPC error -32000, the
    code the SDK gives a closed connection: the pool once took it for a lost connection and started
    a new session, losing the file the session kept."""
    pool.connect("everything", url=everything_http)
    kept = {"name": "keep.gz", "data": "data:text/plain;base64,aGVsbG8K"}
    pool.call("everything", "gzip-file-as-resource", kept)
    with pytest.raises(
        CallError, match=r"echo\(\) on 'everything' failed: HTTP 413 from the server: .*Payload Too Large"
    ):
        pool.call("everything", "echo", {"message": "x" * 5_000_000})
    assert pool.status()["everything"].state == "connected"
    assert pool.read("everything", "demo://resource/session/keep.gz").contents  # the same session


def test_a_wrong_path_says_what_the_servers_html_error_page_says(pool, everything_http):
    # Express answers an unknown path with an HTML page: its words, not its "<!DOCTYPE html>"
    wrong = everything_http.replace("/mcp", "/nope")
    with pytest.raises(ConnectError) as info:
        pool.connect("lost", url=wrong, startup_timeout=10)
    assert f"HTTP 404 Not Found from {wrong} (Cannot POST /nope): nothing answers MCP" in str(info.value)


def test_mcp_server_time_modern_era(pool):
    pool.connect("time", command=sys.executable, args=["-m", "mcp_server_time", "--local-timezone", "UTC"])
    row = pool.status()["time"]
    assert row.state == "connected" and row.era == "modern"
    result = pool.call("time", "get_current_time", {"timezone": "Asia/Tokyo"})
    assert not result.is_error
    assert "Asia/Tokyo" in result.text


def test_completions_from_server_everything_and_names_it_does_not_have(pool, everything):
    from mcpnb.client.errors import ArgumentsError

    pool.connect("everything", command="node", args=[everything, "stdio"])
    assert pool.complete("everything", "completable-prompt", "department", "E") == ["Engineering"]
    assert pool.complete("everything", "completable-prompt", "name", "", {"department": "Sales"}) == [
        "David",
        "Eve",
        "Frank",
    ]
    assert pool.complete("everything", "completable-prompt", "department", "Z") == []  # nothing starts so
    # the server answers an argument it does not have with the same empty list: said, not an empty list
    with pytest.raises(ArgumentsError, match="no argument 'departement'; did you mean 'department'"):
        pool.complete("everything", "completable-prompt", "departement", "E")


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_completions_from_a_server_without_them_are_refused_in_words(pool, era):
    """mcp-server-time declares no completions: "Method not found (MCP error -32601)" before."""
    from mcpnb.client.errors import CallError

    pool.connect("time", command=sys.executable, args=["-m", "mcp_server_time"], era=era)
    with pytest.raises(CallError, match=r"^'time' does not offer completions \(its capabilities have no"):
        pool.complete("time", "anything", "timezone", "Eu")
    assert pool.call("time", "get_current_time", {"timezone": "UTC"}).data["timezone"] == "UTC"


def test_resources_and_prompts_of_a_server_of_tools_only_are_refused_in_words(pool, tmp_path):
    """server-filesystem serves tools only: listing its resources or prompts, or reading a file://
    URI from it, said "Method not found (MCP error -32601)"."""
    from conftest import reference_server

    from mcpnb.client.errors import CallError

    pool.connect("fs", command="node", args=[reference_server("server-filesystem"), str(tmp_path)])
    offers = r"\(its capabilities have no {0}; it offers tools\): {0}/{1} is not a method it has$"
    with pytest.raises(
        CallError, match=r"^'fs' does not offer resources " + offers.format("resources", "list")
    ):
        pool.resources("fs")
    with pytest.raises(CallError, match=r"^'fs' does not offer prompts " + offers.format("prompts", "list")):
        pool.prompts("fs")
    with pytest.raises(
        CallError, match=r"^'fs' does not offer resources " + offers.format("resources", "read")
    ):
        pool.read("fs", tmp_path.as_uri())
    assert "Allowed directories" in pool.call("fs", "list_allowed_directories").text
