"""``%mcp serve`` run again in a real kernel, this test playing the person over jupyter_client: a
serve cell run again (or Run All from the top) leaves a healthy probe-kit with those settings as it
is, its task in flight and its URL kept; other settings or ``--restart`` start it afresh, said."""

from __future__ import annotations

from tests.frontend import Frontend

ALREADY = "probe is already serving (in-process, toolset tasks); --restart starts it afresh"


def test_a_serve_cell_run_again_keeps_the_task_in_flight(kernel):
    fe = Frontend(kernel)
    serve = "%load_ext mcpnb\n%mcp serve probe-kit --toolset tasks"
    first = fe.run_ok(serve)
    assert "connected" in fe.results[first]["text/plain"]
    fe.run_ok("job = %mcp call probe.slow_task steps=30 delay=0.05 --task")
    again = fe.run_ok(serve)  # the person runs the first cell again while the task works
    done = fe.execute("r = job.result(timeout=60)\nprint('DONE', r.is_error, r.data['totalPrimes'] > 0)")
    reply = fe.reply(done)
    assert reply["status"] == "ok", reply  # it was "server 'probe' is disconnected"
    assert "DONE False True" in fe.stdout[done]
    assert fe.stdout[again].splitlines()[-1] == ALREADY  # (after %load_ext's "already loaded")
    assert "connected" in fe.results[again]["text/plain"]  # the same status row as before

    fresh = fe.run_ok("%mcp serve probe-kit --toolset tasks --restart")
    assert fe.stdout[fresh] == "restarted probe afresh, as asked\n"
    changed = fe.run_ok("%mcp serve probe-kit --toolset core")
    assert fe.stdout[changed] == "restarted probe: toolset tasks → core\n"
    assert "connected" in fe.results[changed]["text/plain"]


def test_an_http_serve_run_again_keeps_its_url_for_the_other_clients(kernel):
    fe = Frontend(kernel)
    serve = "%load_ext mcpnb\n%mcp serve probe-kit --http --name kit"
    fe.run_ok(serve)
    fe.run_ok(
        "import mcpnb\nurl = mcpnb.default_pool().connection('kit').config.url\n"
        "other = mcpnb.Pool()  # another kernel, an Inspector: a client of the URL\n"
        "other.connect('other', url=url);"
    )
    again = fe.run_ok(serve)
    check = fe.run_ok(
        "print('SAME', mcpnb.default_pool().connection('kit').config.url == url, url)\n"
        "print('OTHER', other.call('other', 'estimate', {'task': 'x'}).data['task'])"
    )
    assert "SAME True" in fe.stdout[check] and "OTHER x" in fe.stdout[check], fe.stdout[check]
    url = fe.stdout[check].split()[2]
    said = fe.stdout[again].splitlines()[-1]
    assert said == f"kit is already serving ({url}, toolset full); --restart starts it afresh", said

    moved = fe.run_ok("%mcp serve probe-kit --http --name kit --toolset ui")
    said = fe.stdout[moved]
    assert said == "restarted kit: toolset full → ui\n", said  # on its port: the other client goes on
    kept = fe.run_ok("print('OTHER', other.call('other', 'ui_search', {'query': 'login'}).is_error)")
    assert "OTHER False" in fe.stdout[kept], fe.stdout[kept]
    fe.run_ok("other.close()")
