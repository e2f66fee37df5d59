"""One widget per form field: the right input for the field's kind, its help line and its error line.

A field is read back as (present, value, problem), so the form can tell "left empty" from "typed
something invalid" without knowing how each kind of input stores its value.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from mcpnb.client.elicitation.answers import FORMAT_HINTS, parse_number
from mcpnb.client.elicitation.fields import HIDDEN, Field
from mcpnb.client.handwritten import json_or_flow
from mcpnb.notebook.accessibility import FIELD, GROUP, INVALID, NAMED, live, required_name, sr_text
from mcpnb.notebook.render.html import esc, esc_lines

_CLASS_SAFE = re.compile(r"[^A-Za-z0-9_-]")
_SLIDER_MAX_STEPS = 1000
_MULTI_CHECKBOXES = 8
_RADIO_MAX = 4
#: Text goes to the kernel once per edit, when the field loses focus (or on Enter), not per key: the
#: update then always leaves the browser before the click that took the focus away (Accept), whereas
#: per-key updates queue behind one another in the widget frontend and the last one could trail it.
_TYPED = {"continuous_update": False}
#: The "no value" button of a nullable boolean: left out of the answer, or null where it is required.
_UNSET = "unset"
_UNSET_LABEL = "not set"

HELP_STYLE = "color:var(--jp-ui-font-color2,#666);font-size:0.9em;line-height:1.3"
ERROR_STYLE = "color:var(--jp-error-color1,#c62828);font-size:0.9em;line-height:1.4"
#: In the theme's text colour, marked by "⚠" and an orange rule (the orange itself reads 2.7:1 on white).
_WARN = "border-left:3px solid var(--jp-warn-color1,#e65100);padding-left:6px;font-size:0.9em;line-height:1.4"


def css_name(name: str) -> str:
    """The CSS class of a field's input: stable hooks for browser tests and custom styling."""
    return "mcpnb-field-" + _CLASS_SAFE.sub("_", name)


def _decimals(x: float) -> int:
    text = repr(float(x))
    if "e" in text or "E" in text:
        return 6
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


def _unset_allowed(f: Field) -> bool:
    """Null is a value of its own and the field starts with it (a null default, or none at all)."""
    return f.nullable and not (f.has_default and f.default is not None)


def _float_step(f: Field) -> float:
    """A slider step fine enough that the default (e.g. 3.14 on 0..1000) survives a nudge."""
    if f.multiple_of:
        return float(f.multiple_of)
    span = float(f.maximum) - float(f.minimum)  # type: ignore[arg-type]
    step = 10.0 ** (math.floor(math.log10(span)) - 3) if span > 0 else 0.01
    if isinstance(f.default, int | float) and not isinstance(f.default, bool):
        step = min(step, 10.0 ** -_decimals(f.default))
    return min(step, 1.0)


def said_already(description: str | None, message: str | None) -> bool:
    """The field's description only repeats the form's message (a one-question form, like
    probe-kit's ``ask_user``, gives the question as both): show it once."""
    if not description or not message:
        return False
    return description.split() == message.split()


def unquoted(problem: str, typed: str) -> str:
    """``problem`` without what a person typed into a secret field: an error line is kept in the
    widget state and the output a notebook saves (see :func:`~mcpnb.client.redact.hide_typed`)."""
    from mcpnb.client.redact import hide_typed

    return hide_typed(problem, typed, HIDDEN)


#: Text inputs and labels take the direction of what they hold (``dir="auto"``), where ipywidgets
#: sets no attribute of ours: Hebrew or Arabic typed into a box showed left to right, its
#: punctuation on the wrong side. ``unicode-bidi: plaintext`` on the input is CSS's ``dir="auto"``.
BIDI = "mcpnb-bidi"
_BIDI_STYLE = (
    f"<style>.{BIDI} input, .{BIDI} textarea, input.{BIDI}, textarea.{BIDI} "
    "{unicode-bidi: plaintext; text-align: start}</style>"
)


class Control:
    """One field's widgets and how to read an answer out of them."""

    def __init__(self, f: Field, server: str, *, message: str | None = None) -> None:
        import ipywidgets as w

        self.field = f
        self.include: Any = None  # a "send this" checkbox for optional values that have no blank state
        self._multi: list[Any] = []
        self.input = self._build_input(w)
        self.input.add_class(css_name(f.name))
        if isinstance(self.input, w.Text | w.Textarea):
            self.input.add_class(BIDI)
        self._name_input()
        self.error = w.HTML("", layout=w.Layout(display="none"))
        self.error.add_class("mcpnb-error")

        star = f' <span style="{ERROR_STYLE}" title="required">*</span>' if f.required else ""
        name = f' <code style="{HELP_STYLE}">{esc(f.name)}</code>' if f.title != f.name else ""
        # the name a group of radios or checkboxes takes (a script reads it: see accessibility.GROUP)
        label_html = (
            f'<b dir="auto" data-mcpnb-name="{esc(self.accessible_name)}">{esc(f.title)}</b>{star}{name}'
        )
        hints = []
        if f.description and not said_already(f.description, message):
            hints.append(esc_lines(f.description))
        if f.kind == "string" and f.format in FORMAT_HINTS:
            hints.append(f"Expected: {esc(FORMAT_HINTS[f.format])}.")
        if f.kind == "json":
            hints.append(f"Edit as JSON ({esc(f.json_reason or 'free-form value')}).")
        if f.kind == "multichoice" and (f.min_items is not None or f.max_items is not None):
            hints.append(esc(_items_hint(f)))
        if self.include is not None:
            hints.append("Optional: tick the box (or change the value) to send it.")
        if f.kind == "boolean" and _unset_allowed(f):
            hints.append(f"“{_UNSET_LABEL}” sends {'null' if f.required else 'nothing'}.")
        label = w.HTML(
            label_html
            + "".join(f'<div dir="auto" style="{HELP_STYLE}">{h}</div>' for h in hints)
            + _BIDI_STYLE,
            layout=w.Layout(margin="0"),
        )
        parts = [label]
        row = [self.include, self.input] if self.include is not None else [self.input]
        parts.append(w.HBox(row, layout=w.Layout(align_items="center")))
        if f.secret_like:
            warn = w.HTML(
                f'<div style="{_WARN}">⚠ This looks like a secret (password, token or key). '
                f"It will be sent to <b>{esc(server)}</b>; enter it only if you trust that server.</div>"
            )
            warn.add_class("mcpnb-secret-warning")
            parts.append(warn)
        parts.append(self.error)
        self.box = w.VBox(parts, layout=w.Layout(margin="0 0 8px 0"))
        self.box.add_class(FIELD)

    # -- building ----------------------------------------------------------------------------

    def _optional_toggle(self, w: Any) -> None:
        """Values like numbers have no blank state: an unticked box means "leave it out"."""
        f = self.field
        if f.required and not f.nullable:
            return
        if f.has_default and f.default is not None:  # a null default is no value: leave it out
            return
        self.include = w.Checkbox(
            value=False,
            indent=False,
            description="",
            tooltip="send a value for this field",
            layout=w.Layout(width="28px"),
        )

        def tick(_change: Any) -> None:
            self.include.value = True

        self.input.observe(tick, names="value")

    def _build_input(self, w: Any) -> Any:
        f = self.field
        wide = w.Layout(width="100%", max_width="560px")
        default = f.default
        if f.kind == "string":
            text = default if isinstance(default, str) else ""
            placeholder = {
                "email": "name@example.com",
                "uri": "https://…",
                "date": "YYYY-MM-DD",
                "date-time": "YYYY-MM-DDThh:mm:ssZ",
            }.get(f.format or "", "")
            if f.secret_like:
                return w.Password(value=text, placeholder=placeholder, layout=wide, **_TYPED)
            if f.takes_lines or (f.max_length is not None and f.max_length > 200):
                rows = min(12, max(4, text.count("\n") + 2))
                return w.Textarea(value=text, placeholder=placeholder, rows=rows, layout=wide, **_TYPED)
            return w.Text(value=text, placeholder=placeholder, layout=wide, **_TYPED)
        if f.kind in ("integer", "number") and f.clearly_secret:  # a PIN, not a token_count
            # a PIN or a one-time code: masked as a password is, never a slider (which shows it), and
            # read as a number typed in a text box is (parsed and checked in Python)
            hint = "a whole number" if f.kind == "integer" else "a number"
            numeric = isinstance(default, int | float) and not isinstance(default, bool)
            return w.Password(value=repr(default) if numeric else "", placeholder=hint, **_TYPED)
        if f.kind in ("integer", "number"):
            widget = self._number_input(w)
            self.input = widget
            if not isinstance(widget, w.Text):  # a slider has no blank: a box says "send it"
                self._optional_toggle(w)
            return widget
        if f.kind == "boolean":
            return self._boolean_input(w)
        if f.kind == "choice":
            return self._choice_input(w, wide)
        if f.kind == "multichoice":
            return self._multi_input(w)
        # a null default shows as an empty editor: left empty, the field is left out (or sent as
        # null where it is required), and a person types a value without deleting "null" first
        text = (
            json.dumps(default, indent=2, ensure_ascii=False) if f.has_default and default is not None else ""
        )
        placeholder = "JSON, e.g. {…}" if _json_type(f.schema) == "object" else "JSON value"
        rows = min(12, max(3, text.count("\n") + 2))
        return w.Textarea(value=text, placeholder=placeholder, rows=rows, layout=wide, **_TYPED)

    def _boolean_input(self, w: Any) -> Any:
        """A checkbox, or three buttons where null is a value of its own (``flag: bool | None = None``):
        a checkbox has no "unset", and an untouched one would send ``false``, which nobody chose."""
        f = self.field
        if _unset_allowed(f):
            # radios, not toggle buttons: a screen reader says which one is chosen
            return w.RadioButtons(
                options=[(_UNSET_LABEL, _UNSET), ("true", True), ("false", False)],
                value=_UNSET,
                orientation="horizontal",
            )
        return w.Checkbox(value=bool(f.default) if isinstance(f.default, bool) else False, indent=False)

    def _number_input(self, w: Any) -> Any:
        f = self.field
        is_int = f.kind == "integer"
        default = f.default
        numeric = isinstance(default, int | float) and not isinstance(default, bool)
        if f.bounded and f.exclusive_minimum is None and f.exclusive_maximum is None:
            lo, hi = f.minimum, f.maximum
            if is_int:
                lo_i, hi_i = math.ceil(lo), math.floor(hi)  # type: ignore[arg-type]
                value = int(default) if numeric else lo_i
                value = min(max(value, lo_i), hi_i)
                step = int(f.multiple_of) if f.multiple_of and float(f.multiple_of).is_integer() else 1
                if hi_i - lo_i <= _SLIDER_MAX_STEPS * step:
                    return w.IntSlider(value=value, min=lo_i, max=hi_i, step=step, continuous_update=False)
                return self._number_text(w)
            value_f = float(default) if numeric else float(lo)  # type: ignore[arg-type]
            value_f = min(max(value_f, float(lo)), float(hi))  # type: ignore[arg-type]
            step_f = _float_step(f)
            return w.FloatSlider(
                value=value_f,
                min=float(lo),  # type: ignore[arg-type]
                max=float(hi),  # type: ignore[arg-type]
                step=step_f,
                readout_format=f".{min(6, _decimals(step_f))}f",
                continuous_update=False,
            )
        return self._number_text(w)

    def _number_text(self, w: Any) -> Any:
        """A text box, read in Python: a number box shows 0 where nothing was typed (and sent it as
        an answer), and carries its value as a JavaScript number, which rounds big integers
        (12345678901234567891 arrived as 12345678901234567000)."""
        f = self.field
        default = f.default
        numeric = isinstance(default, int | float) and not isinstance(default, bool)
        text = repr(default) if numeric else ""
        hint = "a whole number" if f.kind == "integer" else "a number"
        return w.Text(value=text, placeholder=hint, **_TYPED)

    def _choice_input(self, w: Any, wide: Any) -> Any:
        f = self.field
        index = next(
            (i for i, c in enumerate(f.choices) if f.has_default and _json_equal(c.value, f.default)),
            None,
        )
        options = [(c.label, i) for i, c in enumerate(f.choices)]
        if len(options) <= _RADIO_MAX:
            return w.RadioButtons(options=options, value=index)
        if not (f.required and index is not None):
            options = [("—", -1), *options]
        return w.Dropdown(options=options, value=-1 if index is None else index, layout=wide)

    def _multi_input(self, w: Any) -> Any:
        f = self.field
        chosen = f.default if isinstance(f.default, list) else []
        picked = [any(_json_equal(c.value, d) for d in chosen) for c in f.choices]
        if len(f.choices) <= _MULTI_CHECKBOXES:
            self._multi = [
                w.Checkbox(value=p, description=c.label, indent=False, layout=w.Layout(width="auto"))
                for c, p in zip(f.choices, picked, strict=True)
            ]
            group = w.HBox(self._multi, layout=w.Layout(flex_flow="row wrap"))
            group.add_class(GROUP)
            return group
        return w.SelectMultiple(
            options=[(c.label, i) for i, c in enumerate(f.choices)],
            value=tuple(i for i, p in enumerate(picked) if p),
            rows=min(8, len(f.choices)),
        )

    # -- reading -----------------------------------------------------------------------------

    def read(self) -> tuple[bool, Any, str | None]:
        """(present, value, parse error): absent optional values are left out of the content."""
        f = self.field
        absent_value = (True, None, None) if f.nullable and f.required else (False, None, None)
        if self.include is not None and not self.include.value:
            return absent_value
        if f.kind == "string":
            text = self.input.value
            return (True, text, None) if text != "" else absent_value
        if f.kind in ("integer", "number"):
            value = self.input.value
            if not isinstance(value, str):  # a slider
                return True, int(value) if f.kind == "integer" else float(value), None
            if not value.strip():
                return absent_value
            number, problem = parse_number(value, whole=f.kind == "integer")
            return True, number, unquoted(problem, value) if problem and f.secret_like else problem
        if f.kind == "boolean":
            if self.input.value == _UNSET:
                return absent_value
            return True, bool(self.input.value), None
        if f.kind == "choice":
            index = self.input.value
            if index is None or index < 0:
                return absent_value
            return True, f.choices[index].value, None
        if f.kind == "multichoice":
            if self._multi:
                picked = [i for i, box in enumerate(self._multi) if box.value]
            else:
                picked = list(self.input.value)
            if not picked and not f.required and not f.has_default:
                return absent_value
            return True, [f.choices[i].value for i in picked], None
        text = self.input.value.strip()
        if not text:
            return absent_value
        try:
            return True, json_or_flow(text), None
        except ValueError as exc:  # a secret's parser message may quote a piece of it
            return True, None, "not valid JSON" if f.secret_like else f"not valid JSON: {exc}"

    def forget(self) -> None:
        """Empty the field's input (a secret's: the caller chooses): its value is out of the widget
        state a saved notebook may keep ("save widget state" in JupyterLab, nbclient's
        ``store_widget_state``)."""
        import ipywidgets as w

        if isinstance(self.input, w.Text | w.Textarea):
            self.input.value = ""

    @property
    def one_line(self) -> bool:
        """A single-line text box (a password's too): Enter there means "done", not a new line."""
        import ipywidgets as w

        return isinstance(self.input, w.Text)

    def on_enter(self, callback: Any) -> None:
        """Call ``callback()`` when a person presses Enter in this field (a one-line box only).

        The Text view sends ``{"event": "submit"}`` on Enter. ipywidgets 8 deprecates ``on_submit``
        (that message's Python side) for observing ``value`` with ``continuous_update=False``, but a
        value also arrives when the field merely loses focus: clicking Decline would then send the
        form. So the message itself is read; it comes before the value typed (the ``change`` event
        follows the key), and the form waits for its fields to settle as a click on Accept does.
        """
        if not self.one_line:
            return

        def heard(_widget: Any, content: Any, _buffers: Any) -> None:
            if isinstance(content, dict) and content.get("event") == "submit":
                callback()

        self.input.on_msg(heard)

    def on_change(self, callback: Any) -> None:
        """Call ``callback()`` whenever a person changes this field (any of its widgets)."""
        for widget in self.widgets():
            widget.observe(lambda _change: callback(), names="value")

    def widgets(self) -> list[Any]:
        """Everything a person could change, to disable once the form is answered."""
        out = [self.input, *self._multi]
        if self.include is not None:
            out.append(self.include)
        return out

    @property
    def accessible_name(self) -> str:
        """What a screen reader calls this field: its title, and "(required)" where it is."""
        return required_name(self.field.title, self.field.required)

    def _name_input(self) -> None:
        """Give the input its accessible name as its ipywidgets ``description`` (a ``<label for>``
        on a text box or a ``<select>``, a checkbox's own label), shown to screen readers only
        (:data:`~mcpnb.notebook.accessibility.NAMED`): the bold title above it is what people see. A
        group of checkboxes keeps each box's label and is named as a whole (accessibility.GROUP)."""
        import ipywidgets as w

        if self._multi:
            return
        self.input.description = self.accessible_name
        self.input.add_class(NAMED)
        if isinstance(self.input, w.RadioButtons):
            self.input.add_class(GROUP)  # its label names no radio: the group is named as a whole

    def show_error(self, message: str | None) -> None:
        if message and self.field.secret_like and isinstance(self.input.value, str):
            message = unquoted(message, self.input.value)  # a validator may quote what was typed
        if message:
            # said as it appears (a screen reader hears which field went wrong, and why)
            which = sr_text(f"{self.field.title}: ")
            self.error.value = live(f'<div style="{ERROR_STYLE}">✗ {which}{esc(message)}</div>')
            self.error.layout.display = None
            self.box.add_class(INVALID)
        else:
            self.error.value = ""
            self.error.layout.display = "none"
            self.box.remove_class(INVALID)


def _json_equal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _json_type(schema: Any) -> str | None:
    return schema.get("type") if isinstance(schema, dict) and isinstance(schema.get("type"), str) else None


def _items_hint(f: Field) -> str:
    if f.min_items is not None and f.max_items is not None:
        if f.min_items == f.max_items:
            return f"Choose exactly {f.min_items}."
        return f"Choose {f.min_items} to {f.max_items}."
    if f.min_items is not None:
        return f"Choose at least {f.min_items}."
    return f"Choose at most {f.max_items}."


def shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
