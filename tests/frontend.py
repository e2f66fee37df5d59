"""Play a widget frontend over jupyter_client: models from iopub, typing and clicks on the shell channel.

Shared by the kernel tests that need a person to click (forms, notebook calls). ipykernel >= 7.4
dispatches comm messages while an async cell waits, so a test can answer a form the cell awaits.
Every reply is matched by its parent ``msg_id``: the shell channel may hold older replies (the
``kernel_info_reply`` that ``start_new_kernel`` leaves behind, a reply to an earlier request).
"""

from __future__ import annotations

import contextlib
import json
import queue
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


class Frontend:
    """Just enough of a widget frontend: models from iopub, updates and clicks on the shell channel."""

    def __init__(self, kc: Any) -> None:
        self.kc = kc
        self.models: dict[str, dict[str, Any]] = {}
        self.opened_by: dict[str, str] = {}
        self.closed: set[str] = set()  # widget comms the kernel closed (their models stay above)
        self.displayed: dict[str, list[str]] = {}  # widget models shown, by cell
        self.displays: dict[str, list[dict[str, Any]]] = {}  # display_data bundles, by cell
        self.stdout: dict[str, str] = {}
        self.results: dict[str, dict[str, Any]] = {}  # execute_result data, by cell
        self.by_display_id: dict[str, dict[str, Any]] = {}  # latest data of each display_id
        self.display_cell: dict[str, str] = {}  # display_id -> the cell that first showed it
        self.statuses: list[tuple[str, str]] = []  # (parent msg_id, execution_state), in order
        self.custom: dict[str, list[Any]] = {}  # a widget's custom messages to the page, by parent msg_id
        #: every custom message of a widget, by comm: one sent from mcpnb's own thread (a result that
        #: landed) has no request of ours as its parent
        self.custom_of: dict[str, list[Any]] = {}

    def execute(self, code: str, **kw: Any) -> str:
        return self.kc.execute(code, **kw)

    def run_ok(self, code: str) -> str:
        """Run a cell to its end and check it did not fail; its msg_id, to read its outputs by."""
        cell = self.execute(code)
        reply = self.reply(cell)
        assert reply["status"] == "ok", reply
        return cell

    def pump(self, seconds: float = 0.05) -> None:
        end = time.monotonic() + seconds
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=max(0.0, min(0.05, end - time.monotonic())))
            except queue.Empty:
                if time.monotonic() >= end:
                    return
                continue
            kind, content = msg["msg_type"], msg["content"]
            parent = msg["parent_header"].get("msg_id", "")
            if kind == "status":
                self.statuses.append((parent, content["execution_state"]))
            elif kind == "comm_open" and content.get("target_name") == "jupyter.widget":
                self.models[content["comm_id"]] = dict(content["data"]["state"])
                self.opened_by[content["comm_id"]] = parent
            elif kind == "comm_close":
                self.closed.add(content["comm_id"])
            elif kind == "comm_msg" and content["data"].get("method") == "update":
                self.models.setdefault(content["comm_id"], {}).update(content["data"]["state"])
            elif kind == "comm_msg" and content["data"].get("method") == "custom":
                self.custom.setdefault(parent, []).append(content["data"]["content"])
                self.custom_of.setdefault(content["comm_id"], []).append(content["data"]["content"])
            elif kind in ("display_data", "update_display_data"):
                if kind == "display_data":
                    self.displays.setdefault(parent, []).append(content["data"])
                view = content["data"].get("application/vnd.jupyter.widget-view+json")
                if view and kind == "display_data":
                    self.displayed.setdefault(parent, []).append(view["model_id"])
                display_id = content.get("transient", {}).get("display_id")
                if display_id:
                    self.by_display_id[display_id] = content["data"]
                    if kind == "display_data":
                        self.display_cell[display_id] = parent
            elif kind == "execute_result":
                self.results[parent] = content["data"]
            elif kind == "stream" and content["name"] == "stdout":
                self.stdout[parent] = self.stdout.get(parent, "") + content["text"]

    def wait_for(self, predicate: Any, timeout: float = 60.0, what: str = "condition") -> Any:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(0.05)
            found = predicate()
            if found:
                return found
        raise AssertionError(f"timed out waiting for {what}")

    def form(
        self, cell: str, *fields: str, buttons: tuple[str, ...] = ("accept",), status: bool = False
    ) -> dict[str, str]:
        """The comm ids of the newest live form ``cell`` shows, once all its widgets came: each
        field's input (``name`` for ``mcpnb-field-name``), each button (``accept`` for
        ``mcpnb-accept``) and its status line, all from that form's own tree (an answered form's
        widgets stay in :attr:`models`, and a cell may show a second form as the first one closes)."""
        wanted = {f: (f"mcpnb-field-{f}", None) for f in fields}
        wanted |= {b: (f"mcpnb-{b}", "ButtonModel") for b in buttons}
        if status:
            wanted["status"] = ("mcpnb-status", None)

        def newest() -> dict[str, str] | None:
            for comm in reversed(list(self.models)):
                if comm in self.closed or not self.find(cell, css="mcpnb-form", within=[comm]):
                    continue
                tree = self.tree(comm)
                ids = {
                    k: self.find(cell, css=css, model=model, within=tree)
                    for k, (css, model) in wanted.items()
                }
                if all(ids.values()):
                    return ids  # type: ignore[return-value]
            return None

        return self.wait_for(newest, what=f"the form with {sorted(wanted)}")

    def find(
        self,
        cell: str | None,
        *,
        css: str | None = None,
        model: str | None = None,
        within: list[str] | None = None,
        **state: Any,
    ) -> str | None:
        """A widget model opened by ``cell`` (None: by anything, e.g. a click handler's new widgets),
        among the comms ``within`` where given (a :meth:`tree`)."""
        for comm_id, st in self.models.items():
            if within is not None and comm_id not in within:
                continue
            if cell is not None and self.opened_by.get(comm_id) != cell:
                continue
            if css is not None and css not in st.get("_dom_classes", []):
                continue
            if model is not None and st.get("_model_name") != model:
                continue
            if all(st.get(k) == v for k, v in state.items()):
                return comm_id
        return None

    def tree(self, comm_id: str) -> list[str]:
        """Widget ``comm_id`` and every widget under it (its ``children``, followed down)."""
        kids = [c.removeprefix("IPY_MODEL_") for c in self.models.get(comm_id, {}).get("children", [])]
        return [comm_id] + [d for kid in kids for d in self.tree(kid)]

    def _send(self, comm_id: str, data: dict[str, Any]) -> str:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.kc.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def set(self, comm_id: str, value: Any) -> str:
        """What typing into an input does: the browser sends the new value (returns the msg_id)."""
        sent = self._send(comm_id, {"method": "update", "state": {"value": value}, "buffer_paths": []})
        self.models[comm_id]["value"] = value
        return sent

    def set_index(self, comm_id: str, index: int) -> None:
        """What picking an option of a Dropdown does (its state is the index)."""
        self._send(comm_id, {"method": "update", "state": {"index": index}, "buffer_paths": []})
        self.models[comm_id]["index"] = index

    def click(self, comm_id: str) -> None:
        self._send(comm_id, {"method": "custom", "content": {"event": "click"}})

    def send_custom(self, comm_id: str, content: Any) -> str:
        """What a widget's own frontend code sends (``model.send``); returns the msg_id its answers
        (``custom[msg_id]``) have as their parent."""
        return self._send(comm_id, {"method": "custom", "content": content})

    def reply(self, msg_id: str, timeout: float = 90.0) -> dict[str, Any]:
        content = shell_reply(self.kc, msg_id, timeout, between=lambda: self.pump(0.02))
        # Outputs may trail the reply; and after an error, ipykernel answers "aborted" to a request
        # that reaches it before it is done aborting (it finishes after sending the error reply).
        # So wait for the request's idle, as a person's next click comes after the cell stops.
        with contextlib.suppress(AssertionError):  # a kernel without the status: as before
            self.wait_for(lambda: (msg_id, "idle") in self.statuses, timeout=10, what="idle")
        return content

    def outcome(self, msg_id: str) -> dict[str, Any]:
        reply = self.reply(msg_id)
        assert reply["status"] == "ok", reply
        line = next(x for x in self.stdout.get(msg_id, "").splitlines() if x.startswith("OUTCOME "))
        return json.loads(line.removeprefix("OUTCOME "))


def iopub_until_idle(kc: Any, msg_id: str, timeout: float = 60.0) -> list[dict[str, Any]]:
    """The iopub messages of request ``msg_id`` up to its ``idle`` status, which ends the list (what
    came within ``timeout`` when it never went idle); other requests' messages are skipped."""
    msgs: list[dict[str, Any]] = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            msg = kc.get_iopub_msg(timeout=0.2)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        msgs.append(msg)
        if is_idle(msg):
            break
    return msgs


def is_idle(msg: dict[str, Any]) -> bool:
    """Whether ``msg`` is the ``idle`` status that ends a request's iopub messages."""
    return msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle"


def shell_reply(kc: Any, msg_id: str, timeout: float = 90.0, between: Any = None) -> dict[str, Any]:
    """The content of the reply to request ``msg_id``; replies to other requests are skipped.

    ``between`` runs while waiting (a frontend pumps iopub there).
    """
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if between is not None:
            between()
        try:
            msg = kc.get_shell_msg(timeout=0.05)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg["content"]
    raise AssertionError(f"no reply to {msg_id} in {timeout} s")


def input_request(kc: Any, msg_id: str, timeout: float = 60.0, between: Any = None) -> dict[str, Any]:
    """The next ``input_request`` that request ``msg_id`` sent on the stdin channel (others skipped)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if between is not None:
            between()
        try:
            msg = kc.get_stdin_msg(timeout=0.05)
        except queue.Empty:
            continue
        if msg["msg_type"] == "input_request" and msg["parent_header"].get("msg_id") == msg_id:
            return msg["content"]
    raise AssertionError(f"no input_request from {msg_id} in {timeout} s")
