"""Enter sends a one-question form, and the question shows once.

A person who types an answer into a one-field form presses Enter, as in any dialog; it did
nothing, and the question stood twice (probe-kit's ``ask_user`` gives it as the message and as the
field's description). The Text view sends ``{"event": "submit"}`` on Enter; here it comes as the
comm message the browser sends (``_handle_custom_msg``), in process, and over a real kernel from
probe-kit's ``ask_user``.
"""

from __future__ import annotations

from typing import Any

from mcpnb.notebook.forms import ElicitationForm, ask_text
from tests.frontend import Frontend

QUESTION = "What should we call you?"
ONE = {
    "type": "object",
    "properties": {"answer": {"type": "string", "title": "Answer", "description": QUESTION}},
    "required": ["answer"],
}
TWO = {
    "type": "object",
    "properties": {
        "user": {"type": "string", "title": "User"},
        "note": {"type": "string", "title": "Note"},
    },
    "required": ["user"],
}


def _form(schema: dict[str, Any], **kw: Any) -> tuple[ElicitationForm, list[Any]]:
    sent: list[Any] = []
    form = ElicitationForm(schema, message=QUESTION, server="probe", on_done=sent.append, **kw)
    return form, sent


def _enter(form: ElicitationForm, name: str) -> None:
    """What the browser sends when Enter is pressed in the field."""
    form.inputs[name]._handle_custom_msg({"event": "submit"}, [])


def test_enter_in_a_one_field_form_sends_it():
    form, sent = _form(ONE, enter_accepts=True)
    form.inputs["answer"].value = "Ada"
    _enter(form, "answer")
    assert [(o.action, o.content) for o in sent] == [("accept", {"answer": "Ada"})]
    _enter(form, "answer")  # answered: a second Enter sends nothing
    assert len(sent) == 1


def test_enter_on_an_empty_required_field_says_what_is_missing_and_sends_nothing():
    form, sent = _form(ONE, enter_accepts=True)
    _enter(form, "answer")
    assert sent == [] and not form.answered
    assert "answer" in form.errors


def test_enter_sends_from_the_last_field_once_the_required_ones_hold_something():
    form, sent = _form(TWO, enter_accepts=True)
    form.inputs["note"].value = "hi"
    _enter(form, "note")  # the required user is empty: nothing, no scolding
    assert sent == [] and form.errors == {}
    form.inputs["user"].value = "ada"
    _enter(form, "user")  # not the last field
    assert sent == []
    _enter(form, "note")
    assert [o.content for o in sent] == [{"user": "ada", "note": "hi"}]


def test_a_text_area_keeps_enter_and_a_form_without_its_buttons_ignores_it():
    lines = {"type": "object", "properties": {"text": {"type": "string", "maxLength": 5000}}}
    form, sent = _form(lines, enter_accepts=True)
    assert not form.controls["text"].one_line  # a Textarea: Enter makes a new line
    form.inputs["text"].value = "a"
    _enter(form, "text")
    assert sent == []
    explorer, sent = _form(ONE)  # the tool explorer shows only the fields: Enter sends nothing
    explorer.inputs["answer"].value = "Ada"
    _enter(explorer, "answer")
    assert sent == [] and not explorer.answered


def test_the_question_shows_once():
    form, _ = _form(ONE)
    html = form.header.value + "".join(
        child.value for child in form.controls["answer"].box.children if hasattr(child, "value")
    )
    assert html.count(QUESTION) == 1
    other, _ = _form({"type": "object", "properties": {"a": {"type": "string", "description": "Why?"}}})
    assert "Why?" in other.controls["a"].box.children[0].value  # a description of its own stays


def test_the_question_prints_once_in_text_mode():
    printed: list[str] = []
    outcome = ask_text(
        ONE, message=QUESTION, server="probe", input_fn=lambda _p: "Ada", print_fn=printed.append
    )
    assert outcome.content == {"answer": "Ada"}
    assert sum(line.count(QUESTION) for line in printed) == 1


SETUP = "%load_ext mcpnb\n%mcp serve probe-kit"
ASK = (
    f'r = %mcp call probe.ask_user question="{QUESTION}"\n'
    'print("ACTION", r.data["action"], r.data["answers"])'
)


def test_enter_sends_probe_kits_question_in_a_kernel(kernel):
    fe = Frontend(kernel)
    fe.run_ok(SETUP)
    run = fe.execute(ASK)
    fe.wait_for(lambda: fe.find(run, css="mcpnb-form"), what="the form")
    answer = fe.find(run, css="mcpnb-field-answer")
    fe.send_custom(answer, {"event": "submit"})  # Enter comes first, then the value typed
    fe.set(answer, "Ada")
    assert fe.reply(run)["status"] == "ok"
    assert "ACTION accept [{'question': 'What should we call you?', 'answer': 'Ada'}]" in fe.stdout[run]
