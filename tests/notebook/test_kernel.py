"""mcpnb inside a real ipykernel: connections outlive cells, interrupts cancel calls, nothing is orphaned."""

from __future__ import annotations

import json

import nbformat
import pytest
from conftest import ROOT, alive, demo_command, started_kernel, wait_until
from nbclient import NotebookClient

from tests.frontend import iopub_until_idle, is_idle, shell_reply


def _notebook(*cells: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    return nb


def _outputs(cell) -> str:
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def _run(nb) -> nbformat.NotebookNode:
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    return nb


CONNECT = f"""
import mcpnb
pool = mcpnb.default_pool()
pool.connect("demo", **{demo_command()!r})
print(pool.status()["demo"].state)
"""


def test_connection_outlives_cells_and_closes():
    nb = _run(
        _notebook(
            CONNECT,
            "print('pid', pool.call('demo', 'pid').data)",
            "print('pid', pool.call('demo', 'pid').data)",
            "r = await pool.acall('demo', 'pid'); print('pid', r.data)",  # top-level await in a cell
            "pool.close(); print(len(pool))",
        )
    )
    assert _outputs(nb.cells[0]).strip() == "connected"
    pids = {_outputs(c).split()[1] for c in nb.cells[1:4]}
    assert len(pids) == 1, pids  # the same server process served three later cells
    assert _outputs(nb.cells[4]).strip() == "0"
    assert not alive(int(pids.pop()))


def test_kernel_shutdown_leaves_no_server_process():
    nb = _run(_notebook(CONNECT, "print('pid', pool.call('demo', 'pid').data)"))
    pid = int(_outputs(nb.cells[1]).split()[1])
    # nbclient shut the kernel down without pool.close(): atexit must have closed the connection
    assert wait_until(lambda: not alive(pid), timeout=20), "server process outlived its kernel"


def _execute(kc, code: str, timeout: float = 60) -> tuple[str, list[dict]]:
    """Run code; return (status, iopub messages for it)."""
    msg_id = kc.execute(code)
    msgs = iopub_until_idle(kc, msg_id, timeout)
    return shell_reply(kc, msg_id, timeout)["status"], msgs


def _text(msgs: list[dict]) -> str:
    parts = []
    for m in msgs:
        c = m["content"]
        parts.append(c.get("text", "") + c.get("data", {}).get("text/plain", "") + c.get("ename", ""))
    return "".join(parts)


@pytest.mark.parametrize("style", ["sync", "await"])
def test_interrupt_cancels_the_call_on_the_server(style, tmp_path):
    km, kc = started_kernel()
    try:
        connect = CONNECT.replace(
            'pool.connect("demo", ', f'pool.connect("demo", env={{"DEMO_MARKS": {str(tmp_path)!r}}}, '
        )
        assert connect != CONNECT
        status, msgs = _execute(kc, connect)
        assert status == "ok", _text(msgs)
        call = "pool.call('demo', 'slow', {'seconds': 60, 'tag': 'kernel'})"
        if style == "await":
            call = "await pool.acall('demo', 'slow', {'seconds': 60, 'tag': 'kernel'})"
        msg_id = kc.execute(call)
        # wait until the server has started the call, then interrupt the kernel like the ■ button does
        assert wait_until(lambda: (tmp_path / "started-kernel").exists(), timeout=60)
        km.interrupt_kernel()
        reply = shell_reply(kc, msg_id, timeout=30)  # not the kernel_info_reply start_new_kernel left
        assert reply["status"] == "error"
        assert reply["ename"] in ("KeyboardInterrupt", "CancelledError")
        # As a person's next click comes after the cell stops: after an error, ipykernel answers
        # "aborted" to a request that reaches it before it is done aborting (it finishes after
        # sending the error reply).
        went = iopub_until_idle(kc, msg_id, timeout=30)
        assert went and is_idle(went[-1])
        code = (
            "import time\n"
            "for _ in range(50):\n"
            "    got = pool.call('demo', 'cancelled').data\n"
            "    if got: break\n"
            "    time.sleep(0.1)\n"
            "state = pool.status()['demo'].state\n"
            "print(json.dumps(got), state, pool.call('demo', 'echo', {'text': 'ok'}).data)"
        )
        status, msgs = _execute(kc, "import json\n" + code)
        assert status == "ok", _text(msgs)
        got, state, echo = _text(msgs).split()
        assert json.loads(got) == ["kernel"] and state == "connected" and echo == "ok"
    finally:
        km.shutdown_kernel(now=False)
