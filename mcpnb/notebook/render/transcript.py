"""A call's JSON-RPC traffic as a collapsed table under its result (for teaching).

What is drawn is bounded as a result's text is: a server's answer of 50 MB was written whole into
the page (twice: a text block and its structured copy), the notebook file and the browser with it.
Each message shows the start of its payload, and the first messages of a long call; the transcript
keeps every message whole (``result.transcript.messages``).
"""

from __future__ import annotations

from typing import Any

from mcpnb.client.printable import printable
from mcpnb.client.results import json_head
from mcpnb.client.transcript import Message, Transcript
from mcpnb.notebook.render.defaults import DEFAULTS
from mcpnb.notebook.render.html import esc


def transcript_html(transcript: Transcript) -> str:
    """A ``<details>`` block: one row per message, with its time, direction, kind, method and payload
    (at most ``text_limit`` characters of each, at most ``listing_limit`` messages)."""

    def payload(i: int, m: Message) -> str:
        shown, cut = json_head(m.payload, DEFAULTS.text_limit, indent=1)
        more = (
            f'<div class="mcpnb-dim">… (transcript.messages[{i}].payload has it whole)</div>' if cut else ""
        )
        return f"<pre>{esc(shown)}</pre>{more}"

    rows = "".join(
        f"<tr><td class='mcpnb-dim'>{m.at * 1000:.1f} ms</td><td>{esc(m.direction)}</td>"
        f"<td>{esc(m.kind)}</td><td><code>{esc(m.method)}</code></td><td>{payload(i, m)}</td></tr>"
        for i, m in enumerate(transcript.messages[: DEFAULTS.listing_limit])
    )
    hidden = len(transcript) - DEFAULTS.listing_limit
    more = f'<div class="mcpnb-dim">… {hidden} more messages (transcript.messages has them all)</div>'
    return (
        f"<details class='mcpnb-transcript'><summary>transcript: {len(transcript)} messages</summary>"
        f"<table><tbody>{rows}</tbody></table>{more if hidden > 0 else ''}</details>"
    )


def transcript_bundle(transcript: Transcript) -> dict[str, Any]:
    return {"text/plain": printable(repr(transcript)), "text/html": transcript_html(transcript)}
