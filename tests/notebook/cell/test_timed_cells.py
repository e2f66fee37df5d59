"""``%mcp`` inside a cell that IPython's own magics run: ``%%time``, ``%time``, ``%%timeit`` (which
compile the cell themselves, where ``await`` is "outside function") and ``%%capture`` (which runs
it as a cell inside the cell). The rewrite into awaits is for the cell the kernel runs, not for
these: ``%%time`` over a call was a SyntaxError, and under ``%%capture`` the call did nothing at
all, silently (no result, no error, the lines after it not run). In a real kernel."""

from __future__ import annotations

from tests.frontend import Frontend

SETUP = "%load_ext mcpnb\n_ = %mcp serve probe-kit"


def test_a_timed_call_runs_and_its_time_is_printed(kernel):
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    timed = fe.run_ok("%%time\nr = %mcp call probe.greet name=Ada\nprint(r.text)")
    assert "Hello, Ada!" in fe.stdout[timed] and "Wall time" in fe.stdout[timed]
    line = fe.run_ok("%time r2 = %mcp call probe.greet name=Bo\nprint(r2.text)")
    assert "Hello, Bo!" in fe.stdout[line] and "Wall time" in fe.stdout[line]
    loops = fe.run_ok("%%timeit -n 2 -r 1\n%mcp call probe.greet name=Cy")
    assert "per loop" in fe.stdout[loops]


def test_a_captured_call_runs_and_a_question_it_cannot_show_is_declined_with_why(kernel):
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    fe.run_ok("%%capture cap\nr = %mcp call probe.greet name=Di\nafter = 1")
    said = fe.run_ok("print(r.text, after)")
    assert fe.stdout[said].strip() == "Hello, Di! 1"
    # a form would be captured, unseen, and the call would wait for an answer nobody can give
    fe.run_ok("%%capture cap\nasked = %mcp call probe.ask_user question='Your name?'")
    said = fe.run_ok("print(asked.answered_without_asking)")
    assert "%%capture" in fe.stdout[said] and "declined" in fe.stdout[said]
    assert not any(m.get("_model_name") == "TextModel" for m in fe.models.values())  # no form was drawn


def test_the_next_plain_cell_awaits_again(kernel):
    """The cells run by those magics leave the kernel's own cells rewritten as before."""
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    fe.run_ok("%%time\n%mcp call probe.greet name=Ed")
    fe.run_ok("%%capture cap\n%mcp call probe.greet name=Flo")
    fe.run_ok("%mcp call probe.greet name=Gus")
    said = fe.run_ok("print(In[-2])")  # the cell as IPython ran it
    assert "arun_line_magic" in fe.stdout[said], fe.stdout[said]
