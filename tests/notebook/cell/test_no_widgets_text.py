"""What a frontend that shows no widgets (``jupyter console``) prints of a question and a progress
bar: the ``text/plain`` beside the widget view. It printed the widget's repr
(``VBox(children=(HTML(value='<div …``): the question's words, and how to answer it, were nowhere.
In a real kernel, answered as JupyterLab does (a click on the widget), so the run ends as usual."""

from __future__ import annotations

from frontend import Frontend

WIDGET = "application/vnd.jupyter.widget-view+json"


def test_a_question_and_a_progress_bar_say_themselves_in_text(kernel):
    fe = Frontend(kernel)
    fe.run_ok("%load_ext mcpnb\n%mcp serve probe-kit --toolset full")
    run = fe.execute(
        'r = %mcp call probe.ask_user question="Pick a colour"\nprint("ACTION", r.data["action"])'
    )
    form = fe.form(run, "answer")  # its models are open; the display that shows them may trail
    (shown,) = fe.wait_for(
        lambda: [d for d in fe.displays.get(run, []) if WIDGET in d], what="the form shown"
    )
    plain = shown["text/plain"]
    assert plain.startswith("✎ probe asks for input") and "VBox" not in plain, plain
    assert 'interrupt the cell, then %config Mcp.elicitation = "text"' in plain
    fe.set(form["answer"], "teal")
    fe.click(form["accept"])
    assert fe.reply(run)["status"] == "ok" and "ACTION accept" in fe.stdout[run]

    run = fe.run_ok("%mcp call probe.test_tool_with_progress")
    bars = [d for d in fe.displays[run] if WIDGET in d]
    assert bars and all(d["text/plain"].startswith("working…") for d in bars), bars


def test_the_text_beside_a_widget_carries_no_escape_sequence_of_the_server():
    """It is published as is (``raw``), past the renderers' own cleaning: a console would act on it."""
    from types import SimpleNamespace

    from mcpnb.notebook.cell.capture import no_widgets

    panel = SimpleNamespace(server="evil\x1b[2J", message="pick\n\x1b]52;c;SEVMTE8=\x07 one\u202e")
    said = no_widgets(panel, "✎", "asks for input")
    assert said.startswith("✎ evil asks for input: pick one<U+202E>\n(this frontend shows no widgets")
    assert "\x1b" not in said and "\x07" not in said
