"""The ipywidgets form, driven in-process: set ``.value`` as a person would type, click buttons."""

from __future__ import annotations

import json

import ipywidgets as w
import pytest

from mcpnb.notebook.forms import ElicitationForm, FormOutcome
from tests.client.elicitation.schemas import (
    CONFORMANCE_BASIC,
    EVERYTHING,
    EVERYTHING_MESSAGE,
    SEP1034,
    SEP1330,
)


def make(schema, **kw):
    got: list[FormOutcome] = []
    form = ElicitationForm(
        schema,
        message=kw.pop("message", "Please answer"),
        server=kw.pop("server", "demo"),
        on_done=got.append,
    )
    return form, got


def html_of(widget) -> str:
    """All HTML text inside a widget tree (what a person would read)."""
    out = []
    if isinstance(widget, w.HTML):
        out.append(widget.value)
    for child in getattr(widget, "children", ()):
        out.append(html_of(child))
    return "\n".join(out)


def test_everything_widgets_and_defaults_prefilled():
    form, got = make(EVERYTHING, message=EVERYTHING_MESSAGE, server="server-everything")
    i = form.inputs
    assert isinstance(i["name"], w.Text) and i["name"].value == ""
    assert isinstance(i["check"], w.Checkbox) and i["check"].value is False
    assert i["firstLine"].value == "It was a dark and stormy night."
    assert i["email"].placeholder == "name@example.com"
    assert isinstance(i["integer"], w.IntSlider) and i["integer"].value == 42
    assert (i["integer"].min, i["integer"].max) == (1, 100)
    assert isinstance(i["number"], w.FloatSlider) and i["number"].value == pytest.approx(3.14)
    assert i["number"].step <= 0.01  # the default survives a nudge of the slider
    assert isinstance(i["untitledSingleSelectEnum"], w.Dropdown)  # 6 options
    assert isinstance(i["titledSingleSelectEnum"], w.RadioButtons)  # 3 options
    assert i["titledSingleSelectEnum"].label == "Superman"
    assert i["legacyTitledEnum"].label == "Cats"
    assert [c.description for c in i["untitledMultipleSelectEnum"].children] == [
        "Guitar",
        "Piano",
        "Violin",
        "Drums",
        "Bass",
    ]
    text = html_of(form.widget)
    assert "server-everything" in text and EVERYTHING_MESSAGE in text
    assert "Your full, legal name" in text  # descriptions are shown as help
    assert "mcpnb-field-name" in i["name"]._dom_classes

    i["name"].value = "Ada"
    i["email"].value = "ada@example.com"
    i["homepage"].value = "https://example.com/ada"
    i["birthdate"].value = "1815-12-10"
    i["check"].value = True
    i["untitledSingleSelectEnum"].label = "Joey"
    i["titledSingleSelectEnum"].label = "Wonder Woman"
    i["untitledMultipleSelectEnum"].children[1].value = True
    form.buttons["accept"].click()
    assert got == [
        FormOutcome(
            "accept",
            {
                "name": "Ada",
                "check": True,
                "firstLine": "It was a dark and stormy night.",
                "email": "ada@example.com",
                "homepage": "https://example.com/ada",
                "birthdate": "1815-12-10",
                "integer": 42,
                "number": 3.14,
                "untitledSingleSelectEnum": "Joey",
                "untitledMultipleSelectEnum": ["Guitar", "Piano"],
                "titledSingleSelectEnum": "hero-3",
                "titledMultipleSelectEnum": ["fish-1"],
                "legacyTitledEnum": "pet-1",
            },
        )
    ]
    assert isinstance(got[0].content["integer"], int) and isinstance(got[0].content["number"], float)


def test_sep1034_accept_untouched_sends_every_default():
    form, got = make(SEP1034)
    form.buttons["accept"].click()
    assert got[0].content == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
    }


def test_sep1330_enums_unset_by_default_and_pickable():
    form, got = make(SEP1330)
    assert form.collect() == {}  # nothing chosen, nothing invented
    form.inputs["untitledSingle"].label = "option2"
    form.inputs["titledSingle"].label = "Second Option"
    form.inputs["legacyEnum"].label = "Option Three"
    form.inputs["titledMulti"].children[0].value = True
    form.submit("accept")
    assert got[0].content == {
        "untitledSingle": "option2",
        "titledSingle": "value2",
        "legacyEnum": "opt3",
        "titledMulti": ["value1"],
    }


def test_required_marked_and_missing_required_blocks_accept():
    form, got = make(CONFORMANCE_BASIC)
    text = html_of(form.widget)
    assert text.count('title="required"') == 2
    assert "are required" in text
    form.buttons["accept"].click()
    assert got == []
    assert form.errors == {"username": "required", "email": "required"}
    assert "required" in form.controls["username"].error.value
    assert form.controls["username"].error.layout.display is None  # visible
    form.inputs["username"].value = "ada"
    form.inputs["email"].value = "ada@example.com"
    form.buttons["accept"].click()
    assert got[0].content == {"username": "ada", "email": "ada@example.com"}
    assert form.controls["username"].error.layout.display == "none"


def test_inline_errors_email_pattern_bounds_then_fix():
    schema = {
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "count": {"type": "integer", "minimum": 0},
            "ratio": {"type": "number", "exclusiveMaximum": 1},
        },
        "required": ["email", "code", "count", "ratio"],
    }
    form, got = make(schema)
    assert isinstance(form.inputs["count"], w.Text) and form.inputs["count"].value == ""
    assert isinstance(form.inputs["ratio"], w.Text) and form.inputs["ratio"].value == ""
    form.inputs["email"].value = "ada-at-example"
    form.inputs["code"].value = "abc"
    form.inputs["count"].value = "-3"
    form.inputs["ratio"].value = "1.5"
    assert form.submit("accept") is False
    assert got == [] and not form.answered
    assert set(form.errors) == {"email", "code", "count", "ratio"}
    assert "email address" in form.controls["email"].error.value
    assert "pattern" in form.controls["code"].error.value
    assert "at least 0" in form.controls["count"].error.value
    assert "less than 1" in form.controls["ratio"].error.value
    assert "Please fix 4 problems" in form.status.value
    assert not form.buttons["accept"].disabled
    form.inputs["email"].value = "ada@example.com"
    form.inputs["code"].value = "ABC"
    form.inputs["count"].value = "3"
    form.inputs["ratio"].value = "0.5"
    assert form.submit("accept") is True
    assert got[0].content == {"email": "ada@example.com", "code": "ABC", "count": 3, "ratio": 0.5}


def test_a_marked_field_is_checked_again_as_it_changes():
    """A "✗ required" under a field that was then filled must not stay: the error follows the field."""
    form, _ = make(CONFORMANCE_BASIC)
    form.buttons["accept"].click()
    assert set(form.errors) == {"username", "email"} and "Please fix 2 problems" in form.status.value
    form.inputs["username"].value = "ada"  # fixed: its error goes, the other stays
    assert form.errors == {"email": "required"}
    assert form.controls["username"].error.layout.display == "none"
    assert "Please fix 1 problem " in form.status.value
    form.inputs["email"].value = "ada@example.com"
    assert form.errors == {} and form.status.value == ""
    fresh, _ = make(CONFORMANCE_BASIC)
    fresh.inputs["email"].value = "half-typ"  # never marked: nobody is scolded while typing
    assert fresh.errors == {} and fresh.controls["email"].error.value == ""


def test_the_record_of_what_was_sent_keeps_its_lines():
    """A pasted multi-line text reached the server whole, but the "✓ Sent to" record showed it as
    one line ("line1 line2 é tabbed")."""
    form, got = make(CONFORMANCE_BASIC)
    form.inputs["username"].value = "line1\nline2\n\tindented"
    form.inputs["email"].value = "ada@example.com"
    assert form.submit("accept") is True
    assert got[0].content["username"] == "line1\nline2\n\tindented"
    assert '<span style="white-space:pre-wrap">line1\nline2\n\tindented</span>' in form.status.value


def test_text_goes_to_the_kernel_once_per_edit():
    form, _ = make(CONFORMANCE_BASIC)
    assert form.inputs["username"].continuous_update is False  # sent on blur: before the Accept click


def test_optional_numbers_are_left_out_until_typed():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "x": {"type": ["number", "null"]}}}
    form, _got = make(schema)
    assert form.collect() == {}
    form.inputs["n"].value = "7"
    assert form.collect() == {"n": 7}
    form.inputs["n"].value = ""  # erased: left out again
    assert form.collect() == {}


def test_a_required_number_without_a_default_starts_empty_and_is_not_sent_as_zero():
    """A number box shows 0 where nothing was typed: a required ``count: int`` was sent as 0, a value
    the person never chose, and erasing the box brought the 0 back. Now it is "✗ required"."""
    schema = {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "wide": {"type": "integer", "minimum": 1, "maximum": 5000},
        },
        "required": ["count", "wide"],
    }
    form, got = make(schema)
    assert form.inputs["count"].value == "" and form.inputs["wide"].value == ""
    assert form.submit("accept") is False and got == []
    assert form.errors == {"count": "required", "wide": "required"}
    form.inputs["count"].value = "12345678901234567891"  # an id: a JavaScript number rounds it
    form.inputs["wide"].value = "1e3"
    assert form.submit("accept") is True
    assert got[0].content == {"count": 12345678901234567891, "wide": 1000}


@pytest.mark.parametrize(
    ("kind", "typed", "problem"),
    [
        ("integer", "12abc", "not a whole number: '12abc'"),
        ("integer", "2.5", "not a whole number: '2.5'"),
        ("number", "nan", "not a number: 'nan'"),
        ("number", "1e400", "too large for a number: '1e400'"),
    ],
)
def test_a_number_typed_wrong_is_named_not_guessed(kind, typed, problem):
    form, got = make({"type": "object", "properties": {"v": {"type": kind}}, "required": ["v"]})
    form.inputs["v"].value = typed
    assert form.submit("accept") is False and got == []
    assert form.errors == {"v": problem}


def test_multichoice_bounds():
    form, got = make(EVERYTHING | {"required": []})
    boxes = form.inputs["untitledMultipleSelectEnum"].children
    for box in boxes:
        box.value = True
    form.submit("accept")
    assert got == [] and form.errors["untitledMultipleSelectEnum"] == "choose at most 3"
    for box in boxes:
        box.value = False
    form.submit("accept")
    assert form.errors["untitledMultipleSelectEnum"] == "choose at least 1"
    boxes[4].value = True
    form.submit("accept")
    assert got[0].content["untitledMultipleSelectEnum"] == ["Bass"]
    assert "Choose 1 to 3" in html_of(form.widget)


def test_many_choices_use_select_multiple():
    schema = {
        "type": "object",
        "properties": {
            "t": {"type": "array", "items": {"enum": [f"v{i}" for i in range(12)]}, "default": ["v3"]}
        },
    }
    form, _got = make(schema)
    assert isinstance(form.inputs["t"], w.SelectMultiple)
    assert form.collect() == {"t": ["v3"]}
    form.inputs["t"].value = (0, 11)
    assert form.collect() == {"t": ["v0", "v11"]}


def test_secret_fields_warn_use_password_and_are_masked():
    schema = {
        "type": "object",
        "properties": {"user": {"type": "string"}, "apiToken": {"type": "string", "title": "API token"}},
    }
    form, got = make(schema, server="vault")
    assert isinstance(form.inputs["apiToken"], w.Password)
    warnings = [c for c in form.controls["apiToken"].box.children if "mcpnb-secret-warning" in c._dom_classes]
    assert warnings and "vault" in warnings[0].value
    assert not [c for c in form.controls["user"].box.children if "mcpnb-secret-warning" in c._dom_classes]
    form.inputs["user"].value = "ada"
    form.inputs["apiToken"].value = "s3cr3t-value"
    form.submit("accept")
    assert got[0].content["apiToken"] == "s3cr3t-value"
    assert "s3cr3t-value" not in form.status.value and "••••••" in form.status.value
    assert "ada" in form.status.value
    # sent, it leaves the widget: a notebook saved with its widget state must not keep it
    assert form.inputs["apiToken"].value == "" and form.inputs["user"].value == "ada"


def test_a_secret_inside_a_json_field_is_masked_where_the_answer_shows():
    # only top-level fields were masked: {"db": {"password": ...}} typed in a JSON field showed
    schema = {
        "type": "object",
        "properties": {"settings": {"type": "object", "properties": {"db": {"type": "object"}}}},
    }
    form, got = make(schema, server="vault")
    typed = {"db": {"user": "ada", "password": "s3cr3t-value"}, "keys": [{"api_key": "k-123456"}]}
    form.inputs["settings"].value = json.dumps(typed)
    form.submit("accept")
    assert got[0].content["settings"] == typed  # sent as typed
    shown = form.status.value
    assert "s3cr3t-value" not in shown and "k-123456" not in shown
    assert "ada" in shown and shown.count("••••••") == 2


def test_json_editor_for_nested_objects():
    schema = {
        "type": "object",
        "properties": {
            "filter": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "op": {"enum": ["eq", "lt"]}},
                "required": ["field"],
                "default": {"field": "age", "op": "lt"},
            },
            "rows": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}},
        },
        "required": ["filter"],
    }
    form, got = make(schema)
    assert isinstance(form.inputs["filter"], w.Textarea)
    assert '"field": "age"' in form.inputs["filter"].value  # default pre-filled as JSON
    assert "Edit as JSON" in html_of(form.widget)
    form.inputs["filter"].value = "{not json"
    form.submit("accept")
    assert got == [] and form.errors["filter"].startswith("not valid JSON")
    form.inputs["filter"].value = '{"op": "eq"}'
    form.submit("accept")
    assert got == [] and "field" in form.errors["filter"]  # validated against the nested schema
    form.inputs["filter"].value = '{"field": "name", "op": "eq"}'
    form.inputs["rows"].value = '[{"id": 1}]'
    form.submit("accept")
    assert got[0].content == {"filter": {"field": "name", "op": "eq"}, "rows": [{"id": 1}]}


def test_decline_and_cancel_disable_the_form():
    for action in ("decline", "cancel"):
        form, got = make(SEP1034)
        form.buttons[action].click()
        assert got == [FormOutcome(action, None)]
        assert all(b.disabled for b in form.buttons.values())
        assert all(i.disabled for i in form.inputs.values())
        assert f'was told "{action}"; nothing you typed was sent' in form.status.value
        form.buttons["accept"].click()  # a late click changes nothing
        assert len(got) == 1


def test_accept_disables_and_a_second_submit_is_ignored():
    form, got = make(SEP1034)
    assert form.submit("accept") is True
    assert form.submit("accept") is False
    assert len(got) == 1
    assert all(i.disabled for i in form.inputs.values())
    assert "Sent to <b>demo</b>" in form.status.value


def test_on_done_failure_is_shown_not_raised():
    def boom(_outcome):
        raise RuntimeError("loop closed")

    form = ElicitationForm(SEP1034, message="m", server="s", on_done=boom)
    assert form.submit("accept") is True
    assert "loop closed" in form.status.value


def test_finish_from_elsewhere_does_not_call_on_done():
    form, got = make(SEP1034)
    form.finish(FormOutcome("decline", None, reason="no answer within 10 min"), note="timed out")
    assert got == [] and form.answered
    assert "no answer within 10 min" in form.status.value and "timed out" in form.status.value


def test_untrusted_strings_are_escaped():
    schema = {
        "type": "object",
        "properties": {
            "<script>alert(1)</script>": {
                "type": "string",
                "title": "<img src=x onerror=alert(2)>",
                "description": "<script>alert(3)</script>",
            }
        },
    }
    form, _got = make(schema, message="<script>alert(4)</script>", server="<b>evil</b>")
    text = html_of(form.widget)
    assert "<script>" not in text and "<img" not in text and "<b>evil</b>" not in text
    assert "&lt;script&gt;alert(4)&lt;/script&gt;" in text
    assert "&lt;b&gt;evil&lt;/b&gt;" in text
    form.inputs["<script>alert(1)</script>"].value = "<script>x</script>"
    form.submit("accept")
    assert "<script>" not in form.status.value


def test_repr_mimebundle_delegates_to_the_widget():
    form, _ = make(SEP1034)
    bundle = form._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_a_null_default_is_an_empty_editor():
    """``tags: list[str] | None = None`` (how Pydantic and FastMCP write an optional list): the JSON
    editor starts empty, not with a "null" a person must delete before typing; left empty, the field
    is left out (the server's default applies), or sent as null where the schema requires it."""
    nullable_list = {
        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
        "default": None,
    }
    schema = {
        "type": "object",
        "properties": {"tags": nullable_list, "keep": nullable_list},
        "required": ["keep"],
    }
    form, got = make(schema)
    assert form.inputs["tags"].value == form.inputs["keep"].value == ""
    form.submit("accept")
    assert got[0].content == {"keep": None}
    form, got = make(schema)
    form.inputs["tags"].value = '["a", "b"]'
    form.submit("accept")
    assert got[0].content == {"tags": ["a", "b"], "keep": None}


def test_a_number_with_a_null_default_is_left_out_until_set():
    """``fail_at: int | None = None``: an untouched form sent ``fail_at: 0``, a value the person never
    chose (probe-kit's ``slow_task`` through the explorer); it is left out (the server's null default
    applies), or sent as null where the schema requires it, until a value is typed."""
    nullable_int = {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}
    schema = {
        "type": "object",
        "properties": {"fail_at": nullable_int, "limit": nullable_int},
        "required": ["limit"],
    }
    form, got = make(schema)
    assert form.inputs["fail_at"].value == ""
    form.submit("accept")
    assert got[0].content == {"limit": None}
    form, got = make(schema)
    form.inputs["fail_at"].value = "3"
    form.submit("accept")
    assert got[0].content == {"fail_at": 3, "limit": None}


def test_a_boolean_with_a_null_default_is_left_out_until_chosen():
    """``confirm: bool | None = None``: a checkbox has no "unset", so an untouched form sent
    ``confirm: false``, which nobody chose. Three buttons now start on "not set": left out (the
    server's null default applies), or null where the schema requires the field."""
    nullable_bool = {"anyOf": [{"type": "boolean"}, {"type": "null"}], "default": None}
    schema = {
        "type": "object",
        "properties": {
            "confirm": nullable_bool,
            "strict": {"type": ["boolean", "null"]},
            "plain": {"type": "boolean"},
        },
        "required": ["strict"],
    }
    form, got = make(schema)
    assert form.inputs["confirm"].label == "not set"
    assert isinstance(form.inputs["plain"], w.Checkbox)  # no null: a checkbox, false untouched
    assert "“not set” sends nothing" in html_of(form.controls["confirm"].box)
    assert "“not set” sends null" in html_of(form.controls["strict"].box)
    form.submit("accept")
    assert got[0].content == {"strict": None, "plain": False}
    form, got = make(schema)
    form.inputs["confirm"].label = "false"  # a person clicks "false"
    form.inputs["strict"].label = "true"
    form.submit("accept")
    assert got[0].content == {"confirm": False, "strict": True, "plain": False}
