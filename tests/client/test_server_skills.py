"""Skills a server offers (SEP-2640) through the pool, against probe-kit in both eras: a listing
reads no file, a load reads and checks SKILL.md, a file is read on demand and checked. The refusals
(a file that is not what the listing says) run against the conformance suite's servers, which we
did not write (tests/conformance: sep-2640-client-verify-*)."""

from __future__ import annotations

import hashlib
import re

import pytest
from mcp.server.mcpserver import MCPServer

from mcpnb import Pool
from mcpnb.client.server_skills import NoSkillsError, SkillVerificationError, frontmatter_of
from mcpnb.probekit import create_server


@pytest.fixture
def pool():
    p = Pool()
    yield p
    p.close()


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_skills_are_listed_then_loaded_and_read_checked(pool, era, tmp_path):
    server = create_server(root=tmp_path)
    pool.connect("probe", server=server, era=era)
    reads: list[str] = []
    conn = pool.connection("probe")
    real = conn.read_resource

    async def counting(uri: str):
        reads.append(uri)
        return await real(uri)

    conn.read_resource = counting  # the skills read through the connection: count what they read
    skills = {s.name: s for s in pool.skills("probe")}
    assert sorted(skills) == ["probe-kit-tour", "review-a-change"] and reads == []  # listing reads nothing
    review = skills["review-a-change"]
    assert review.uri == "skill://review-a-change/SKILL.md" and review.description.startswith("Review a code")
    assert {f.uri for f in review.files} == {review.uri, "skill://review-a-change/checklist.md"}
    loaded = review.load()
    assert reads == [review.uri] and loaded.body.startswith("\n# Review a change")
    assert frontmatter_of(loaded.text) == review.frontmatter
    listed = review.entry(review.uri)
    assert listed.size == len(loaded.text.encode())
    assert listed.digest == "sha256:" + hashlib.sha256(loaded.text.encode()).hexdigest()
    checklist = loaded.read("checklist.md")  # by its path in the skill, or by its URI
    assert checklist.startswith('# Before saying "approve"') and loaded.read(reads[-1]) == checklist
    with pytest.raises(SkillVerificationError, match=re.escape("lists no file skill://review-a-change/x.md")):
        loaded.read("x.md")  # only what the listing names is read: this one never reaches the server
    checklist_uri = "skill://review-a-change/checklist.md"
    assert reads == [review.uri, checklist_uri, checklist_uri]


def test_a_server_without_skills_says_so(pool):
    pool.connect("plain", server=MCPServer("plain"))
    said = "'plain' offers no skills: it does not declare the io.modelcontextprotocol/skills extension"
    with pytest.raises(NoSkillsError, match=re.escape(said)):
        pool.skills("plain")


@pytest.mark.anyio
async def test_the_async_face_from_a_running_loop(pool, tmp_path):
    """From a notebook's own loop (an awaiting cell): the reads hop onto mcpnb's runtime loop."""
    pool.connect("probe", server=create_server(root=tmp_path))
    tour = next(s for s in await pool.askills("probe") if s.name == "probe-kit-tour")
    loaded = await tour.aload()
    toolsets = await loaded.aread("references/toolsets.md")
    assert loaded.body.lstrip().startswith("# A tour of probe-kit") and "| `core` |" in toolsets
    dot = await loaded.aread("assets/dot.png")  # a binary file: its bytes, checked as bytes
    assert (
        isinstance(dot, bytes)
        and dot.startswith(b"\x89PNG")
        and len(dot) == tour.entry("skill://probe-kit-tour/assets/dot.png").size
    )
