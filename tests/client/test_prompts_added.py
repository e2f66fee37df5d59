"""A prompt a server adds while connected: FastMCP on a 2026-07-28 connection declares no
``prompts.listChanged`` (so never says so), and mcpnb's cached list refused the new prompt
("server 'fm' has no prompt 'fresh'", nothing sent) for the cache's whole life (5 minutes)."""

from __future__ import annotations

from typing import Any

import pytest

from mcpnb.client.errors import ArgumentsError
from tests.client.writer import writer


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_prompt_added_since_the_list_was_cached_is_found(pool: Any, era: str) -> None:
    pool.connect("fm", server=writer(), era=era)
    assert [p.name for p in pool.prompts("fm")] == ["draft"]  # the list, now cached
    assert pool.call("fm", "add_prompt", {"name": "fresh"}).text == "added fresh"
    said = pool.prompt("fm", "fresh", {"topic": "tides", "tone": "calm"})
    assert said.text == "[fresh] tides in a calm tone"
    with pytest.raises(ArgumentsError, match=r"has no prompt 'frash'; did you mean 'fresh'"):
        pool.prompt("fm", "frash", {"topic": "tides"})  # still refused, said with the new list


def test_find_prompt_asks_again_for_a_prompt_added_since_and_says_a_typo(pool: Any) -> None:
    pool.connect("fm", server=writer(), era="modern")
    assert [p.name for p in pool.prompts("fm")] == ["draft"]
    pool.call("fm", "add_prompt", {"name": "fresh"})
    found = pool.find_prompt("fm", "fresh")
    assert found.name == "fresh" and {a.name for a in found.arguments} >= {"topic"}
    with pytest.raises(ArgumentsError, match=r"^server 'fm' has no prompt 'frsh'; did you mean 'fresh'\?$"):
        pool.find_prompt("fm", "frsh")
