"""What a result keeps of the log messages its call received (``result.logs``) is bounded in size as
well as in count: a server that logged 200 messages of 5 MB each made one result hold 1 GB, for as
long as the notebook's ``Out`` kept it. Now a message's data past 2,000,000 characters keeps its
start and says how much more there was, and the newest messages are kept up to 10,000,000
characters in all, the earlier ones counted as dropped (and said so under the result).

A real server (``tests/servers/big_logs_server.py``, hand-written, over stdio) sends the messages.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest
from conftest import ROOT

from mcpnb.notebook.render.result import result_bundle

SERVER = str(ROOT / "tests" / "servers" / "big_logs_server.py")
NOTE = re.compile(r" … \(([\d,]+) more characters not kept\)$")

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def loud(pool: Any) -> Any:
    pool.connect("loud", command=sys.executable, args=[SERVER], tool_timeout=120)
    return pool


def _number(data: Any) -> int:
    """Which message this was (the server starts each with ``#i``)."""
    text = data if isinstance(data, str) else data["blob"]
    return int(re.match(r'(?:\{"n": \d+, "blob": ")?#(\d+) ', text)[1])  # type: ignore[index]


def test_huge_messages_are_cut_and_the_oldest_dropped(loud: Any) -> None:
    sent, count = 5_000_000, 12
    result = loud.call("loud", "shout", {"count": count, "chars": sent})

    assert result.text == f"logged {count}"
    kept = result.logs
    assert 0 < len(kept) < count
    assert result.logs_dropped == count - len(kept)
    assert [_number(p.data) for p in kept] == list(range(count - len(kept), count))  # the newest
    for params in kept:  # each says how much of it is missing, and the two add up to what was sent
        note = NOTE.search(params.data)
        assert note, params.data[-100:]
        assert len(params.data[: note.start()]) + int(note[1].replace(",", "")) == sent
    assert sum(len(p.data) for p in kept) < 2 * sent  # not 60 MB

    shown = result_bundle(result)["text/plain"]
    assert f"the last {len(kept)} of {count} messages ({count - len(kept)} dropped)" in shown


def test_a_huge_json_message_keeps_the_start_of_its_json(loud: Any) -> None:
    result = loud.call("loud", "shout", {"count": 2, "chars": 3_000_000, "shape": "json"})

    assert result.logs_dropped == 0 and len(result.logs) == 2
    for i, params in enumerate(result.logs):
        assert isinstance(params.data, str)  # the object, cut as JSON text (as the log line reads)
        assert params.data.startswith(f'{{"n": {i}, "blob": "#{i} zzz')
        assert NOTE.search(params.data)
        assert len(params.data) < 3_000_000


def test_a_huge_logger_name_is_cut(loud: Any) -> None:
    result = loud.call("loud", "shout", {"count": 1, "chars": 3_000_000, "long_logger": True})

    (params,) = result.logs
    assert params.logger.startswith("LLL") and NOTE.search(params.logger)
    assert len(params.logger) < 1_000


def test_a_huge_meta_is_cut_and_counted(loud: Any) -> None:
    """A message's ``_meta`` (a server's trace, say) is held with it: bounded as its data is, and
    counted in the result's budget (12 small messages with 5 MB each held 60 MB)."""
    result = loud.call("loud", "shout", {"count": 12, "chars": 5_000_000, "long_meta": True, "shape": "text"})

    kept = result.logs
    assert result.logs_dropped == 12 - len(kept) > 0  # the budget counted the meta
    for params in kept:
        said = params.meta["cut"]
        assert said.startswith('{"trace": "MMM') and NOTE.search(said) and len(said) < 2_100_000


def test_messages_within_bounds_are_kept_as_sent(loud: Any) -> None:
    """A megabyte (the hostile server's flood) is well within a message's bound: kept whole, and
    an object stays an object. The count bound is the one it always was: the newest 200."""
    result = loud.call("loud", "shout", {"count": 3, "chars": 1024 * 1024, "shape": "json"})

    assert result.logs_dropped == 0
    assert [p.data["n"] for p in result.logs] == [0, 1, 2]
    assert all(not NOTE.search(p.data["blob"]) for p in result.logs)

    result = loud.call("loud", "shout", {"count": 250, "chars": 20})
    assert len(result.logs) == 200 and result.logs_dropped == 50
    assert [_number(p.data) for p in result.logs] == list(range(50, 250))
    assert all(len(p.data) == 20 for p in result.logs)
