"""Every secret field of a form is a secret, whatever its type (a PIN, an OTP code, a JSON
credential, not only a password string): read without echo on stdin, masked in its widget, emptied
from it once answered, never quoted by an error line.

The fields are the project's secret fields (``looks_secret``: ``format: password``, ``writeOnly``, a
secret-looking name). On stdin (``%config Mcp.elicitation = "text"``) JupyterLab saves what
``input()`` read as a ``stdin`` output: ``pin (integer) ...: 97531864`` stayed in the notebook. A
widget's value stays in the widget state JupyterLab's "save widget state" writes into it.
"""

from __future__ import annotations

import ipywidgets as w
import pytest

from mcpnb.client.elicitation.fields import fields_from_schema, mask
from mcpnb.notebook.forms import ElicitationForm, FormOutcome, ask_text
from tests.servers.secrets_server import ASK as ASKED

#: the server's question, and a JSON credential (an object: a tool's schema may have one)
ASK = {**ASKED, "properties": {**ASKED["properties"], "credentials": {"type": "object"}}}

BIDI = "mcpnb-bidi"  # controls.BIDI: the class that gives a text input dir="auto"
PASSWORD, PIN, OTP, BLOB = "TextPassWd_Q1w2E3r4T5", "97531864", "13572468", "TextWOBlob_Z9Y8X7"
CREDS = '{"user": "ann", "key": "CredKey_Zz99Yy88"}'


class Reader:
    """An ``input_fn`` that replays answers and keeps the prompts it read."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, prompt: str) -> str:
        name = prompt.split(" ", 1)[0]
        self.asked.append(name)
        return self.answers.pop(name, "")


def test_text_mode_reads_every_typed_secret_without_echo():
    plain = Reader({"user": "ann", "colour": "red"})
    hidden = Reader(
        {"secret_answer": PASSWORD, "pin": PIN, "otp_code": OTP, "blob": BLOB, "credentials": CREDS}
    )
    printed: list[str] = []
    outcome = ask_text(
        ASK, message="m", server="s", input_fn=plain, print_fn=printed.append, secret_input_fn=hidden
    )
    assert outcome.action == "accept"
    assert outcome.content["pin"] == int(PIN) and outcome.content["otp_code"] == float(OTP)
    assert hidden.asked == ["secret_answer", "pin", "otp_code", "blob", "credentials"]
    assert plain.asked == ["user", "colour"]  # a choice's values are listed anyway: read as typed
    said = "\n".join(printed)
    assert all(s not in said for s in (PASSWORD, PIN, OTP, BLOB, "CredKey"))


@pytest.mark.parametrize("typed", ["9753x864", "9753.5"])
def test_text_mode_does_not_quote_a_mistyped_secret(typed):
    outcome, said = _pin_typed({"type": "integer"}, typed, PIN)
    assert outcome.content == {"pin": int(PIN)}
    assert "not a whole number" in said and typed not in said


def _pin_typed(pin: dict, *typed: str) -> tuple[FormOutcome, str]:
    """A text-mode form of one secret ``pin`` field answered with ``typed`` in turn: its outcome,
    and what it printed."""
    printed: list[str] = []
    answers = iter(typed)
    outcome = ask_text(
        {"type": "object", "properties": {"pin": pin}},
        message="m",
        server="s",
        input_fn=lambda _p: "",
        print_fn=printed.append,
        secret_input_fn=lambda _p: next(answers),
    )
    return outcome, "\n".join(printed)


def _form(schema=ASK):
    got: list[FormOutcome] = []
    return ElicitationForm(schema, message="m", server="s", on_done=got.append), got


def test_a_secret_number_is_a_password_box_read_as_a_number():
    schema = {
        "type": "object",
        "properties": {
            "pin": {"type": "integer", "minimum": 0, "maximum": 99999999},  # bounded: no slider for it
            "otp_code": {"type": "number"},
            "count": {"type": "integer", "minimum": 0, "maximum": 10},
        },
        "required": ["pin"],
    }
    form, got = _form(schema)
    assert isinstance(form.inputs["pin"], w.Password) and isinstance(form.inputs["otp_code"], w.Password)
    assert isinstance(form.inputs["count"], w.IntSlider)  # a plain number: as it was
    form.inputs["pin"].value = "4.5"
    assert form.submit("accept") is False
    assert form.errors["pin"] == "not a whole number: ••••••"
    form.inputs["pin"].value = "100000000"  # over the maximum: checked as a number
    assert form.submit("accept") is False and "at most" in form.errors["pin"]
    form.inputs["pin"].value, form.inputs["otp_code"].value = PIN, OTP
    assert form.submit("accept") is True
    assert got[0].content == {"pin": int(PIN), "otp_code": float(OTP)}


def test_every_secret_field_is_emptied_once_answered():
    form, got = _form()
    values = {"user": "ann", "secret_answer": PASSWORD, "pin": PIN, "otp_code": OTP, "blob": BLOB}
    for name, value in {**values, "credentials": CREDS}.items():
        form.inputs[name].value = value
    assert form.submit("accept") is True
    assert got[0].content["pin"] == int(PIN) and got[0].content["credentials"]["key"] == "CredKey_Zz99Yy88"
    for name in ("secret_answer", "pin", "otp_code", "blob", "credentials"):
        assert form.inputs[name].value == "", name
    assert form.inputs["user"].value == "ann"
    for secret in (PASSWORD, PIN, OTP, BLOB, "CredKey"):
        assert secret not in form.status.value and secret not in str(form.record())


def test_a_secret_json_fields_parse_error_quotes_none_of_it():
    form, _ = _form()
    form.inputs["user"].value = "ann"
    form.inputs["credentials"].value = '{"key": "CredKey_Zz99Yy88"'
    assert form.submit("accept") is False
    assert form.errors["credentials"] == "not valid JSON"
    assert "CredKey" not in form.controls["credentials"].error.value


def test_a_payment_cards_number_is_a_secret():
    fields = fields_from_schema(
        {"type": "object", "properties": {"card_number": {"type": "string"}, "amount": {"type": "integer"}}}
    )
    assert mask(fields, {"card_number": "4111111111111111", "amount": 5}) == {
        "card_number": "••••••",
        "amount": 5,
    }


def test_text_inputs_and_labels_follow_the_direction_of_their_text():
    """Hebrew typed into a field read left to right: inputs take ``unicode-bidi: plaintext`` (CSS's
    ``dir="auto"``) by a class, labels and the question ``dir="auto"``."""
    form, _ = _form(
        {
            "type": "object",
            "title": "x",
            "properties": {"שם": {"type": "string", "description": "השם שלך"}, "n": {"type": "integer"}},
        }
    )
    box = form.inputs["שם"]
    assert BIDI in box._dom_classes and BIDI in form.inputs["n"]._dom_classes
    label = form.controls["שם"].box.children[0].value
    assert '<b dir="auto"' in label and '<div dir="auto"' in label and "unicode-bidi: plaintext" in label
    assert 'dir="auto"' in form.header.value


def test_a_count_of_tokens_is_a_number_and_a_key_is_kept_for_the_next_call():
    """``token_count`` and ``session_timeout`` are numbers, not PINs: a masked box for them hid what
    a person typed. The tool explorer empties a credential beyond doubt after a call, not a Redis
    ``key`` or a ``page_token`` (a second Call then failed: "key: required")."""
    schema = {
        "type": "object",
        "properties": {
            "token_count": {"type": "integer"},
            "session_timeout": {"type": "number"},
            "key": {"type": "string"},
            "page_token": {"type": "string"},
            "password": {"type": "string"},
        },
    }
    form, _got = _form(schema)
    assert not isinstance(form.inputs["token_count"], w.Password)
    assert not isinstance(form.inputs["session_timeout"], w.Password)
    assert form.secret_fields(doubtless=True) == ["password"]
    for name, value in (("key", "prod:users:*"), ("page_token", "p2"), ("password", "hunter2")):
        form.inputs[name].value = value
    form.forget_secrets(doubtless=True)
    assert form.inputs["key"].value == "prod:users:*" and form.inputs["page_token"].value == "p2"
    assert form.inputs["password"].value == ""


def test_a_short_secret_is_hidden_where_it_stands_alone_not_inside_other_numbers():
    """A PIN ``1234`` refused for being under a minimum of ``12345``: the minimum was shown as
    ``••••••5``, the message garbled without hiding anything more."""
    outcome, said = _pin_typed({"type": "integer", "minimum": 12345}, "1234", "54321")
    assert outcome.content == {"pin": 54321}
    assert "12345" in said and "1234 " not in said and not said.rstrip().endswith("1234"), said
