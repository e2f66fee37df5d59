"""The stdin fallback with a scripted person: coercion, re-asking, defaults, decline and cancel."""

from __future__ import annotations

from mcpnb.notebook.forms import FormOutcome, ask_sampling_text, ask_text, ask_url_text
from tests.client.elicitation.schemas import EVERYTHING, EVERYTHING_MESSAGE, SEP1034, SEP1330


class Script:
    """An ``input_fn`` that replays answers and records the prompts it was shown."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


def run(schema, *answers, message="m", server="srv"):
    script, printed = Script(*answers), []
    outcome = ask_text(schema, message=message, server=server, input_fn=script, print_fn=printed.append)
    return outcome, script, "\n".join(map(str, printed))


def test_everything_field_by_field_with_reasks():
    outcome, script, printed = run(
        EVERYTHING,
        "",  # name is required: asked again
        "Ada Lovelace",
        "maybe",  # boolean: y/n only
        "y",
        "",  # firstLine: default
        "ada-at-example",  # bad email: asked again
        "ada@example.com",
        "",  # homepage optional: skipped
        "1815-13-10",  # not a date
        "1815-12-10",
        "4.5",  # integer: not whole
        "101",  # out of range
        "7",
        "",  # number: default
        "3",  # choice by number -> Joey
        "piano, 5",  # multichoice by value and number
        "wonder woman",  # titled choice by label
        "",  # titled multi: default
        "pet-2",  # legacy enum by value
        message=EVERYTHING_MESSAGE,
        server="server-everything",
    )
    assert outcome == FormOutcome(
        "accept",
        {
            "name": "Ada Lovelace",
            "check": True,
            "firstLine": "It was a dark and stormy night.",
            "email": "ada@example.com",
            "birthdate": "1815-12-10",
            "integer": 7,
            "number": 3.14,
            "untitledSingleSelectEnum": "Joey",
            "untitledMultipleSelectEnum": ["Piano", "Bass"],
            "titledSingleSelectEnum": "hero-3",
            "titledMultipleSelectEnum": ["fish-1"],
            "legacyTitledEnum": "pet-2",
        },
    )
    assert "server-everything asks for input" in printed
    assert "✗ required" in printed and "answer y or n" in printed and "email address" in printed
    assert "not a whole number: '4.5'" in printed and "at most 100" in printed
    assert any("[default: It was a dark and stormy night.]" in p for p in script.prompts)
    assert "3. Joey" in printed and "2. Dogs (pet-2)" in printed


def test_defaults_on_empty_sep1034():
    outcome, _, _ = run(SEP1034, "", "", "", "", "")
    assert outcome.content == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
    }


def test_number_coercion_keeps_types():
    schema = {"type": "object", "properties": {"i": {"type": "integer"}, "x": {"type": "number"}}}
    outcome, _, _ = run(schema, "12", "2.50")
    assert outcome.content == {"i": 12, "x": 2.5}
    assert isinstance(outcome.content["i"], int)


def test_optional_enums_may_be_skipped_sep1330():
    outcome, _, _ = run(SEP1330, "", "2", "Option One", "", "1,2")
    assert outcome.content == {
        "titledSingle": "value2",
        "legacyEnum": "opt1",
        "titledMulti": ["value1", "value2"],
    }


def test_decline_and_cancel_words():
    outcome, script, _printed = run(SEP1034, "Ada", "decline")
    assert outcome.action == "decline" and outcome.content is None and "declined" in outcome.reason
    assert len(script.prompts) == 2
    outcome, _, _ = run(SEP1034, "CANCEL")
    assert outcome.action == "cancel"


def test_input_closed_cancels_and_endless_bad_input_gives_up():
    outcome, _, _ = run(SEP1034)  # EOF at once
    assert outcome.action == "cancel" and outcome.reason == "input closed"
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    outcome, script, printed = run(schema, *["x"] * 10)
    assert outcome.action == "cancel" and "after 5 tries" in outcome.reason
    assert len(script.prompts) == 5
    assert printed.splitlines()[-1] == "→ cancel (no usable answer for 'n' after 5 tries)"  # says why
    outcome, _, printed = run(schema, "cancel")
    assert printed.splitlines()[-1] == "→ cancel"  # their own word: nothing to explain


def test_json_field_and_secret_warning():
    schema = {
        "type": "object",
        "properties": {
            "filter": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            "password": {"type": "string"},
        },
        "required": ["filter", "password"],
    }
    outcome, _, printed = run(schema, "{bad", '{"b": 1}', '{"a": 1}', "hunter2")
    assert outcome.content == {"filter": {"a": 1}, "password": "hunter2"}
    assert "not valid JSON" in printed and "looks like a secret" in printed
    assert "hunter2" not in printed  # the summary masks it
    # with a no-echo reader, only the secret goes through it
    plain, hidden = Script('{"a": 2}'), Script("s3cret")
    outcome = ask_text(
        schema, message="m", server="s", input_fn=plain, print_fn=lambda *a: None, secret_input_fn=hidden
    )
    assert outcome.content == {"filter": {"a": 2}, "password": "s3cret"}
    assert len(plain.prompts) == 1 and hidden.prompts[0].startswith("password")


def test_url_text():
    printed: list[str] = []
    outcome = ask_url_text(
        "https://google.com@evil.example/cb",
        "Sign in",
        "srv",
        input_fn=Script("what", "done"),
        print_fn=printed.append,
    )
    assert outcome.action == "accept"
    text = "\n".join(printed)
    assert "site: evil.example" in text and "user name" in text
    assert ask_url_text("https://x.org", None, "s", input_fn=Script("decline")).action == "decline"
    assert ask_url_text("https://x.org", None, "s", input_fn=Script("cancel")).action == "cancel"
    assert ask_url_text("https://x.org", None, "s", input_fn=Script()).action == "cancel"


def test_sampling_text():
    params = {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
        "systemPrompt": "Be brief",
        "maxTokens": 20,
    }
    printed: list[str] = []
    outcome = ask_sampling_text(
        params, server="srv", input_fn=Script("Hi there", "second line", ""), print_fn=printed.append
    )
    assert outcome.action == "accept" and outcome.text == "Hi there\nsecond line"
    text = "\n".join(printed)
    assert "user: Say hi" in text and "system: Be brief" in text and "token limit: 20" in text
    assert (
        ask_sampling_text(params, server="s", input_fn=Script("reject"), print_fn=printed.append).action
        == "reject"
    )
    assert (
        ask_sampling_text(params, server="s", input_fn=Script(), print_fn=printed.append).action == "reject"
    )


def test_an_empty_text_default_says_enter_leaves_it_empty():
    """probe-kit's interview asked "Deadline [default: ]: ", which reads as a prompt cut short, then
    '[default: ""]', which reads as code."""
    schema = {"type": "object", "properties": {"deadline": {"type": "string", "default": ""}}}
    outcome, script, _ = run(schema, "")
    assert script.prompts == ["deadline (Enter leaves it empty): "]
    assert outcome.content == {"deadline": ""}


def test_a_nullable_boolean_offers_null_and_shows_a_null_default_as_null():
    """``confirm: bool | None = None`` was prompted as ``[y/n] [default: n]``: Enter then sent null,
    not the "n" the prompt promised."""
    schema = {
        "type": "object",
        "properties": {
            "confirm": {"anyOf": [{"type": "boolean"}, {"type": "null"}], "default": None},
            "strict": {"type": ["boolean", "null"]},
        },
        "required": ["strict"],
    }
    outcome, script, _ = run(schema, "", "null")
    assert script.prompts == [
        "confirm [y/n/null] [default: null]: ",
        "strict [y/n/null] (required): ",
    ]
    assert outcome.content == {"confirm": None, "strict": None}
