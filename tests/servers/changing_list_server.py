"""A hand-written stdio server whose tools and prompts change while a listing is on its way: it
reads its list, the list changes (``notifications/*/list_changed`` is sent), and the listing it had
read goes out after the notice. A client that keeps that listing as fresh serves the old list until
its cache expires.

Run: ``python tests/servers/changing_list_server.py``. The 2025-11-25 handshake. Tools:

- ``version()``: how many times the lists changed.
- ``change_during_next_list()``: the next ``tools/list`` or ``prompts/list`` answers with the list
  as it was, after the change and its notice.
"""

from __future__ import annotations

from handwritten import answer, greeting, refuse, requests, send

CAPABILITIES = {"tools": {"listChanged": True}, "prompts": {"listChanged": True}}
state = {"version": 1, "change_pending": False}


def tools() -> list[dict]:
    names = ["version", "change_during_next_list"] + [f"added_{n}" for n in range(2, state["version"] + 1)]
    return [{"name": name, "inputSchema": {"type": "object"}} for name in names]


def prompts() -> list[dict]:
    return [{"name": f"prompt_v{state['version']}"}]


def main() -> None:
    for method, request_id, params in requests():
        opening = greeting(method, params, "legacy", "changing", CAPABILITIES)
        if opening is not None:
            answer(request_id, opening)
        elif method in ("tools/list", "prompts/list"):
            listing = {"tools": tools()} if method == "tools/list" else {"prompts": prompts()}
            if state["change_pending"]:
                state["change_pending"] = False
                state["version"] += 1
                which = method.split("/")[0]
                send({"jsonrpc": "2.0", "method": f"notifications/{which}/list_changed"})
            answer(request_id, listing)
        elif method == "tools/call" and params.get("name") == "change_during_next_list":
            state["change_pending"] = True
            answer(request_id, {"content": []})
        elif method == "tools/call":
            answer(request_id, {"content": [{"type": "text", "text": str(state["version"])}]})
        elif method == "ping":
            answer(request_id, {})
        else:
            refuse(request_id)


if __name__ == "__main__":
    main()
