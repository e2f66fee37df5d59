"""probe-kit's optional ``resources/directory/read`` (SEP-2640), in both eras over a real session:
one level of a skill's folder at a time, folders marked ``inode/directory``, a file refused with
-32602. The suite's ``sep-2640-skills-directory`` checks it too (tests/conformance)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from mcp import MCPError, types
from pydantic import ConfigDict

from mcpnb import Pool
from mcpnb.probekit import create_server


class _Params(types.RequestParams):
    model_config = ConfigDict(extra="allow")
    uri: str


class _DirectoryRead(types.Request[_Params, str]):
    method: str = "resources/directory/read"
    params: _Params
    name_param: ClassVar[str | None] = None


class _Listing(types.Result):
    model_config = ConfigDict(extra="allow")
    resources: list[dict[str, Any]]


@pytest.fixture(params=["modern", "legacy"])
def read_directory(request):
    pool = Pool()
    pool.connect("probe", server=create_server(toolset="core"), era=request.param)
    conn = pool.connection("probe")
    assert conn.capabilities.extensions["io.modelcontextprotocol/skills"] == {"directoryRead": True}

    def read(uri: str) -> list[dict[str, Any]]:
        sent = conn.client.session.send_request(_DirectoryRead(params=_Params(uri=uri)), _Listing)
        return pool.runtime.run(sent).resources

    yield read
    pool.close()


def test_a_skill_s_folder_lists_its_files_and_folders_one_level_deep(read_directory):
    assert read_directory("skill://probe-kit-tour") == [
        {"uri": "skill://probe-kit-tour/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown"},
        {"uri": "skill://probe-kit-tour/assets", "name": "assets", "mimeType": "inode/directory"},
        {"uri": "skill://probe-kit-tour/references", "name": "references", "mimeType": "inode/directory"},
    ]
    assert read_directory("skill://probe-kit-tour/assets/") == [
        {"uri": "skill://probe-kit-tour/assets/dot.png", "name": "dot.png", "mimeType": "image/png"}
    ]


@pytest.mark.parametrize("uri", ["skill://probe-kit-tour/SKILL.md", "skill://nothing-here", "skill://probe"])
def test_what_is_no_folder_is_invalid_params(read_directory, uri):
    with pytest.raises(MCPError) as refused:
        read_directory(uri)
    assert (
        refused.value.error.code == -32602 and "is no folder of a skill here" in refused.value.error.message
    )
