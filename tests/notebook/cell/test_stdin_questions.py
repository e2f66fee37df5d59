"""The kernel's stdin belongs to the cell that runs: a text question mcpnb asks there never takes
the answer meant for another cell.

A text question (``%config Mcp.elicitation = "text"``) given up (its cell interrupted) kept
polling the kernel's stdin socket in a thread until someone answered: the next cell's ``input()``
or ``getpass()`` hung with no prompt while what was typed (a password too) went to the server, and
that thread, joined at exit, held the kernel's shutdown until SIGTERM. A call from a thread of the
person's own asked on stdin parented to a cell already finished, with the same effect. In a real
kernel; the test plays the frontend (and the person typing)."""

from __future__ import annotations

import sys
import threading
import time
from types import SimpleNamespace

from conftest import DEMO, started_kernel

from tests.frontend import Frontend, input_request

TEXT_SETUP = "%load_ext mcpnb\n%mcp serve probe-kit --era legacy\n%config Mcp.elicitation = 'text'"
ASK = "%mcp call probe.ask_user question='Your name?'"
#: Long enough for any cell of these tests on a loaded machine; a cell whose answer was taken
#: by a question given up never ends at all.
HUNG = 20.0


def _interrupted_question(fe: Frontend, kernel_manager) -> None:
    """Ask on stdin, then interrupt the cell (the ■ button) before anyone answers."""
    cell = fe.execute(ASK, allow_stdin=True)
    input_request(fe.kc, cell, between=lambda: fe.pump(0.05))
    kernel_manager.interrupt_kernel()
    reply = fe.reply(cell)
    assert reply["status"] == "error" and reply["ename"] == "Interrupted", reply


def _typed(fe: Frontend, code: str, answer: str) -> str:
    """Run ``code``, type ``answer`` where it asks on stdin; what the cell printed."""
    cell = fe.execute(code, allow_stdin=True)
    input_request(fe.kc, cell, between=lambda: fe.pump(0.05))
    fe.kc.input(answer)
    reply = fe.reply(cell, timeout=HUNG)  # the answer went elsewhere: no reply at all
    assert reply["status"] == "ok", reply
    return fe.stdout.get(cell, "")


def test_a_question_given_up_leaves_the_next_input_and_getpass_their_answers(kernel):
    fe = Frontend(kernel)
    fe.run_ok(TEXT_SETUP)
    _interrupted_question(fe, kernel.kernel_manager)

    assert "GOT plain" in _typed(fe, "x = input('next? ')\nprint('GOT', x)", "plain")
    said = _typed(fe, "import getpass\nx = getpass.getpass('secret? ')\nprint('GOT', x)", "hunter2")
    assert "GOT hunter2" in said

    # mcpnb asks on stdin again, and gets its own answer
    cell = fe.execute("r = " + ASK + "\nprint('ANSWER', r.data['answers'][0]['answer'])", allow_stdin=True)
    input_request(fe.kc, cell, between=lambda: fe.pump(0.05))
    fe.kc.input("Ada")
    assert fe.reply(cell, timeout=HUNG)["status"] == "ok"
    assert "ANSWER Ada" in fe.stdout[cell]


def test_a_kernel_with_a_question_given_up_shuts_down_by_itself():
    """The question's thread no longer holds the interpreter's exit: a clean shutdown ends the
    kernel with exit code 0, where the kernel manager had to SIGTERM it (−15)."""
    km, kc = started_kernel()
    process = km.provisioner.process
    try:
        fe = Frontend(kc)
        fe.run_ok(TEXT_SETUP)
        _interrupted_question(fe, km)
        kc.stop_channels()
        km.shutdown_kernel(now=False)
        assert process.poll() == 0, process.poll()
    finally:
        if km.is_alive():
            km.shutdown_kernel(now=True)


def test_a_call_from_a_thread_never_asks_on_stdin(kernel):
    """Its cell has ended by the time it asks: a prompt would take the next cell's answer. In
    text mode it is declined and says why; the next cell's input() gets what is typed."""
    fe = Frontend(kernel)
    fe.run_ok(TEXT_SETUP + "\nimport mcpnb, threading\npool = mcpnb.default_pool()")
    fe.run_ok(
        "got = []\n"
        "def work():\n"
        "    got.append(pool.call('probe', 'ask_user', {'question': 'From a thread?'}))\n"
        "worker = threading.Thread(target=work)\nworker.start()"
    )
    assert "GOT mine" in _typed(fe, "x = input('mine? ')\nprint('GOT', x)", "mine")
    cell = fe.run_ok(
        "worker.join(30)\nprint('ACTION', got[0].data['action'])\nprint(got[0].answered_without_asking)"
    )
    said = fe.stdout[cell]
    assert "ACTION decline" in said
    assert "the call came from a thread of its own, which may not ask on stdin" in said


def test_a_call_from_a_thread_asks_in_a_form_where_widgets_show(kernel):
    """Its wait holds no cell, so a click reaches the kernel: the form shows in the cell."""
    fe = Frontend(kernel)
    fe.run_ok("%load_ext mcpnb\n%mcp serve probe-kit --era legacy\nimport mcpnb, threading")
    cell = fe.run_ok(
        "got = []\n"
        "def work():\n"
        "    got.append(mcpnb.default_pool().call('probe', 'ask_user', {'question': 'Colour?'}))\n"
        "worker = threading.Thread(target=work)\nworker.start()"
    )
    form = fe.form(cell, "answer")
    fe.set(form["answer"], "teal")
    fe.click(form["accept"])
    said = fe.stdout[fe.run_ok("worker.join(30)\nprint('GOT', got[0].data['answers'][0]['answer'])")]
    assert "GOT teal" in said


def test_a_question_from_a_widget_callback_says_it_was_one(kernel):
    """A click's callback cannot wait for a form (the click that answers would never be handled),
    so the question is declined, but not as if nobody were there (nbclient): it says where it came
    from and what to do instead."""
    fe = Frontend(kernel)
    fe.run_ok("%load_ext mcpnb\n%mcp serve probe-kit --era legacy\nimport mcpnb, ipywidgets")
    cell = fe.run_ok(
        "got = []\n"
        "button = ipywidgets.Button(description='ask')\n"
        "button.on_click(lambda _: got.append(\n"
        "    mcpnb.default_pool().call('probe', 'ask_user', {'question': 'From a click?'})))\n"
        "button._dom_classes = ('ask-button',)\ndisplay(button)"
    )
    fe.wait_for(lambda: fe.find(cell, css="ask-button"), what="the button")
    fe.click(fe.find(cell, css="ask-button"))
    fe.wait_for(lambda: _len(fe, "got") == 1, what="the click's call")
    said = fe.stdout[fe.run_ok("print(got[0].data['action'], got[0].answered_without_asking)")]
    assert said.startswith("decline"), said
    assert "the call was made in a widget's callback (on_click, observe)" in said
    assert "await pool.acall(...)" in said and "answers=" in said
    assert "nbclient" not in said


def _len(fe: Frontend, name: str) -> int:
    cell = fe.run_ok(f"print('LEN', len({name}))")
    return int(fe.stdout[cell].split("LEN", 1)[1])


def test_autoawait_off_runs_the_magic_synchronously(kernel):
    """``%autoawait off`` makes a top-level ``await`` a SyntaxError: the cell is not rewritten."""
    fe = Frontend(kernel)
    fe.run_ok(f"%load_ext mcpnb\n%mcp connect demo -- {sys.executable} {DEMO} stdio")
    fe.run_ok("%autoawait off")
    shown = fe.run_ok("%mcp call demo.echo text=plain")
    assert "plain" in fe.results[shown]["text/plain"]
    said = fe.stdout[fe.run_ok("x = %mcp call demo.echo text=kept\nprint('GOT', x.data)")]
    assert "GOT kept" in said
    fe.run_ok("%autoawait asyncio")
    said = fe.stdout[fe.run_ok("x = %mcp call demo.echo text=back\nprint('GOT', x.data)")]
    assert "GOT back" in said


def test_two_text_questions_never_read_stdin_at_once():
    """Two calls of one awaiting cell may ask at once; only one may poll the kernel's stdin socket
    (zmq sockets are not thread-safe, and a second prompt would take the first one's answer)."""
    from mcpnb.notebook.cell.questions import _Console

    inside, most, lock = [0], [0], threading.Lock()

    def read(prompt: str) -> str:
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.2)
        with lock:
            inside[0] -= 1
        return prompt

    ui = SimpleNamespace(kernel=object(), ended=None, input=read, secret_input=read)
    answers: list[str] = []
    readers = [
        threading.Thread(target=lambda n=n: answers.append(_Console(ui).input(f"q{n}"))) for n in range(2)
    ]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(10)
    assert sorted(answers) == ["q0", "q1"] and most[0] == 1, (answers, most)
