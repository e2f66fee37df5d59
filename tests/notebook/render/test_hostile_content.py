"""What a hostile or careless server sends is drawn at once and bounded (security sweep).

The server is hand-written (tests/servers/hostile_schema_server.py): its tools' input schemas loop
through ``$ref`` (a definition that names itself, two that name each other, 40 that each name the
next twice) and one answers with as much text as asked. A tool's card must still be drawn, without
following a loop forever or every one of 2**40 paths; a call's transcript shows the start of a huge
answer, and keeps all of it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import mcpnb.notebook.render.tool_card as tool_card
from mcpnb.client.interaction import CallContext
from mcpnb.client.transcript import Transcript
from mcpnb.notebook.render import bundle
from mcpnb.notebook.render.defaults import DEFAULTS
from mcpnb.notebook.render.transcript import transcript_html

HOSTILE = str(Path(__file__).resolve().parents[2] / "servers" / "hostile_schema_server.py")


@pytest.fixture
def hostile(pool: Any) -> Any:
    pool.connect("hs", command=sys.executable, args=[HOSTILE], tool_timeout=30)
    return pool


@pytest.fixture
def bounded_deref(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The card's ``deref``, counted: following every path of ``wide`` (2**40) would never end, so
    more than a few thousand look-ups fail the test instead of hanging it."""
    real, calls = tool_card.deref, [0]

    def counted(spec: Any, root: dict[str, Any]) -> dict[str, Any]:
        calls[0] += 1
        if calls[0] > 5_000:
            raise AssertionError("the card followed the schema's references without end")
        return real(spec, root)

    monkeypatch.setattr(tool_card, "deref", counted)
    return calls


@pytest.mark.parametrize(
    ("tool", "line"),
    [
        ("loop", "x: A (recursive) or null"),
        ("mutual", "x*: A (recursive) or integer or string"),
        ("wide", "x: string"),
        ("node", "tree: an object with keys name, children"),
    ],
)
def test_a_tool_card_words_a_schema_whose_references_loop(
    hostile: Any, bounded_deref: list[int], tool: str, line: str
) -> None:
    info = next(t for t in hostile.tools("hs") if t.name == tool)
    shown = bundle(info)
    assert "could not draw" not in shown["text/plain"], shown["text/plain"]
    assert line in shown["text/plain"].splitlines()
    assert "<table>" in shown["text/html"] and bounded_deref[0] < 200


def test_a_transcript_of_a_huge_answer_shows_its_start_and_keeps_it_whole(hostile: Any) -> None:
    size = 2_000_000
    result = hostile.call("hs", "big", {"n": size}, context=CallContext(transcript=Transcript()))
    answer = result.transcript.messages[-1]
    assert answer.payload["content"][0]["text"] == "x" * size  # kept as it came
    for drawn in (bundle(result.transcript)["text/html"], bundle(result)["text/html"]):
        assert len(drawn) < 3 * DEFAULTS.text_limit + 20_000  # the result's text cut too, not the 2 MB
        assert f"transcript.messages[{len(result.transcript) - 1}].payload has it whole" in drawn


def test_a_long_transcript_draws_its_first_messages_and_says_how_many_more() -> None:
    transcript = Transcript()
    for i in range(DEFAULTS.listing_limit + 50):
        transcript.add("←", "notification", "notifications/progress", {"progress": i})
    drawn = transcript_html(transcript)
    last = DEFAULTS.listing_limit - 1
    assert drawn.count("<tr>") == DEFAULTS.listing_limit
    assert f"&quot;progress&quot;: {last}\n" in drawn and f"&quot;progress&quot;: {last + 1}\n" not in drawn
    assert "… 50 more messages (transcript.messages has them all)" in drawn
    assert f"transcript: {DEFAULTS.listing_limit + 50} messages" in drawn
