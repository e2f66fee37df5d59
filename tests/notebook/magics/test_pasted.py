"""A tool call pasted whole into a ``%%mcp call`` body (from the Inspector's history, a transcript,
the spec's examples): its arguments are sent; one that names another tool is said, not sent."""

from __future__ import annotations

import json

import pytest
from IPython.core.error import UsageError

from tests.frontend import Frontend
from tests.notebook.magics.conftest import line

REQUEST = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "greet", "arguments": {"name": "Ada"}},
}


def _serve(ip):
    line(ip, "serve probe-kit")


@pytest.mark.parametrize(
    ("target", "body"),
    [
        ("probe.greet", REQUEST),  # the JSON-RPC request, as a transcript shows it
        ("probe.greet", REQUEST["params"]),  # its params, as the Inspector's history shows them
        ("probe.greet", {"arguments": {"name": "Ada"}}),
        ("probe", REQUEST),  # the server on the line, the tool in the paste
        ("probe", REQUEST["params"]),
    ],
)
def test_a_pasted_call_sends_its_arguments(mcp, ip, target, body):
    _serve(ip)
    result = ip.run_cell_magic("mcp", f"call {target}", json.dumps(body, indent=2))
    assert result.text == "Hello, Ada!"


def test_a_paste_of_another_tool_or_another_method_is_said_and_not_sent(mcp, ip):
    _serve(ip)
    other = {"name": "add", "arguments": {"a": 1, "b": 2}}
    with pytest.raises(
        UsageError, match=r"the cell body is a call of 'add', and the line names probe.greet: call probe.add"
    ):
        ip.run_cell_magic("mcp", "call probe.greet", json.dumps(other))
    prompt = {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "greet"}}
    with pytest.raises(UsageError, match=r"a whole 'prompts/get' request, and %%mcp call sends tools/call"):
        ip.run_cell_magic("mcp", "call probe.greet", json.dumps(prompt))
    tasked = {"name": "greet", "arguments": {"name": "Ada"}, "task": {"ttl": 60000}}
    with pytest.raises(UsageError, match=r"the pasted call asks for a task .*add --task"):
        ip.run_cell_magic("mcp", "call probe.greet", json.dumps(tasked))
    with pytest.raises(UsageError, match=r'a tools/call request whose "params" is no object'):
        ip.run_cell_magic("mcp", "call probe.greet", json.dumps({**REQUEST, "params": "greet"}))
    with pytest.raises(UsageError, match=r'its "arguments" is no object'):
        ip.run_cell_magic("mcp", "call probe.greet", json.dumps({"name": "greet", "arguments": "Ada"}))


def test_a_tool_whose_parameters_have_those_names_takes_the_body_as_written(mcp, ip, pool):
    """``arguments`` and ``method`` are a tool's own parameters here: nothing is unwrapped."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("rpc", log_level="WARNING")

    @server.tool()
    def invoke(name: str, arguments: dict) -> str:
        """Invoke a named function."""
        return f"{name}{sorted(arguments)}"

    @server.tool()
    def send(method: str, params: dict) -> str:
        """Send a JSON-RPC request."""
        return f"{method}{sorted(params)}"

    pool.connect("rpc", server=server)
    said = ip.run_cell_magic("mcp", "call rpc.invoke", json.dumps({"name": "f", "arguments": {"x": 1}}))
    assert said.text == "f['x']"
    said = ip.run_cell_magic("mcp", "call rpc.send", json.dumps({"method": "m", "params": {"y": 2}}))
    assert said.text == "m['y']"


def test_an_awaiting_cell_in_a_kernel_sends_the_pasted_calls_arguments(kernel):
    """In a kernel, a ``%%mcp`` cell awaits (its own path to the server)."""
    fe = Frontend(kernel)
    fe.run_ok("%load_ext mcpnb\n_ = %mcp serve probe-kit")
    done = fe.run_ok("%%mcp call probe\n" + json.dumps(REQUEST, indent=2))
    assert "Hello, Ada!" in json.dumps(fe.results.get(done, {}))
    wrong = fe.execute("%%mcp call probe.greet\n" + json.dumps({"name": "add", "arguments": {"a": 1}}))
    reply = fe.reply(wrong)
    assert reply["status"] == "error" and "the cell body is a call of 'add'" in reply["evalue"]
    assert "Hello" in json.dumps(fe.results.get(fe.run_ok("%mcp call probe.greet name=Bo"), {}))  # carries on


def test_a_cell_magic_under_mcp_is_said_to_go_above_it(mcp, ip, capsys):
    """``%%time`` on the body's first line: IPython runs the first line's cell magic only, and
    greet's one text went out as "Hello, %%time\nname: Ada!" unsaid. A tool whose arguments the
    body is refuses it; one that takes the body as its one text (code, for a server that runs it:
    ``%%bash`` may be meant) gets it as written, and the person is told."""
    _serve(ip)
    with pytest.raises(
        UsageError, match=r"%%capture goes on the cell's first line, above %%mcp .*nothing was sent"
    ):
        ip.run_cell_magic("mcp", "call probe.gen_mock", "%%capture out\ncount: 2")
    with pytest.raises(UsageError, match=r"%%time goes on the cell's first line, above %%mcp"):
        ip.run_cell_magic("mcp", "require", "%%time\nmcpServers: {}")
    assert ip.run_cell_magic("mcp", "call probe.greet", "%%time\nAda").text == "Hello, %%time\nAda!"
    said = capsys.readouterr().err
    assert "%%time goes on the cell's first line, above %%mcp" in said and "the text of 'name'" in said
    # a body whose text holds "%%" that names no magic of IPython's is sent as written, unsaid
    assert ip.run_cell_magic("mcp", "call probe.greet", "%% Section 1").text == "Hello, %% Section 1!"
    assert "goes on the cell's first line" not in capsys.readouterr().err


def test_a_pasted_task_runs_as_one_with_task_on_the_line(mcp, ip):
    """``%%mcp call probe --task`` over a paste that asks for a task: the line's server took the
    paste's tool, and refused it for asking for a task, --task on the line or not."""
    _serve(ip)
    paste = {"name": "slow_task", "arguments": {"steps": 2, "delay": 0.01}, "task": {"ttl": 60000}}
    job = ip.run_cell_magic("mcp", "call probe --task", json.dumps(paste))
    assert job.result(timeout=60).is_error is False
