"""Panels for requests that are not forms: URL-mode consent (and the −32042 retry), a yes/no of
mcpnb's own (run the model's call?) and sampling."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcpnb.client.contents import b64_bytes, b64_size, human_size, media_label, raster_format
from mcpnb.client.elicitation.outcome import FormOutcome, SamplingOutcome
from mcpnb.notebook.accessibility import (
    INVALID,
    NAMED,
    SUCCESS_BUTTON,
    WARNING_BUTTON,
    alert_to_fix,
    live,
    mark_root,
    page_aids,
)
from mcpnb.notebook.forms.record import Recorded, record_bundle
from mcpnb.notebook.forms.settle import Edits
from mcpnb.notebook.forms.urls import is_web_url, url_parts
from mcpnb.notebook.render.html import esc, esc_lines, web_link

_HELP = "color:var(--jp-ui-font-color2,#666);font-size:0.9em;line-height:1.4"
#: A warning's text in the theme's own colour (JupyterLab's orange reads 2.7:1 on white), marked by
#: its "⚠" and an orange rule.
_WARN = "border-left:3px solid var(--jp-warn-color1,#e65100);padding-left:6px;font-size:0.9em;line-height:1.4"
_BOX = {"border": "1px solid var(--jp-border-color1,#ccc)", "padding": "8px 12px", "max_width": "720px"}
_LINK = (
    "display:inline-block;padding:2px 12px;margin:2px 4px 2px 0;border-radius:2px;"
    "background:#1565c0;color:white;text-decoration:none;line-height:24px"
)
_RETRYING = "<div>↻ Retrying the call…</div>"


def _label_wide() -> Any:
    """A button as wide as its label (the default width cuts "I've completed it")."""
    import ipywidgets as w

    return w.Layout(width="auto", min_width="148px")


def url_html(url: str) -> str:
    """The full URL, escaped, with the host in bold: the part that decides who gets what you type."""
    before, host, after, _warnings = url_parts(url)
    return (
        '<code style="word-break:break-all">'
        f"{esc(before)}<b style='font-size:1.1em'>{esc(host)}</b>{esc(after)}</code>"
    )


class UrlConsent(Recorded):
    """Consent for a URL-mode elicitation: the link is shown, never opened for the person.

    Buttons: Open (a plain link), "I've completed it" (accept), Decline, Cancel. With ``on_retry``
    (the −32042 "URL elicitation required" error), a "Retry the call" button also appears: it
    accepts if not yet answered, then calls ``on_retry``; there "I've completed it" retries too, as
    no server waits for that answer: the call does.
    """

    def __init__(
        self,
        url: str,
        *,
        message: str | None,
        server: str | None,
        on_done: Callable[[FormOutcome], None],
        on_retry: Callable[[], None] | None = None,
    ) -> None:
        import ipywidgets as w

        from mcpnb.notebook.cell.commstatus import install_comm_status

        install_comm_status()  # clicks and typing reach a cell that awaits this panel
        self.url = url
        self.message = message or ""
        self.server = server or "The server"
        self.on_done = on_done
        self.on_retry = on_retry
        self.outcome: FormOutcome | None = None
        self.retried = False
        self._before_retry: str | None = None
        self._waits: list[Callable[[], None]] = []  # what stops waiting for the server's "done"

        _b, host, _a, warnings = url_parts(url)
        lines = [
            f'<div style="font-size:1.05em;margin-bottom:2px">↗ <b>{esc(self.server)}</b> '
            "asks you to open a link</div>",
        ]
        if on_retry is not None:
            lines.append(
                f'<div style="{_HELP}">The call needs this step first: open the link, do what the '
                "page asks, then <b>Retry the call</b>. Decline: you will not open it (the call "
                "ends). Cancel: not now.</div>"
            )
        else:
            lines.append(
                f'<div style="{_HELP}">Open the link, do what the page asks, then <b>I\'ve completed '
                f"it</b>. Decline: {esc(server or 'the server')} is told you will not open it. "
                "Cancel: not now.</div>"
            )
        if self.message:
            lines.append(f'<div style="margin:4px 0">{esc_lines(self.message)}</div>')
        lines.append(f"<div>{url_html(url)}</div>")
        if host:
            lines.append(f'<div style="{_HELP}">Site: <b>{esc(host)}</b></div>')
        lines += [f'<div style="{_WARN}">⚠ {esc(x)}</div>' for x in warnings]
        self.info = w.HTML('<div style="line-height:1.4">' + "".join(lines) + "</div>")
        self.info.add_class("mcpnb-url-info")
        if is_web_url(url):
            link = web_link(url, "Open ↗", _LINK)
        else:
            link = f'<span style="{_WARN}">(not a web link: copy it only if you know what it is)</span>'
        self.link = w.HTML(link)
        self.link.add_class("mcpnb-url-open")
        self.buttons = {
            "accept": w.Button(description="I've completed it", button_style="primary", layout=_label_wide()),
            "decline": w.Button(description="Decline"),
            "cancel": w.Button(description="Cancel"),
        }
        if on_retry is not None:
            self.buttons["retry"] = w.Button(
                description="Retry the call", style=SUCCESS_BUTTON, layout=_label_wide()
            )
        for action, button in self.buttons.items():
            button.add_class(f"mcpnb-{action}")
            if action == "retry" or (action == "accept" and on_retry is not None):
                # −32042: nobody waits for an answer, the call does; completing the page means
                # calling again (a person who clicked "completed" waited on a cell that never ended).
                # One button says so: two that did the same left people guessing which was which.
                button.on_click(lambda _b: self.retry())
                if action == "accept":
                    button.layout.display = "none"
            else:
                button.on_click(lambda _b, a=action: self.submit(a))
        self.status = w.HTML("")
        self.status.add_class("mcpnb-status")
        self.widget = w.VBox(
            [self.info, w.HBox([self.link, *self.buttons.values()]), self.status, *page_aids()],
            layout=w.Layout(**_BOX),
        )
        self.widget.add_class("mcpnb-url-consent")
        mark_root(self.widget)

    @classmethod
    def retry_panel(
        cls,
        url: str,
        *,
        message: str | None,
        server: str | None,
        on_done: Callable[[FormOutcome], None],
        on_retry: Callable[[], None],
    ) -> UrlConsent:
        """The −32042 variant, spelled out for readability at the call site."""
        return cls(url, message=message, server=server, on_done=on_done, on_retry=on_retry)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def submit(self, action: str) -> bool:
        """Answer as if a button was clicked; ``False`` if already answered."""
        if self.outcome is not None:
            return False
        if action not in ("accept", "decline", "cancel"):
            raise ValueError(f"unknown action {action!r}")
        self.outcome = FormOutcome(action, None)  # type: ignore[arg-type]
        for name, button in self.buttons.items():
            # after "completed", retrying is still the natural next step
            button.disabled = not (name == "retry" and action == "accept")
        said = {
            "accept": (
                f"✓ Told <b>{esc(self.server)}</b> you completed it."
                if self.on_retry is None
                else f"→ Went on from the page <b>{esc(self.server)}</b> asked for."
            ),
            "decline": f"✗ Declined: <b>{esc(self.server)}</b> was told you will not open it.",
            "cancel": "⊘ Cancelled.",
        }
        self.status.value = live(said[action], focus=True)  # said, and the focus off the disabled buttons
        try:
            self.on_done(self.outcome)
        except Exception as exc:
            self.status.value += f"<div>could not deliver the answer: {esc(exc)}</div>"
        if self.on_retry is None or action != "accept":  # accepted, a retry still follows
            self._ended()
        return True

    def retry(self) -> bool:
        """Accept if still open, then ask the caller to retry; once at a time (see :meth:`finish_retry`)."""
        if self.on_retry is None or self.retried:
            return False
        if self.outcome is None:
            self.submit("accept")
        elif self.outcome.action != "accept":
            return False
        self.retried = True
        for button in self.buttons.values():
            button.disabled = True
        if self._before_retry is None:
            self._before_retry = self.status.value  # what the server was told stays on record
        self.status.value = self._before_retry + _RETRYING
        self.on_retry()
        return True

    def stop_waiting_with(self, stops: list[Callable[[], None]]) -> None:
        """What stops this panel waiting for the server's word that its page is done."""
        self._waits = stops

    def stop_waiting(self) -> None:
        """No retry on the server's word any more (the panel ended, or its owner moved on); the
        waiter, which holds the call's arguments, is let go."""
        waits, self._waits = self._waits, []
        for stop in waits:
            stop()

    def _ended(self) -> None:
        super()._ended()
        self.stop_waiting()

    def page_done(self) -> bool:
        """The server said its page is done (``notifications/elicitation/complete``): retry as a
        click on Retry would, saying who said so; False where the panel no longer retries."""
        if self.on_retry is None or self.retried or self.ended:
            return False
        if self.outcome is None:
            self.submit("accept")
        elif self.outcome.action != "accept":
            return False
        if self._before_retry is None:  # its first retry: the server's word instead of "went on"
            self._before_retry = live(f"✓ <b>{esc(self.server)}</b> says the page is done.", focus=True)
        return self.retry()

    def finish_retry(self, ok: bool, note: str, *, final: bool = False) -> None:
        """The retried call ended: say how. When it did not go through (and it is not ``final``),
        Retry is offered again."""
        mark = "✓" if ok else "✗"
        style = "" if ok else f' style="{_WARN}"'
        base = self._before_retry if self._before_retry is not None else self.status.value
        self.status.value = base + live(f"<div{style}>{mark} {esc(note)}</div>", focus=True)
        again = not ok and not final and self.on_retry is not None
        self.retried = not again
        if "retry" in self.buttons:
            self.buttons["retry"].disabled = not again
        if not again:
            self._ended()

    def finish(self, outcome: FormOutcome, note: str | None = None) -> None:
        """Freeze the panel when the answer came from elsewhere (timeout, completion notice)."""
        self.outcome = outcome
        for button in self.buttons.values():
            button.disabled = True
        self.status.value = live(esc(note or f"{outcome.action}"), focus=True)
        self._ended()

    def record(self) -> dict[str, str]:
        """Who asked to open which link (shown, no longer a button), and what became of it."""
        status = f'<div class="mcpnb-status">{self.status.value}</div>'
        return record_bundle("mcpnb-url-consent", self.info.value + status)


class ConfirmPanel(Recorded):
    """A yes or a no of mcpnb's own, as two buttons (a form with a choice and Accept/Decline/Cancel
    made three ways to say no): ``accept`` for yes, ``decline`` for no."""

    def __init__(
        self, question: str, details: str, *, yes: str, no: str, on_done: Callable[[FormOutcome], None]
    ) -> None:
        import ipywidgets as w

        from mcpnb.notebook.cell.commstatus import install_comm_status

        install_comm_status()  # a click reaches a cell that awaits this panel
        self.on_done = on_done
        self.outcome: FormOutcome | None = None
        self.labels = {"accept": yes, "decline": no}
        heading = f'<div style="font-size:1.05em;margin-bottom:2px">⚠ <b>{esc(question)}</b></div>'
        body = f'<div style="margin:4px 0">{esc_lines(details)}</div>'
        self.info = w.HTML(f'<div style="line-height:1.4">{heading}{body}</div>')
        self.buttons = {
            "accept": w.Button(description=yes, style=WARNING_BUTTON, layout=_label_wide()),
            "decline": w.Button(description=no, layout=_label_wide()),
        }
        for action, button in self.buttons.items():
            button.add_class(f"mcpnb-confirm-{'yes' if action == 'accept' else 'no'}")
            button.on_click(lambda _b, a=action: self.submit(a))
        self.status = w.HTML("")
        self.status.add_class("mcpnb-status")
        self.widget = w.VBox(
            [self.info, w.HBox(list(self.buttons.values())), self.status, *page_aids()],
            layout=w.Layout(**_BOX),
        )
        self.widget.add_class("mcpnb-confirm")
        mark_root(self.widget)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def submit(self, action: str) -> bool:
        """Answer as if a button was clicked; ``False`` if already answered."""
        if self.outcome is not None:
            return False
        outcome = FormOutcome(action, None)  # type: ignore[arg-type]
        self._freeze(outcome, f"{'✓' if action == 'accept' else '✗'} {self.labels[action]}")
        try:
            self.on_done(outcome)
        except Exception as exc:
            self.status.value += f"<div>could not deliver the answer: {esc(exc)}</div>"
        self._ended()
        return True

    def finish(self, outcome: FormOutcome, note: str | None = None) -> None:
        """Freeze the panel: answered here, or no longer waited for (timeout, interrupt)."""
        self._freeze(outcome, note)
        self._ended()

    def record(self) -> dict[str, str]:
        """The question and the answer given (or why there was none)."""
        status = f'<div class="mcpnb-status">{self.status.value}</div>'
        return record_bundle("mcpnb-confirm", self.info.value + status)

    def _freeze(self, outcome: FormOutcome, note: str | None) -> None:
        self.outcome = outcome
        for button in self.buttons.values():
            button.disabled = True
        self.status.value = live(esc(note or outcome.action), focus=True)


# --- sampling -----------------------------------------------------------------------------------


#: The largest picture or sound a form shows (decoded); a larger one is its label and size, so one
#: request cannot make the kernel decode, and the page receive, more than this at once.
MEDIA_CAP = 10_000_000
#: All the pictures and sounds of one request together; those past it are labels too.
MEDIA_TOTAL_CAP = 32_000_000
#: The pictures a form shows, as their type says (their bytes must agree: :func:`media_widget`).
_PICTURE_TYPES = {"image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp"}
#: The audio types a browser's player is handed, as the ``audio/<format>`` it is told.
_SOUND_FORMATS = {
    "audio/wav": "wav",
    "audio/wave": "wav",
    "audio/x-wav": "wav",
    "audio/vnd.wave": "wav",
    "audio/mpeg": "mpeg",
    "audio/mp3": "mpeg",
    "audio/ogg": "ogg",
    "audio/opus": "ogg",
    "audio/webm": "webm",
    "audio/flac": "flac",
    "audio/x-flac": "flac",
    "audio/aac": "aac",
    "audio/mp4": "mp4",
    "audio/x-m4a": "mp4",
}
#: ``includeContext`` as a person reads it.
_SEES = "the server would like the model to see"
_CONTEXT_WORDS = {
    "none": "nothing beyond this conversation",
    "thisServer": "this server's context",
    "allServers": "the context of every server the notebook is connected to",
}
#: ``modelPreferences``' priorities in the spec's order, by the word a person reads (a high cost
#: priority asks for a cheap model).
_PRIORITIES = (("cost", "low cost"), ("speed", "speed"), ("intelligence", "intelligence"))


@dataclass
class SamplingMedia:
    """A picture or sound of the conversation, kept as the server sent it (base64) until a panel
    shows it: the text fallback never decodes it."""

    message: int  # its message's index in ``SamplingView.messages``
    role: str
    kind: str  # "image" or "audio"
    mime_type: str
    data: str


@dataclass
class SamplingView:
    """A sampling request reduced to what a person needs to read, whatever shape it arrived in."""

    messages: list[tuple[str, str]] = field(default_factory=list)
    system_prompt: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    model_hints: list[str] = field(default_factory=list)
    stop_sequences: list[str] = field(default_factory=list)
    #: ``modelPreferences``' priorities the server gave, 0 to 1, by the word a person reads.
    priorities: dict[str, float] = field(default_factory=dict)
    include_context: str | None = None
    media: list[SamplingMedia] = field(default_factory=list)

    def settings(self) -> list[tuple[str, str]]:
        """What the server asked of the model besides the conversation, as (what, its value),
        worded alike for the panel and the console."""
        said = []
        if self.max_tokens is not None:
            said.append(("token limit", str(self.max_tokens)))
        if self.temperature is not None:
            said.append(("temperature", str(self.temperature)))
        if self.model_hints:
            said.append(("model hints", ", ".join(self.model_hints)))
        if self.priorities:
            said.append(("priorities (0 to 1)", ", ".join(f"{k} {v:g}" for k, v in self.priorities.items())))
        if self.stop_sequences:
            said.append(("stop at", ", ".join(repr(s) for s in self.stop_sequences)))
        if self.include_context:
            words = _CONTEXT_WORDS.get(self.include_context, repr(self.include_context))
            said.append((_SEES, words))
        return said


def _get(obj: Any, *names: str) -> Any:
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if not isinstance(obj, dict) and hasattr(obj, name):
            return getattr(obj, name)
    return None


def _content_text(content: Any) -> str:
    if isinstance(content, list | tuple):
        return "\n".join(_content_text(c) for c in content)
    kind = _get(content, "type")
    if kind == "text":
        return str(_get(content, "text") or "")
    if kind in ("image", "audio"):
        data = _get(content, "data")
        size = b64_size(data) if isinstance(data, str) else None
        return f"[{media_label(kind, _get(content, 'mime_type', 'mimeType') or '(no type)', size)}]"
    if kind in ("tool_use", "tool_result"):
        return f"[{kind} {_get(content, 'name') or _get(content, 'tool_use_id', 'toolUseId') or ''}]"
    if content is None:
        return ""
    try:
        return json.dumps(content if isinstance(content, dict) else content.model_dump(mode="json"))
    except Exception:
        return str(content)


def _media_of(content: Any) -> list[tuple[str, str, str]]:
    """``(kind, mime type, base64 data)`` of each picture or sound in one message's content."""
    if isinstance(content, list | tuple):
        return [m for c in content for m in _media_of(c)]
    kind = _get(content, "type")
    data = _get(content, "data")
    if kind in ("image", "audio") and isinstance(data, str):
        return [(kind, str(_get(content, "mime_type", "mimeType") or ""), data)]
    return []


def sampling_view(params: Any) -> SamplingView:
    """Read ``CreateMessageRequestParams`` or its JSON dict (camelCase or snake_case)."""
    view = SamplingView()
    for index, message in enumerate(_get(params, "messages") or []):
        role = str(_get(message, "role") or "?")
        content = _get(message, "content")
        view.messages.append((role, _content_text(content)))
        for kind, mime, data in _media_of(content):
            view.media.append(SamplingMedia(index, role, kind, mime, data))
    system = _get(params, "system_prompt", "systemPrompt")
    view.system_prompt = str(system) if system else None
    max_tokens = _get(params, "max_tokens", "maxTokens")
    view.max_tokens = max_tokens if isinstance(max_tokens, int) else None
    temperature = _get(params, "temperature")
    view.temperature = temperature if isinstance(temperature, int | float) else None
    prefs = _get(params, "model_preferences", "modelPreferences")
    for hint in _get(prefs, "hints") or []:
        name = _get(hint, "name")
        if name:
            view.model_hints.append(str(name))
    for key, words in _PRIORITIES:
        value = _get(prefs, f"{key}_priority", f"{key}Priority")
        if isinstance(value, int | float) and not isinstance(value, bool):
            view.priorities[words] = value
    view.stop_sequences = [str(s) for s in (_get(params, "stop_sequences", "stopSequences") or [])]
    context = _get(params, "include_context", "includeContext")
    view.include_context = str(context) if context else None
    return view


def media_widget(media: SamplingMedia, budget: int = MEDIA_CAP) -> tuple[Any | None, str]:
    """An ``ipywidgets.Image`` or ``Audio`` for one picture or sound, and the words that say what it
    is; ``(None, why not)`` when it is not shown (past ``budget`` or the cap, no base64, a type a
    form does not show): the person then reads the label and the reason instead. A picture is
    shown only as the raster its bytes are (:func:`~mcpnb.client.contents.raster_format`): a
    server's SVG or HTML never reaches the page."""
    import ipywidgets as w

    what = f"{media.kind} {media.mime_type or '(no type)'}"
    about = len(media.data) * 3 // 4 - media.data[-2:].count("=")  # the caps come before decoding
    if about > MEDIA_CAP:
        return None, f"{what}, {human_size(about)}: not shown, over the {human_size(MEDIA_CAP)} a form shows"
    if about > budget:
        cap = human_size(MEDIA_TOTAL_CAP)
        return None, f"{what}, {human_size(about)}: not shown, the ones above fill the {cap} a form shows"
    raw = b64_bytes("".join(media.data.split()))  # a line-wrapped base64 too
    label = media_label(media.kind, media.mime_type or "(no type)", len(raw) if raw else None)
    if not raw:
        return None, f"{label}: not shown"
    mime = media.mime_type.split(";", 1)[0].strip().lower()
    if media.kind == "image":
        if mime not in _PICTURE_TYPES:
            return None, f"{label}: not shown (a form shows PNG, JPEG, GIF and WebP pictures only)"
        fmt = raster_format(raw)
        if fmt is None:
            return None, f"{label}: not shown, its bytes are not a picture"
        picture = w.Image(
            value=raw,
            format=fmt.lower(),
            tooltip=f"{media.role}'s {label}",
            layout=w.Layout(
                max_width="480px", max_height="360px", width="auto", height="auto", object_fit="contain"
            ),
        )
        picture.add_class("mcpnb-sampling-image")
        return picture, label
    if mime not in _SOUND_FORMATS:
        return None, f"{label}: not shown (a form plays WAV, MP3, Ogg, WebM, FLAC, AAC and MP4 only)"
    sound = w.Audio(value=raw, format=_SOUND_FORMATS[mime], autoplay=False, loop=False, controls=True)
    sound.tooltip = f"{media.role}'s {label}"
    sound.add_class("mcpnb-sampling-audio")
    return sound, label


class SamplingPanel(Recorded):
    """A sampling request answered by the person: they read the conversation and type the reply."""

    def __init__(
        self, params: Any, *, server: str | None, on_done: Callable[[SamplingOutcome], None]
    ) -> None:
        import ipywidgets as w

        from mcpnb.notebook.cell.commstatus import install_comm_status

        install_comm_status()
        self.view = sampling_view(params)
        self.server = server or "The server"
        self.on_done = on_done
        self.outcome: SamplingOutcome | None = None
        v = self.view
        parts = [
            f'<div style="font-size:1.05em;margin-bottom:2px">✦ <b>{esc(self.server)}</b> asks for a model '
            "reply: you answer as the model</div>"
        ]
        if v.system_prompt:
            parts.append(f'<div style="{_HELP}">System prompt:</div><div>{esc_lines(v.system_prompt)}</div>')
        for role, text in v.messages:
            parts.append(
                f'<div style="margin:4px 0"><b>{esc(role)}</b>: '
                f'<span style="white-space:pre-wrap">{esc(text)}</span></div>'
            )
        limits = [f"{what}{':' if what == _SEES else ''} {value}" for what, value in v.settings()]
        if limits:
            parts.append(f'<div style="{_HELP}">{esc("; ".join(limits))}</div>')
        self.info = w.HTML('<div style="line-height:1.4">' + "".join(parts) + "</div>")
        self.media = self._media_box(w)
        self.reply = w.Textarea(
            placeholder="Your reply",
            rows=4,
            layout=w.Layout(width="100%", max_width="640px"),
            continuous_update=False,  # sent when the box loses focus: before the click on "Send reply"
            description="Your reply",  # its name for screen readers (the placeholder goes as one types)
        )
        self.reply.add_class("mcpnb-sampling-reply")
        self.reply.add_class(NAMED)
        self.edits = Edits()
        self.reply.observe(self.edits.touch, names="value")
        self.buttons = {
            "accept": w.Button(description="Send reply", button_style="primary"),
            "reject": w.Button(description="Reject"),
        }
        for action, button in self.buttons.items():
            button.add_class(f"mcpnb-{action}")
            button.on_click(lambda _b, a=action: self.edits.click(a, self.submit))
        self.status = w.HTML("")
        self.status.add_class("mcpnb-status")
        self.widget = w.VBox(
            [
                self.info,
                *([self.media] if self.media.children else []),
                self.reply,
                w.HBox(list(self.buttons.values())),
                self.status,
                *page_aids(),
            ],
            layout=w.Layout(**_BOX),
        )
        self.widget.add_class("mcpnb-sampling")
        mark_root(self.widget)

    def _media_box(self, w: Any) -> Any:
        """The conversation's pictures and sounds under it, each after a line naming its message
        (the conversation above shows each as its label, in place)."""
        rows: list[Any] = []
        budget = MEDIA_TOTAL_CAP
        for media in self.view.media:
            shown, what = media_widget(media, budget)
            said = f"message {media.message + 1} ({media.role}): {what}"
            rows.append(w.HTML(f'<div style="{_HELP}">{esc(said)}</div>'))
            if shown is not None:
                budget -= len(shown.value)
                rows.append(shown)
        box = w.VBox(rows)
        box.add_class("mcpnb-sampling-media")
        return box

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def submit(self, action: str) -> bool:
        """Send the typed reply (an empty one is refused) or reject; ``False`` when nothing was sent."""
        if self.outcome is not None:
            return False
        if action == "accept":
            text = self.reply.value
            if not text.strip():
                self.reply.add_class(INVALID)  # where the script puts the focus (see alert_to_fix)
                self.status.value = alert_to_fix(
                    f'<span style="{_WARN}">Type a reply first, or Reject.</span>'
                )
                return False
            outcome = SamplingOutcome("accept", text)
        elif action == "reject":
            outcome = SamplingOutcome("reject", None)
        else:
            raise ValueError(f"unknown action {action!r}")
        self._freeze(outcome)
        try:
            self.on_done(outcome)
        except Exception as exc:
            self.status.value += f"<div>could not deliver the answer: {esc(exc)}</div>"
        self._ended()
        return True

    def finish(self, outcome: SamplingOutcome, note: str | None = None) -> None:
        """Freeze the panel and record the answer (also for timeouts decided elsewhere)."""
        self._freeze(outcome, note)
        self._ended()

    def record(self) -> dict[str, str]:
        """The conversation the server sent, the reply the person typed (if sent), and the outcome."""
        reply = ""
        if self.outcome is not None and self.outcome.action == "accept":
            typed = esc(self.outcome.text)
            reply = (
                f'<div style="{_HELP}">Your reply:</div>'
                f'<div class="mcpnb-sampling-reply" style="white-space:pre-wrap">{typed}</div>'
            )
        status = f'<div class="mcpnb-status">{self.status.value}</div>'
        return record_bundle("mcpnb-sampling", self.info.value + reply + status)

    def _freeze(self, outcome: SamplingOutcome, note: str | None = None) -> None:
        self.outcome = outcome
        self.reply.disabled = True
        for button in self.buttons.values():
            button.disabled = True
        if outcome.action == "accept":
            said = f"✓ Reply sent to <b>{esc(self.server)}</b>."
        else:
            said = "✗ Rejected: no reply was sent."
        if note:
            said += f'<div style="{_HELP}">{esc(note)}</div>'
        self.status.value = live(said, focus=True)
