"""Widget updates sent while a cell awaits get busy/idle, as the ipywidgets frontend needs.

The widget frontend holds a model's next update until the ``idle`` status of its previous one; on
ipykernel 7.4 an update handled while a cell awaits got none, so everything typed after the first
update stayed in the browser. This test plays that frontend over jupyter_client and reads the
statuses the kernel publishes.
"""

from __future__ import annotations

from tests.frontend import Frontend

CELL = """
import asyncio
from IPython.display import display
import ipywidgets as w
import mcpnb.notebook.cell.commstatus as commstatus
print("PATCHED", commstatus.install_comm_status())
box = w.Text(description="typed")
box.add_class("typed")
done = w.Button(description="done")
done.add_class("done")
fut = asyncio.get_running_loop().create_future()
done.on_click(lambda _b: fut.done() or fut.set_result(box.value))
display(w.VBox([box, done]))
print("GOT", await asyncio.wait_for(fut, 60))
"""


def _statuses(fe: Frontend, parent: str) -> list[str]:
    return [state for p, state in fe.statuses if p == parent]


def test_each_update_to_an_awaiting_cell_gets_busy_then_idle(kernel):
    fe = Frontend(kernel)
    cell = fe.execute(CELL)
    fe.wait_for(lambda: fe.find(cell, css="done"), what="the widgets")
    box = fe.find(cell, css="typed")
    updates = [fe.set(box, text) for text in ("N", "Ne", "New")]
    for sent in updates:  # what the frontend waits for before it sends the next update
        fe.wait_for(lambda s=sent: _statuses(fe, s) == ["busy", "idle"], what=f"idle for {sent}")
    # and the kernel still says the cell is busy: the cell's own status comes back after each one
    last_idle = fe.statuses.index((updates[-1], "idle"))
    fe.wait_for(lambda: (cell, "busy") in fe.statuses[last_idle:], what="the cell busy again")
    fe.click(fe.find(cell, css="done"))
    reply = fe.reply(cell)
    assert reply["status"] == "ok", reply
    assert "PATCHED True" in fe.stdout[cell]
    assert "GOT New" in fe.stdout[cell]
    assert _statuses(fe, cell)[-1] == "idle"  # the cell ends idle, as always


def test_updates_while_the_kernel_is_idle_keep_their_single_status(kernel):
    """Outside an awaiting cell ipykernel publishes the statuses itself: nothing is doubled."""
    fe = Frontend(kernel)
    cell = fe.execute(CELL.replace('print("GOT", await asyncio.wait_for(fut, 60))', ""))
    assert fe.reply(cell)["status"] == "ok"
    box = fe.find(cell, css="typed")
    sent = fe.set(box, "idle kernel")
    fe.wait_for(lambda: "idle" in _statuses(fe, sent), what="idle for the update")
    fe.pump(0.3)
    assert _statuses(fe, sent) == ["busy", "idle"]
