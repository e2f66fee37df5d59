"""What a screen reader and a keyboard user get from the form's widget tree, and colours that read."""

from __future__ import annotations

import re

import ipywidgets as w

from mcpnb.notebook.accessibility import FOCUS_HERE, FOCUS_INVALID, SUCCESS_BUTTON, WARNING_BUTTON
from mcpnb.notebook.forms import ConfirmPanel, ElicitationForm, LogView
from mcpnb.notebook.render.html import STYLE

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Full name"},
        "age": {"type": "integer", "title": "Age"},
        "room": {"type": "string", "title": "Room", "enum": ["single", "double"]},
        "newsletter": {"type": ["boolean", "null"], "title": "Newsletter"},
    },
    "required": ["name", "room"],
}


def _form() -> ElicitationForm:
    return ElicitationForm(SCHEMA, message="Book", server="hotel", on_done=lambda _o: None)


def test_every_input_is_named_by_its_title_and_says_required():
    form = _form()
    names = {k: i.description for k, i in form.inputs.items()}
    assert names == {
        "name": "Full name (required)",
        "age": "Age",
        "room": "Room (required)",
        "newsletter": "Newsletter",
    }


def test_a_nullable_boolean_is_radios_which_say_which_is_chosen():
    radio = _form().inputs["newsletter"]
    assert isinstance(radio, w.RadioButtons) and radio.value == "unset"


def test_a_failed_accept_alerts_and_sends_the_focus_to_the_first_field_to_fix():
    form = _form()
    assert not form.submit("accept")
    assert 'role="alert"' in form.status.value and FOCUS_INVALID in form.status.value
    assert "mcpnb-invalid" in form.controls["name"].box._dom_classes
    form.inputs["name"].value = "Ada"  # fixed: its mark goes, and a re-check moves no focus
    assert "mcpnb-invalid" not in form.controls["name"].box._dom_classes
    assert FOCUS_INVALID not in form.status.value


def test_an_answer_is_said_and_takes_the_focus_the_buttons_had():
    form = _form()
    form.submit("decline")
    assert 'role="status"' in form.status.value and FOCUS_HERE in form.status.value
    assert FOCUS_HERE in form.record()["text/html"] and 'tabindex="-1"' in form.record()["text/html"]
    panel = ConfirmPanel("Run it?", "", yes="Run it", no="No", on_done=lambda _o: None)
    panel.submit("accept")
    assert FOCUS_HERE in panel.status.value


def test_panels_carry_the_keyboard_script_and_focus_style():
    form = _form()
    assert "mcpnb-a11y" in form.widget._dom_classes
    outputs = [c for c in form.widget.children if isinstance(c, w.Output)]
    assert outputs and "data-lm-suppress-shortcuts" in outputs[0].outputs[0]["data"]["application/javascript"]
    styles = [c.value for c in form.widget.children if isinstance(c, w.HTML) and "<style>" in c.value]
    assert styles and ":focus-visible" in styles[0] and "2px solid" in styles[0]


def test_the_server_log_opens_with_a_button():
    log = LogView()
    log.add("info", None, "x")
    log.flush()
    assert isinstance(log.toggle, w.Button) and log.toggle.description == "Show server log (1)"


# -- contrast (WCAG 2: relative luminance) ---------------------------------------------------------
def _luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_white_labels_on_our_coloured_buttons_read_at_AA():
    for style in (WARNING_BUTTON, SUCCESS_BUTTON):
        assert contrast(style["text_color"], style["button_color"]) >= 4.5, style
    assert contrast("#ffffff", "#f57c00") < 4.5  # ipywidgets' "warning" orange, which they replace


def test_status_and_level_words_keep_the_theme_text_colour():
    """No fixed colour reads 4.5:1 on both JupyterLab's white and its dark (#111) background, so the
    words of a task's status and a log level keep the text colour; the colour is a rule beside."""
    assert not any(
        contrast(c, "#ffffff") >= 4.5 and contrast(c, "#111111") >= 4.5 for c in ("#6e7781", "#888888")
    )
    from mcpnb.notebook.forms.progress import _log_row
    from mcpnb.notebook.taskview import _status_style

    assert not re.search(r"(?<!-)color:", _log_row("debug", None, "x"))
    assert not re.search(r"(?<!-)color:", _status_style("#6e7781"))
    assert "#888" not in STYLE.split(".mcpnb-dim")[1].split("}")[0]
