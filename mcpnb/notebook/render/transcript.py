"""A call's JSON-RPC traffic as a collapsed table under its result (for teaching)."""

from __future__ import annotations

import json
from typing import Any

from mcpnb.client.printable import printable
from mcpnb.client.transcript import Message, Transcript
from mcpnb.notebook.render.html import esc


def transcript_html(transcript: Transcript) -> str:
    """A ``<details>`` block: one row per message, with its time, direction, kind, method and payload."""

    def payload(m: Message) -> str:
        return esc(json.dumps(m.payload, indent=1, ensure_ascii=False, default=str))

    rows = "".join(
        f"<tr><td class='mcpnb-dim'>{m.at * 1000:.1f} ms</td><td>{esc(m.direction)}</td>"
        f"<td>{esc(m.kind)}</td><td><code>{esc(m.method)}</code></td><td><pre>{payload(m)}</pre></td></tr>"
        for m in transcript.messages
    )
    return (
        f"<details class='mcpnb-transcript'><summary>transcript: {len(transcript)} messages</summary>"
        f"<table><tbody>{rows}</tbody></table></details>"
    )


def transcript_bundle(transcript: Transcript) -> dict[str, Any]:
    return {"text/plain": printable(repr(transcript)), "text/html": transcript_html(transcript)}
