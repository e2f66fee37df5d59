"""What a person playing the model sees of a sampling request's pictures and sounds and settings.

A FastMCP 4 server (its own venv, over stdio) asks with a real PNG and WAV, an SVG and an image
whose base64 is broken, a temperature, model hints and priorities, stop sequences and
``includeContext``; the panel is built from the request as it arrived. "Describe this picture" is
only answerable when the picture is shown, yet a server's SVG (or HTML) must never reach the page.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from mcpnb import Interaction
from mcpnb.notebook.forms import SamplingOutcome, SamplingPanel, ask_sampling_text, sampling_view
from tests.media import png, wav

pytestmark = pytest.mark.timeout(120)

#: What a form shows of one picture or sound (decoded), and of one request's together
#: (``mcpnb.notebook.forms.panels.MEDIA_CAP`` and ``MEDIA_TOTAL_CAP``).
MEDIA_CAP = 10_000_000
MEDIA_TOTAL_CAP = 32_000_000


PNG, WAV = png(2, 1), wav(80)
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
B64 = {name: base64.b64encode(raw).decode() for name, raw in (("png", PNG), ("wav", WAV), ("svg", SVG))}

PEER = """
import mcp_types as t
from fastmcp import Context, FastMCP

mcp = FastMCP("shows-peer")


@mcp.tool
async def describe(ctx: Context) -> str:
    say = lambda role, content: t.SamplingMessage(role=role, content=content)
    got = await ctx.session.create_message(
        [
            say("user", t.TextContent(type="text", text="Describe this picture")),
            say("user", t.ImageContent(type="image", data=@PNG@, mime_type="image/png")),
            say("assistant", t.TextContent(type="text", text="And this sound?")),
            say("user", t.AudioContent(type="audio", data=@WAV@, mime_type="audio/wav")),
            say("user", t.ImageContent(type="image", data=@SVG@, mime_type="image/svg+xml")),
            say("user", t.ImageContent(type="image", data="!!not*base64!!", mime_type="image/png")),
        ],
        max_tokens=77, system_prompt="Be terse.", temperature=0.3, stop_sequences=["END"],
        include_context="thisServer",
        model_preferences=t.ModelPreferences(
            hints=[t.ModelHint(name="claude-3-sonnet")], cost_priority=0.2, intelligence_priority=0.9
        ),
    )
    return got.content.text


if __name__ == "__main__":
    mcp.run("stdio", show_banner=False)
"""
for _name, _data in B64.items():
    PEER = PEER.replace(f"@{_name.upper()}@", repr(_data))


class Person(Interaction):
    """Builds the panel for each request as it arrived, keeps it, and types a reply."""

    def __init__(self) -> None:
        super().__init__()
        self.panels: list[SamplingPanel] = []
        self.asked: list[Any] = []

    async def sample(self, server: str, params: Any, call: Any) -> Any:
        self.asked.append(params)
        got: list[SamplingOutcome] = []
        panel = SamplingPanel(params, server=server, on_done=got.append)
        self.panels.append(panel)
        panel.reply.value = "red and blue; silence"
        panel.submit("accept")  # the button's click waits on this loop for the typing to settle
        return got[0].to_result()


@pytest.fixture(scope="module")
def asked(tmp_path_factory: pytest.TempPathFactory) -> tuple[SamplingPanel, Any]:
    """The panel a person saw for the FastMCP server's request, and the request itself."""
    from mcpnb import Pool
    from tests.peers.fastmcp_venv import fastmcp_python

    script = Path(tmp_path_factory.mktemp("peer")) / "shows_peer.py"
    script.write_text(PEER)
    person = Person()
    pool = Pool()
    try:
        pool.interaction = person
        pool.connect("fm", era="legacy", command=str(fastmcp_python()), args=[str(script)])
        result = pool.call("fm", "describe")
        assert not result.is_error, result.text
        assert result.text == "red and blue; silence"
    finally:
        pool.close()
    return person.panels[0], person.asked[0]


def _rows(panel: SamplingPanel) -> list[Any]:
    return list(panel.media.children)


def test_the_picture_and_the_sound_are_shown_as_themselves(asked):
    import ipywidgets as w

    panel, _ = asked
    assert panel.media in panel.widget.children
    images = [c for c in _rows(panel) if isinstance(c, w.Image)]
    sounds = [c for c in _rows(panel) if isinstance(c, w.Audio)]
    assert [(i.value, i.format) for i in images] == [(PNG, "png")]
    assert [(s.value, s.format, s.controls, s.autoplay, s.loop) for s in sounds] == [
        (WAV, "wav", True, False, False)
    ]
    layout = images[0].layout
    assert (layout.max_width, layout.max_height) == ("480px", "360px")
    captions = [c.value for c in _rows(panel) if isinstance(c, w.HTML)]
    assert f"message 2 (user): image image/png, {len(PNG)} B" in captions[0]
    assert f"message 4 (user): audio audio/wav, {len(WAV)} B" in captions[1]


def test_an_svg_and_broken_base64_are_labels_never_markup(asked):
    import ipywidgets as w

    panel, _ = asked
    captions = [c.value for c in _rows(panel) if isinstance(c, w.HTML)]
    assert len(captions) == 4 and len(_rows(panel)) == 6  # two captions without a picture under them
    assert "message 5 (user): image image/svg+xml" in captions[2] and "not shown" in captions[2]
    assert "message 6 (user): image image/png, invalid base64: not shown" in captions[3]
    everything = "".join(c.value for c in _rows(panel) if isinstance(c, w.HTML)) + panel.info.value
    assert "<svg" not in everything and "<script" not in everything
    assert [i.value for i in _rows(panel) if isinstance(i, w.Image)] == [PNG]


def test_the_panel_says_every_setting_the_server_gave(asked):
    panel, _ = asked
    info = panel.info.value
    assert "temperature 0.3" in info and "model hints claude-3-sonnet" in info
    assert "priorities (0 to 1) low cost 0.2, intelligence 0.9" in info
    assert "stop at &#x27;END&#x27;" in info  # the panel's HTML escapes the quotes
    assert "the server would like the model to see: this server&#x27;s context" in info


def test_a_picture_past_the_cap_is_its_label_and_size():
    import ipywidgets as w

    from mcpnb.notebook.forms import panels

    assert (panels.MEDIA_CAP, panels.MEDIA_TOTAL_CAP) == (MEDIA_CAP, MEDIA_TOTAL_CAP)

    big = base64.b64encode(PNG + b"\x00" * (MEDIA_CAP + 1 - len(PNG))).decode()
    params = types.CreateMessageRequestParams(
        messages=[
            types.SamplingMessage(
                role="user", content=types.ImageContent(type="image", data=big, mime_type="image/png")
            )
        ],
        max_tokens=5,
    )
    panel = SamplingPanel(params, server="s", on_done=lambda _o: None)
    assert not any(isinstance(c, w.Image) for c in _rows(panel))
    (caption,) = _rows(panel)
    assert "image image/png, 10.0 MB: not shown, over the 10.0 MB a form shows" in caption.value


def test_pictures_past_the_total_cap_are_labels():
    import ipywidgets as w

    each = base64.b64encode(PNG + b"\x00" * (MEDIA_CAP - len(PNG))).decode()  # just under the cap
    count = MEDIA_TOTAL_CAP // MEDIA_CAP + 1
    params = {
        "messages": [
            {"role": "user", "content": {"type": "image", "data": each, "mimeType": "image/png"}}
            for _ in range(count)
        ],
        "maxTokens": 5,
    }
    panel = SamplingPanel(params, server="s", on_done=lambda _o: None)
    images = [c for c in _rows(panel) if isinstance(c, w.Image)]
    assert len(images) == MEDIA_TOTAL_CAP // MEDIA_CAP and all(len(i.value) == MEDIA_CAP for i in images)
    assert "the ones above fill the 32.0 MB a form shows" in _rows(panel)[-1].value


def test_a_picture_whose_bytes_are_not_a_raster_is_a_label_whatever_its_type_says():
    """An "image/png" that is really SVG (or HTML) is not handed to the page."""
    import ipywidgets as w

    params = {
        "messages": [
            {"role": "user", "content": {"type": "image", "data": B64["svg"], "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "audio", "data": B64["wav"], "mimeType": "text/html"}},
        ]
    }
    panel = SamplingPanel(params, server="s", on_done=lambda _o: None)
    assert not any(isinstance(c, w.Image | w.Audio) for c in _rows(panel))
    assert "not a picture" in _rows(panel)[0].value and "not shown" in _rows(panel)[1].value


def test_the_console_says_every_setting_and_that_it_shows_only_labels(asked):
    _, params = asked
    printed: list[str] = []
    script = iter(["ok", ""])
    outcome = ask_sampling_text(
        params, server="fm", input_fn=lambda _p: next(script), print_fn=printed.append
    )
    assert outcome == SamplingOutcome("accept", "ok")
    text = "\n".join(printed)
    assert f"user: [image image/png, {len(PNG)} B]" in text
    assert "(a console shows a picture or sound as its type and size only)" in text
    for line in (
        "token limit: 77",
        "temperature: 0.3",
        "model hints: claude-3-sonnet",
        "priorities (0 to 1): low cost 0.2, intelligence 0.9",
        "stop at: 'END'",
        "the server would like the model to see: this server's context",
    ):
        assert f"   {line}" in printed, line
    assert "<svg" not in text


def test_the_view_reads_media_and_settings_alike_from_sdk_params_and_dicts(asked):
    _, params = asked
    view = sampling_view(params)
    assert [(m.message, m.kind, m.mime_type) for m in view.media] == [
        (1, "image", "image/png"),
        (3, "audio", "audio/wav"),
        (4, "image", "image/svg+xml"),
        (5, "image", "image/png"),
    ]
    assert view.include_context == "thisServer"
    assert sampling_view(params.model_dump(by_alias=True, mode="json")) == view
