"""Widget updates sent while a cell awaits get busy/idle, as the ipywidgets frontend needs.

The widget frontend holds a model's next update until the ``idle`` status of its previous one; on
ipykernel 7.4 an update handled while a cell awaits got none, so everything typed after the first
update stayed in the browser. This test plays that frontend over jupyter_client and reads the
statuses the kernel publishes.
"""

from __future__ import annotations

import pytest

from tests.frontend import Frontend, shell_reply

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

#: the same widgets, in a cell that ends at once
SHOWN = CELL.replace('print("GOT", await asyncio.wait_for(fut, 60))', "")


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
    cell = fe.execute(SHOWN)
    assert fe.reply(cell)["status"] == "ok"
    box = fe.find(cell, css="typed")
    sent = fe.set(box, "idle kernel")
    fe.wait_for(lambda: "idle" in _statuses(fe, sent), what="idle for the update")
    fe.pump(0.3)
    assert _statuses(fe, sent) == ["busy", "idle"]


def test_cells_run_between_widget_updates_keep_their_own_outputs_and_idle(kernel):
    """ipykernel's ``shell_main`` reads the shell parent (the running cell), dispatches a widget
    message concurrently, then sets that parent back. When the cell ended and the next one started
    in between, the next cell's outputs and ``idle`` went to the cell before it, and JupyterLab
    showed it as never finished (lesson 10: a drawn page's message as a cell ended). Quick async
    cells sent among widget updates hit that window: about one cell in four, before the mend."""
    fe = Frontend(kernel)
    fe.run_ok(SHOWN)
    box = fe.find(None, css="typed")
    cells = []
    for i in range(60):
        cells.append(fe.execute(f"await asyncio.sleep(0.002)\nprint('cell {i}')"))
        for j in range(3):
            fe.set(box, f"{i}-{j}")
    assert shell_reply(kernel, cells[-1], between=fe.pump)["status"] == "ok"  # the kernel is done
    fe.pump(0.5)
    never_idle = [i for i, c in enumerate(cells) if (c, "idle") not in fe.statuses]
    assert never_idle == []
    assert [fe.stdout.get(c) for c in cells] == [f"cell {i}\n" for i in range(60)]
    assert all(_statuses(fe, c)[-1] == "idle" for c in cells)


#: CELL with the patch installed from another thread, as a form built off the kernel's thread does
FROM_A_THREAD = CELL.replace(
    'print("PATCHED", commstatus.install_comm_status())',
    "import threading\n"
    "patching = threading.Thread(target=commstatus.install_comm_status, args=(get_ipython().kernel,))\n"
    "patching.start(); patching.join()",
)


@pytest.mark.parametrize("cell_code", [CELL, FROM_A_THREAD], ids=["installed-in-the-cell", "from-a-thread"])
def test_the_list_of_widget_comms_is_answered_while_a_cell_awaits(kernel, cell_code):
    """A tab that opens the notebook while a cell waits for its form restores the widgets; when the
    control channel is slow, JupyterLab asks for the list of widget comms. That list came only once
    the cell ended, so the form never showed in that tab; now it comes at once, with its own
    busy/idle, and the cell stays busy until it ends."""
    assert cell_code.count("install_comm_status") == 1
    fe = Frontend(kernel)
    cell = fe.execute(cell_code)
    fe.wait_for(lambda: fe.find(cell, css="done"), what="the widgets")
    asked = kernel.comm_info(target_name="jupyter.widget")
    listed = shell_reply(kernel, asked, timeout=20, between=fe.pump)["comms"]
    assert (cell, "idle") not in fe.statuses  # the answer came while the cell waits
    assert set(fe.models) <= set(listed)
    assert {c["target_name"] for c in listed.values()} == {"jupyter.widget"}
    fe.wait_for(lambda: _statuses(fe, asked) == ["busy", "idle"], what="busy/idle for the list")
    after = fe.statuses.index((asked, "idle"))
    fe.wait_for(lambda: (cell, "busy") in fe.statuses[after:], what="the cell busy again")
    fe.click(fe.find(cell, css="done"))
    assert fe.reply(cell)["status"] == "ok"
    assert "GOT " in fe.stdout[cell]
    assert _statuses(fe, cell)[-1] == "idle"
