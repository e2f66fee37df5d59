"""Servers that fail as they start, written the way their authors break them: a syntax error, a
name misspelt at import, a dependency that is not there, a Node script that throws. The person is
told the exit code and where it failed (file, line, that line of source), not only the error's last
line; the first connect says what a reconnect says; no secret in the environment shows."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from conftest import children, wait_until

from faults.conftest import QUICK
from mcpnb import ConnectError

PY = sys.executable


def _script(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def _failed_connect(pool, name: str, command: str, script: Path, **more: object) -> str:
    """What a connect of ``script`` says, once its server has failed at start."""
    before = children()
    with pytest.raises(ConnectError) as info:
        pool.connect(name, command=command, args=[str(script)], **QUICK, **more)
    assert wait_until(lambda: not children() - before), "the failed server's process was left behind"
    message = str(info.value)
    assert pool.status()[name].last_error == message.removeprefix(f"could not connect to {name!r}: ")
    return message


def test_a_syntax_error_names_the_file_line_and_source(pool, tmp_path):
    server = _script(
        tmp_path,
        "server.py",
        """
        from mcp.server.mcpserver import MCPServer

        server = MCPServer("broken", log_level="WARNING")


        @server.tool()
        def echo(text: str) -> str:
            return text


        def helper(:
            pass


        if __name__ == "__main__":
            server.run()
        """,
    )
    assert _failed_connect(pool, "syn", PY, server) == (
        "could not connect to 'syn': the server process exited (exit code 1) "
        f"(server stderr: SyntaxError: invalid syntax, at {server}:11: def helper(:)"
    )


def test_a_name_error_at_import_names_the_line_it_happened_on(pool, tmp_path):
    server = _script(
        tmp_path,
        "server.py",
        """
        from mcp.server.mcpserver import MCPServer

        server = MCPServer("broken", log_level="WARNING")
        limit = undefined_setting + 1

        if __name__ == "__main__":
            server.run()
        """,
    )
    message = _failed_connect(pool, "name", PY, server)
    assert message.endswith(
        "(server stderr: NameError: name 'undefined_setting' is not defined, "
        f"at {server}:4: limit = undefined_setting + 1)"
    ), message
    assert "exit code 1" in message


def test_an_import_error_names_the_innermost_frame_the_module_that_failed(pool, tmp_path):
    # the server imports its settings, whose import fails: the place is the settings' line, not the
    # server's "import settings" (the traceback's outer frame)
    _script(
        tmp_path,
        "settings.py",
        """
        import json
        from json import no_such_name
        """,
    )
    server = _script(
        tmp_path,
        "server.py",
        """
        from mcp.server.mcpserver import MCPServer

        import settings

        server = MCPServer("broken", log_level="WARNING")
        """,
    )
    message = _failed_connect(pool, "imp", PY, server)
    assert "(server stderr: ImportError: cannot import name 'no_such_name' from 'json'" in message, message
    assert message.endswith(f", at {tmp_path / 'settings.py'}:2: from json import no_such_name)"), message


def test_a_library_that_raises_on_the_servers_input_is_placed_at_the_servers_line(pool, tmp_path):
    # the innermost frame is json/decoder.py, whose "raise JSONDecodeError(...)" says nothing; the
    # server's own line that called it does
    server = _script(
        tmp_path,
        "server.py",
        """
        import json

        from mcp.server.mcpserver import MCPServer

        config = json.loads("{")
        """,
    )
    message = _failed_connect(pool, "lib", PY, server)
    assert message.endswith(f', at {server}:5: config = json.loads("{{"))'), message
    assert "decoder.py" not in message


def test_a_node_script_that_throws_names_its_file_and_line(pool, tmp_path):
    server = _script(
        tmp_path,
        "server.js",
        """
        const port = 1;
        function start() {
          throw new Error("boom: no config");
        }
        start();
        """,
    )
    message = _failed_connect(pool, "js", "node", server)
    assert message == (
        "could not connect to 'js': the server process exited (exit code 1) (server stderr: "
        f'Error: boom: no config, at {server}:3: throw new Error("boom: no config");)'
    )
    assert "Node.js v" not in message


def test_a_node_server_that_logs_its_error_and_exits_is_placed_by_its_stack(pool, tmp_path):
    # the TypeScript SDK's examples end main() so: console.error(...); process.exit(1). Node then
    # prints no place above the error, only the stack under it
    server = _script(
        tmp_path,
        "server.js",
        """
        async function main() {
          throw new Error("cannot read config.json");
        }
        main().catch((error) => {
          console.error("Fatal error in main():", error);
          process.exit(1);
        });
        """,
    )
    message = _failed_connect(pool, "ts", "node", server)
    assert message.endswith(
        f"(server stderr: Fatal error in main(): Error: cannot read config.json, at {server}:2)"
    ), message


def test_a_node_script_that_throws_no_error_is_told_by_the_value_not_nodes_advice(pool, tmp_path):
    # under a thrown string Node prints "(Use `node --trace-uncaught ...` to show where the exception
    # was thrown)", which named a failure ("exception") and was taken for the reason
    server = _script(tmp_path, "server.js", 'throw "no MCP_PORT given";\n')
    message = _failed_connect(pool, "str", "node", server)
    assert message.endswith(
        f'(server stderr: no MCP_PORT given, at {server}:1: throw "no MCP_PORT given";)'
    ), message


def test_secrets_in_the_source_line_and_the_error_stay_hidden(pool, tmp_path):
    token = "sk-live-4f9a8b7c6d5e3f2a1b0c"
    server = _script(
        tmp_path,
        "server.py",
        f"""
        import os

        if os.environ["API_TOKEN"]:
            raise RuntimeError("token {token} was refused")
        """,
    )
    message = _failed_connect(pool, "sec", PY, server, env={"API_TOKEN": token})
    assert token not in message
    assert message.endswith(
        f'(server stderr: RuntimeError: token *** was refused, at {server}:4: raise RuntimeError("token *** '
        'was refused"))'
    ), message
    assert token not in (pool.status()["sec"].last_error or "")


def test_a_python_c_failure_keeps_its_one_line(pool):
    # python -c has no file to open: "<string>", line 1 is no place worth naming
    code = "import no_such_module_here"
    with pytest.raises(ConnectError) as info:
        pool.connect("py", command=PY, args=["-c", code], **QUICK)
    assert str(info.value) == (
        "could not connect to 'py': the server process exited (exit code 1) "
        "(server stderr: ModuleNotFoundError: No module named 'no_such_module_here')"
    )


def test_the_first_connect_of_a_server_gone_before_its_handshake_says_its_exit_code(pool):
    # a server that exits before mcpnb writes its handshake: the write finds the pipe broken and
    # the SDK said only "Connection closed" (most first connects of this server, on this machine;
    # a reconnect, a little slower, said the exit code). Each connect now waits for the exit.
    for attempt in range(8):
        with pytest.raises(ConnectError) as info:
            pool.connect(
                f"gone{attempt}", command="sh", args=["-c", "echo MY_API_KEY is not set >&2; exit 3"], **QUICK
            )
        assert str(info.value) == (
            f"could not connect to 'gone{attempt}': the server process exited (exit code 3) "
            "(server stderr: MY_API_KEY is not set)"
        ), attempt


def test_a_server_that_closes_its_input_then_exits_says_its_exit_code(pool):
    # its stdin closed at once, its exit later: the handshake's write fails long before the exit
    script = "exec 0<&-; sleep 0.3; echo 'fatal: cannot open the store' >&2; exit 4"
    with pytest.raises(ConnectError) as info:
        pool.connect("shut", command="sh", args=["-c", script], **QUICK)
    assert str(info.value) == (
        "could not connect to 'shut': the server process exited (exit code 4) "
        "(server stderr: fatal: cannot open the store)"
    )


def test_the_place_is_named_when_the_flood_notice_falls_inside_the_traceback(pool, tmp_path, monkeypatch):
    """The notice that a server's stderr is read at a share of the loop's time is mcpnb's line:
    written amid a traceback (its frames read first, its last line after), it hid the place the
    traceback names, and the person got the bare error line. Every read counts as a flood here, so
    the notice comes after the first part; the server writes its traceback in two parts."""
    from mcpnb.client import transports

    monkeypatch.setattr(transports, "STDERR_BURST", 0.0)
    server = _script(
        tmp_path,
        "server.py",
        """
        import sys, time

        sys.stderr.write(
            "Traceback (most recent call last):\\n"
            f'  File "{__file__}", line 4, in <module>\\n'
            "    limit = undefined_setting + 1\\n"
        )
        sys.stderr.flush()
        time.sleep(0.5)
        sys.stderr.write("NameError: name 'undefined_setting' is not defined\\n")
        sys.exit(1)
        """,
    )
    message = _failed_connect(pool, "name", PY, server)
    assert transports.STDERR_FLOOD in pool.connection("name").stderr  # the notice came, amid them
    assert message.endswith(
        "(server stderr: NameError: name 'undefined_setting' is not defined, "
        f"at {server}:4: limit = undefined_setting + 1)"
    ), message
