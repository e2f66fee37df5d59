"""The form builder, fuzzed with what a person may type: any schema, any text in its text boxes,
then Accept. The form either sends an answer that fits the schema or shows what to fix; it never
raises, and it never sends what the schema forbids."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpnb.notebook.forms import ElicitationForm, validate
from tests.client.elicitation.test_fields import _schema

_typed = st.text(max_size=12) | st.sampled_from(["", " ", "1", "-3.5", "true", "[1]", '{"a": 1}', "a@b.c"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schema, st.data())
def test_anything_typed_is_sent_valid_or_shown_as_a_problem(schema: dict[str, Any], data: Any) -> None:
    sent: list[Any] = []
    form = ElicitationForm(schema, message="m", server="s", on_done=sent.append)
    for control in form.controls.values():
        widget = control.input
        if isinstance(getattr(widget, "value", None), str) and not hasattr(widget, "options"):
            widget.value = data.draw(_typed)  # what the browser sends for a text box: any string
    accepted = form.submit("accept")
    if accepted:
        (outcome,) = sent
        assert outcome.action == "accept" and validate(schema, outcome.content) == {}
    else:
        assert not sent and form.errors and not form.answered
        assert "Please fix" in form.status.value
        assert form.submit("decline") and sent[-1].action == "decline"
