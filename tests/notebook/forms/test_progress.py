"""Progress bar, text progress and the log view."""

from __future__ import annotations

import threading
import time

from conftest import wait_until

from mcpnb.notebook.forms import LogView, ProgressView, TextProgress


def test_progress_view_updates_and_collapses():
    p = ProgressView()
    p.min_interval = 0
    p.update(1, 4, "step <1>")
    assert p.bar.value == 25 and "25%" in p.label.value and "step &lt;1&gt;" in p.label.value
    p.update(3, None, "no total")
    assert "3" in p.label.value and p.bar.value == p.bar.max
    p.done()
    assert p.bar.layout.display == "none" and "done" in p.label.value
    p.update(4, 4)  # late updates are ignored
    assert "done" in p.label.value
    q = ProgressView()
    q.done(ok=False, message="cancelled")
    assert "stopped" in q.label.value and "cancelled" in q.label.value


def test_progress_from_a_thread_is_throttled_but_lands():
    p = ProgressView()
    p.min_interval = 0.05
    pushes = []
    p.label.observe(lambda ch: pushes.append(ch["new"]), names="value")

    def worker():
        for i in range(1, 200):
            p.update(i, 400, f"item {i}")

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    time.sleep(0.2)  # the throttled last state is flushed by a timer
    assert len(pushes) < 50
    assert "item 199" in p.label.value
    p.done()


def test_text_progress_prints_at_most_every_step():
    lines: list[str] = []
    t = TextProgress(lines.append, step=25, interval=60)
    for i in range(101):
        t.update(i, 100, "working")
    t.done()
    assert lines[0].startswith("[....................]   0%")
    assert [line.split("]")[1].split("%")[0].strip() for line in lines[:-1]] == ["0", "25", "50", "75", "100"]
    assert lines[-1].startswith("done in")
    u = TextProgress(lines.append)
    u.update(3)
    assert lines[-1].startswith("[      working       ] 3")  # no total: no bar to fill


def test_a_status_message_alone_shows_no_count():
    """A task reports its state as a status message (tasks/get), no number: the bar says the
    message, not a count of 0 that reads as "nothing done"."""
    lines: list[str] = []
    TextProgress(lines.append).update(0.0, None, "step 1 of 3")
    assert lines == ["[      working       ] step 1 of 3"]
    p = ProgressView()
    p.min_interval = 0
    p.update(0.0, None, "step 1 of 3")
    assert 'role="status"' in p.label.value and " s · step 1 of 3" in p.label.value  # said politely
    assert "<span>0 ·" not in p.label.value


def test_log_view():
    log = LogView()
    assert log.widget.layout.display == "none"  # nothing to show yet
    log.add("warning", "db", "slow <query>")
    log.add("error", None, {"code": 5})

    class Params:  # the SDK's LoggingMessageNotificationParams shape
        level = "info"
        logger = "net"
        data = "ok"

    log.add(Params())
    log.flush()  # lines that came within min_interval of the first are held back until now
    assert log.widget.layout.display is None and not log.open  # shown, collapsed
    # a button (keyboard-focusable, a button role) that says what it does, the count in it
    assert log.toggle.description == "Show server log (3)" and log.body.layout.display == "none"
    log.toggle.click()
    assert log.open and log.toggle.description == "Hide server log (3)"
    log.toggle.click()
    assert not log.open and log.toggle.description == "Show server log (3)"
    assert "slow &lt;query&gt;" in log.body.value and "<query>" not in log.body.value
    assert log.text().splitlines() == ["[warning] db: slow <query>", '[error] {"code": 5}', "[info] net: ok"]
    log.max_entries = 2
    log.add("debug", None, "x")
    log.flush()
    assert len(log.entries) == 2 and "earlier entries dropped" in log.body.value
    assert log.toggle.description == "Show server log (4)"


def test_a_flood_of_log_lines_reaches_the_frontend_in_few_updates_and_whole():
    log = LogView()
    log.min_interval = 0.05
    pushes: list[str] = []
    log.body.observe(lambda ch: pushes.append(ch["new"]), names="value")

    def server() -> None:
        for i in range(2000):
            log.add("info", "db", f"line {i}")

    thread = threading.Thread(target=server)
    thread.start()
    thread.join()
    assert wait_until(lambda: "line 1999" in log.body.value)  # the held-back last lines land by a timer
    assert len(pushes) < 200  # not one resend of the whole log per line
    assert log.toggle.description == "Show server log (2000)"
    assert (
        log.body.value.count("line ") == log.max_entries and "1500 earlier entries dropped" in log.body.value
    )
