"""Saving the files a result holds: server-everything's image and blob resources (a peer we did
not write), an in-process server's several files and hostile names, a resource read."""

from __future__ import annotations

import base64

import pytest
from conftest import connect_everything
from mcp.server.mcpserver import Image, MCPServer
from mcp.types import BlobResourceContents, EmbeddedResource, ImageContent, TextContent

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def test_server_everythings_image_and_blob_are_saved_as_sent(pool, tmp_path):
    connect_everything(pool)
    tiny = pool.call("ev", "get-tiny-image")
    image = next(b for b in tiny.content if b.type == "image")
    written = tiny.save(tmp_path / "tiny.png")
    assert written == tmp_path / "tiny.png" and written.read_bytes() == base64.b64decode(image.data)
    assert written.read_bytes().startswith(b"\x89PNG")

    ref = pool.call("ev", "get-resource-reference", {"resourceType": "Blob", "resourceId": 2})
    blob = next(b.resource for b in ref.content if b.type == "resource")
    into = ref.save(f"{tmp_path}/out/")  # a new folder: the name its URI gives, typed by its mime
    assert into == tmp_path / "out" / "2.txt" and into.read_bytes() == base64.b64decode(blob.blob)

    with pytest.raises(ValueError, match=r"^there is no file to save here: result.content holds no image"):
        pool.call("ev", "echo", {"message": "hi"}).save(tmp_path)
    links = pool.call("ev", "get-resource-links", {"count": 1})  # links only: where to read the file
    with pytest.raises(
        ValueError, match=r"holds a link to a resource, not the resource: .*pool\.read\('ev', "
    ):
        links.save(tmp_path)

    doc = pool.read("ev", "demo://resource/static/document/architecture.md")  # a text resource
    saved = doc.save(tmp_path)
    assert saved == tmp_path / "architecture.md" and saved.read_text(encoding="utf-8") == doc.text


def test_several_files_ask_which_and_a_servers_name_stays_in_the_folder(pool, tmp_path):
    server = MCPServer("exports", log_level="WARNING")

    @server.tool()
    def export() -> list[TextContent | ImageContent | EmbeddedResource]:
        sneaky = BlobResourceContents(uri="file:///../../../etc/passwd", blob="aGk=", mimeType="text/plain")
        dots = BlobResourceContents(uri="x://host/..", blob="aGk=", mimeType="application/pdf")
        return [
            TextContent(type="text", text="two files"),
            Image(data=PNG, format="png").to_image_content(),
            EmbeddedResource(type="resource", resource=sneaky),
            EmbeddedResource(type="resource", resource=dots),
        ]

    pool.connect("exports", server=server)
    r = pool.call("exports", "export")
    with pytest.raises(
        ValueError, match=r"^3 files here; say which: which=1 \(exports.export-1.png\), which=2"
    ):
        r.save(tmp_path)
    assert r.save(tmp_path, which=1).read_bytes() == PNG
    assert r.save(tmp_path, which=2) == tmp_path / "passwd.txt"  # its name only, never its path
    assert r.save(tmp_path, which=3) == tmp_path / "exports.export-3.pdf"  # no name: one made up
    with pytest.raises(ValueError, match=r"^item 0 of result.content is no image, audio or resource"):
        r.save(tmp_path, which=0)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "exports.export-1.png",
        "exports.export-3.pdf",
        "passwd.txt",
    ]


def test_a_servers_name_never_replaces_a_different_file_in_the_folder(pool, tmp_path):
    """The server names a file saved into a folder: its ``notes.ipynb`` must not clobber the
    notebook beside it. The same bytes again (a cell run twice) are fine; the caller's own file
    name, or overwrite=True, replaces."""
    server = MCPServer("exports", log_level="WARNING")

    @server.tool()
    def export() -> list[EmbeddedResource]:
        doc = BlobResourceContents(
            uri="x://files/notes.ipynb", blob="bmV3", mimeType="application/x-ipynb+json"
        )
        return [EmbeddedResource(type="resource", resource=doc)]

    @server.resource("x://files/notes.ipynb", mime_type="application/x-ipynb+json")
    def notes() -> bytes:
        return b"new"

    pool.connect("exports", server=server)
    mine = tmp_path / "notes.ipynb"
    mine.write_bytes(b"my notebook")
    r = pool.call("exports", "export")
    for save in (
        lambda **kw: r.save(tmp_path, **kw),
        lambda **kw: pool.read("exports", "x://files/notes.ipynb").save(f"{tmp_path}/", **kw),
    ):
        with pytest.raises(FileExistsError) as refused:
            save()
        said = str(refused.value)
        assert f"{mine} exists" in said and "not replaced" in said
        assert f".save('{tmp_path / 'notes-new.ipynb'}')" in said and "overwrite=True" in said
        assert mine.read_bytes() == b"my notebook"
    assert r.save(tmp_path / "notes-new.ipynb").read_bytes() == b"new"  # the name it suggested works
    assert r.save(tmp_path / "notes-new.ipynb").read_bytes() == b"new"  # the same bytes again: no loss
    assert r.save(tmp_path, overwrite=True) == mine and mine.read_bytes() == b"new"
    assert r.save(tmp_path) == mine  # now the same bytes: a cell run twice saves again
    mine.write_bytes(b"my notebook")
    assert r.save(mine).read_bytes() == b"new"  # a file path the caller wrote is theirs to replace


def test_a_wav_is_saved_as_a_wav(tmp_path):
    """Python 3.11's mimetypes has no ``audio/wav``: a WAV was saved as ``.bin``."""
    from mcpnb.client.files import files_in

    audio = {"type": "audio", "data": base64.b64encode(b"RIFF....WAVE").decode(), "mimeType": "audio/wav"}
    [found] = files_in([audio], "fm.sound")
    assert found.name == "fm.sound-0.wav"
