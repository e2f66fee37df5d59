"""The client's roots (``roots/list``) as servers we did not write receive them: server-everything
(2025-11-25) and FastMCP 4 (its own venv, over stdio, both eras: mid-call on 2025-11-25, an input
round on 2026-07-28). Each root is a ``file://`` URI with its path percent-encoded (spaces,
non-ASCII, ``%``, ``#``, ``?``), relative roots and ``~`` made absolute.

A folder whose name is not UTF-8 (raw bytes, on Linux) failed the whole list: its name could not be
written as JSON, so the server got an error instead of any root (server-everything then said "no
roots are currently configured").
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import EVERYTHING

pytestmark = pytest.mark.timeout(120)

#: A FastMCP 4 server (run in the peers' venv) whose ``roots`` tool returns the client's roots as
#: JSON, in either era.
PEER = """
import json
import mcp_types
from fastmcp import Context, FastMCP

mcp = FastMCP("roots-peer")


@mcp.tool
async def roots(ctx: Context) -> str:
    if ctx._is_modern_protocol():
        answer = (ctx.input_responses or {}).get("roots")
        if answer is None:
            return mcp_types.InputRequiredResult(input_requests={"roots": mcp_types.ListRootsRequest()})
        got = answer if isinstance(answer, dict) else answer.model_dump(mode="json", exclude_none=True)
        return json.dumps(got["roots"])
    listed = await ctx.session.list_roots()
    return json.dumps([root.model_dump(mode="json", exclude_none=True) for root in listed.roots])


if __name__ == "__main__":
    mcp.run("stdio", show_banner=False)
"""


def _undecodable(tmp_path: Path) -> Path:
    """A folder whose name is the Latin-1 bytes of "latéin", not UTF-8."""
    if sys.platform in ("win32", "darwin"):
        pytest.skip("only Linux file names may be bytes that are not UTF-8")
    folder = os.path.join(os.fsencode(tmp_path), b"lat\xe9in")
    os.mkdir(folder)
    return Path(os.fsdecode(folder))


@pytest.fixture
def peer(tmp_path: Path, fastmcp_venv: Path) -> dict[str, Any]:
    script = tmp_path / "roots_peer.py"
    script.write_text(PEER)
    return {"command": str(fastmcp_venv), "args": [str(script)]}


def test_server_everything_gets_every_root_even_one_not_utf8(pool, tmp_path):
    odd = _undecodable(tmp_path)
    pool.connect("ev", command="node", args=[str(EVERYTHING), "stdio"], roots=[tmp_path, odd])
    said = pool.call("ev", "get-roots-list").text
    assert "2 total" in said, said
    assert f"URI: {tmp_path.as_uri()}/lat%E9in\n" in said and "lat\ufffdin" in said, said


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_fastmcp_gets_percent_encoded_uris_in_both_eras(pool, peer, tmp_path, monkeypatch, era):
    spaced = tmp_path / "dir with space" / "ünï café"
    marked = tmp_path / "50% #1?"
    spaced.mkdir(parents=True)
    marked.mkdir()
    odd = _undecodable(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(spaced))
    roots = ["dir with space/ünï café", "~", marked, odd]  # relative, ~, odd characters, bytes
    pool.connect("fm", era=era, roots=roots, **peer)
    result = pool.call("fm", "roots")
    assert not result.is_error, result.text
    base = tmp_path.as_uri()
    assert json.loads(result.text) == [
        {"uri": f"{base}/dir%20with%20space/%C3%BCn%C3%AF%20caf%C3%A9", "name": "ünï café"},
        {"uri": f"{base}/dir%20with%20space/%C3%BCn%C3%AF%20caf%C3%A9", "name": "ünï café"},
        {"uri": f"{base}/50%25%20%231%3F", "name": "50% #1?"},
        {"uri": f"{base}/lat%E9in", "name": "lat\ufffdin"},
    ]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_root_deleted_after_the_connect_is_not_offered_and_the_log_says_so(pool, peer, tmp_path, era):
    """The roots are checked at the connect; one deleted since was still offered to the server, a
    place it could not work in."""
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    kept.mkdir()
    gone.mkdir()
    pool.connect("fm", era=era, roots=[kept, gone], **peer)
    assert [r["name"] for r in json.loads(pool.call("fm", "roots").text)] == ["kept", "gone"]
    gone.rmdir()
    assert json.loads(pool.call("fm", "roots").text) == [{"uri": kept.as_uri(), "name": "kept"}]
    said = [line for line in pool.logs("fm") if "no folder any more" in line]
    assert said and f"the root {str(gone)!r} is no folder any more: not offered" in said[-1], said
