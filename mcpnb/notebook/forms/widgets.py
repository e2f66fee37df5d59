"""The ipywidgets form for a form-mode elicitation (and any flat JSON Schema, e.g. a tool's input).

ipywidgets is imported when a form is built, never at ``import mcpnb.notebook.forms``: a terminal session
or a headless run must not pay for (or need) a widget frontend.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpnb.client.elicitation.answers import validate
from mcpnb.client.elicitation.fields import Field, fields_from_schema, mask
from mcpnb.client.elicitation.outcome import FormOutcome
from mcpnb.notebook.accessibility import alert_to_fix, live, mark_root, page_aids
from mcpnb.notebook.forms.controls import ERROR_STYLE, HELP_STYLE, Control, shown
from mcpnb.notebook.forms.record import Recorded, record_bundle
from mcpnb.notebook.forms.settle import Edits
from mcpnb.notebook.render.html import esc, esc_lines


def summary_html(fields: list[Field], outcome: FormOutcome, server: str) -> str:
    """What was sent, secrets masked: the notebook keeps a record a person can trust and share."""
    if outcome.action == "accept":
        masked = mask(fields, outcome.content) or {}
        rows = "".join(
            f'<div style="line-height:1.4"><span style="{HELP_STYLE}">{esc(k)}:</span> '
            # its lines, as sent; in the value's own direction (a <bdi> is dir="auto")
            f'<bdi><span style="white-space:pre-wrap">{esc(shown(v))}</span></bdi></div>'
            for k, v in masked.items()
        )
        empty = "" if rows else "<div>(an empty answer)</div>"
        return f"<div>✓ Sent to <b>{esc(server)}</b>:</div>{rows}{empty}"
    # The server is told "decline" or "cancel" (a form frozen when its call ended answers "cancel"
    # too): the record says so, and that nothing typed went with it.
    word = "Declined" if outcome.action == "decline" else "Cancelled"
    why = f" ({esc(outcome.reason)})" if outcome.reason else ""
    mark = "✗" if outcome.action == "decline" else "⊘"
    told = f'<b>{esc(server)}</b> was told "{outcome.action}"'
    return f"<div>{mark} {word}: {told}; nothing you typed was sent{why}.</div>"


def header_html(server: str, message: str) -> str:
    """Who asks and what: the top of the form, and of its record."""
    return (
        f'<div style="font-size:1.05em;margin-bottom:2px">✎ <b>{esc(server)}</b> asks for input</div>'
        f'<div dir="auto" style="margin-bottom:6px;line-height:1.4">{esc_lines(message)}</div>'
    )


class ElicitationForm(Recorded):
    """A form for one elicitation: pre-filled defaults, inline validation, Accept/Decline/Cancel.

    ``on_done`` runs once, on the thread that handles the click (the kernel's), after the form has
    disabled itself; handing the answer to another loop is the caller's business.

    ``enter_accepts``: Enter in a one-line text field is Accept, where the form is that field alone,
    or the field is the form's last and every required field holds something (a person expects it
    of a one-question form; Enter elsewhere does nothing, and a text area keeps Enter for new lines).
    ``on_enter``, where given, is what Enter in any one-line field does instead (the tool explorer
    keeps only the form's fields: Enter there is its Call, which checks the form as a click does).
    """

    def __init__(
        self,
        schema: dict[str, Any],
        *,
        message: str | None,
        server: str | None,
        on_done: Callable[[FormOutcome], None],
        enter_accepts: bool = False,
        on_enter: Callable[[], Any] | None = None,
    ) -> None:
        import ipywidgets as w

        from mcpnb.notebook.cell.commstatus import install_comm_status

        install_comm_status()  # so what a person types reaches a cell that awaits this form
        self.schema = schema if isinstance(schema, dict) else {}
        self.message = message or ""
        self.server = server or "The server"
        self.on_done = on_done
        self.on_enter = on_enter
        self.fields = fields_from_schema(self.schema)
        self.outcome: FormOutcome | None = None
        self.errors: dict[str, str] = {}

        self.controls = {f.name: Control(f, self.server, message=self.message) for f in self.fields}
        self.inputs = {name: c.input for name, c in self.controls.items()}
        self.edits = Edits()
        for name, control in self.controls.items():
            control.on_change(self.edits.touch)
            control.on_change(lambda n=name: self._recheck(n))
            if enter_accepts:
                control.on_enter(lambda n=name: self.edits.then(lambda: self._entered(n)))

        required_note = (
            f'<div style="{HELP_STYLE}">Fields marked '
            f'<span style="{ERROR_STYLE}">*</span> are required.</div>'
            if any(f.required for f in self.fields)
            else ""
        )
        self.header = w.HTML(header_html(self.server, self.message) + required_note)
        self.header.add_class("mcpnb-form-header")
        self.buttons = {
            "accept": w.Button(description="Accept", button_style="primary", tooltip="Send these answers"),
            "decline": w.Button(description="Decline", tooltip="Tell the server you will not answer"),
            "cancel": w.Button(description="Cancel", tooltip="Dismiss without answering"),
        }
        for action, button in self.buttons.items():
            button.add_class(f"mcpnb-{action}")
            button.on_click(lambda _b, a=action: self.edits.click(a, self.submit))
        self.status = w.HTML("")
        self.status.add_class("mcpnb-status")
        body = [c.box for c in self.controls.values()]
        if not body:
            body = [w.HTML(f'<div style="{HELP_STYLE}">(no fields: accepting sends an empty answer)</div>')]
        self.widget = w.VBox(
            [
                self.header,
                *body,
                w.HBox(list(self.buttons.values())),
                self.status,
                *page_aids(),
            ],
            layout=w.Layout(
                border="1px solid var(--jp-border-color1,#ccc)", padding="8px 12px", max_width="720px"
            ),
        )
        self.widget.add_class("mcpnb-form")
        mark_root(self.widget)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    @property
    def answered(self) -> bool:
        return self.outcome is not None

    def _gather(self) -> tuple[dict[str, Any], dict[str, str]]:
        content: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for name, control in self.controls.items():
            present, value, problem = control.read()
            if problem:
                problems[name] = problem
            elif present:
                content[name] = value
        return content, problems

    def collect(self) -> dict[str, Any]:
        """The content Accept would send right now (fields with unparsable JSON left out)."""
        return self._gather()[0]

    def check(self, blanks: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The content if it is valid (errors cleared), else None with the errors shown inline.

        For forms that send more than once (the tool explorer), where :meth:`submit` would freeze.
        ``blanks``: values for fields left empty (a secret sent before and emptied since, which a
        retry of the same call sends again: see :meth:`forget_secrets`).
        """
        content, problems = self._gather()
        content = {**{k: v for k, v in (blanks or {}).items() if k not in problems}, **content}
        errors = {**validate(self.schema, content), **problems}
        self.show_errors(errors, to_fix=True)
        return None if errors else content

    def _entered(self, name: str) -> None:
        """Enter in field ``name`` (its fields settled): Accept, where Enter means "send" (see the
        class); the form validates as for a click, and stays open with its errors shown."""
        if self.answered:
            return
        last = list(self.controls)[-1]
        if self.on_enter is not None:  # a call to make, not an answer: from any one-line field
            self.on_enter()
            return
        if len(self.controls) > 1 and (name != last or not self._required_filled()):
            return
        self.submit("accept")

    def _required_filled(self) -> bool:
        return all(c.read()[0] for c in self.controls.values() if c.field.required)

    def _recheck(self, name: str) -> None:
        """A field with an error shown changed: check it again, so a fixed field loses its "✗".

        Only fields already marked are re-checked; a person half-way through typing is not scolded.
        """
        if name not in self.errors or self.answered:
            return
        content, problems = self._gather()
        now = {**validate(self.schema, content), **problems}
        errors = dict(self.errors)
        if name in now:
            errors[name] = now[name]
        else:
            errors.pop(name)
        self.show_errors(errors)

    def show_errors(self, errors: dict[str, str], *, to_fix: bool = False) -> None:
        """Errors next to their fields; ones that belong to no field go to the status line.

        ``to_fix`` (a failed Accept): the status line is an alert a screen reader says at once, and
        the focus goes to the first field to fix; a re-check while a person edits moves nothing."""
        self.errors = dict(errors)
        for name, control in self.controls.items():
            control.show_error(errors.get(name))
        loose = [f"{k}: {v}" if k else v for k, v in errors.items() if k not in self.controls]
        if errors:
            n = len(errors)
            lines = [f"Please fix {n} problem{'s' if n != 1 else ''} before sending.", *loose]
            said = "".join(f'<div style="{ERROR_STYLE}">{esc(x)}</div>' for x in lines)
            # the script moves the focus to the first field to fix (never from a cell being typed in)
            self.status.value = alert_to_fix(said) if to_fix else live(said)
        else:
            self.status.value = ""

    def submit(self, action: str) -> bool:
        """Answer the form as if a button was clicked; ``False`` when nothing was sent.

        Accept validates first: with errors the form stays open and ``on_done`` is not called.
        """
        if self.answered:
            return False
        if action not in ("accept", "decline", "cancel"):
            raise ValueError(f"unknown action {action!r}")
        if action == "accept":
            content, problems = self._gather()
            errors = {**validate(self.schema, content), **problems}
            if errors:
                self.show_errors(errors, to_fix=True)
                return False
            outcome = FormOutcome("accept", content)
        else:
            outcome = FormOutcome(action, None)  # type: ignore[arg-type]
        self.show_errors({})
        self._freeze(outcome)
        try:
            self.on_done(outcome)
        except Exception as exc:  # the answer is still shown; say why it may not have arrived
            self.status.value += f'<div style="{ERROR_STYLE}">could not deliver the answer: {esc(exc)}</div>'
        self._ended()  # the record says whether it arrived
        return True

    def finish(self, outcome: FormOutcome, note: str | None = None) -> None:
        """Freeze the form and show what was sent, without calling ``on_done``; a form shown in an
        output of its own (:meth:`record_into`) then leaves its record there.

        Callers use it when the answer came from elsewhere (a timeout, an interrupt, a policy).
        """
        self._freeze(outcome, note)
        self._ended()

    def record(self) -> dict[str, str]:
        """The question and what was sent (secrets masked), as the frozen form's status says it;
        when nothing was sent, which fields were asked for."""
        asked = ""
        if self.outcome is None or self.outcome.action != "accept":
            titles = ", ".join(esc(f.title) for f in self.fields) or "(no fields)"
            asked = f'<div style="{HELP_STYLE}">Asked for: {titles}</div>'
        status = f'<div class="mcpnb-status">{self.status.value}</div>'
        return record_bundle("mcpnb-form", header_html(self.server, self.message) + asked + status)

    def secret_fields(self, *, doubtless: bool = False) -> list[str]:
        """The fields whose value is a secret (``format: password``, ``writeOnly``, a secret-looking
        name: :func:`~mcpnb.client.elicitation.fields.looks_secret`); ``doubtless``: a credential
        beyond doubt only (:func:`~mcpnb.client.elicitation.fields.clearly_secret`: not a Redis
        ``key`` or a ``page_token``, which the tool explorer keeps for the next call)."""
        return [
            name
            for name, control in self.controls.items()
            if (control.field.clearly_secret if doubtless else control.field.secret_like)
        ]

    def forget_secrets(self, *, doubtless: bool = False) -> None:
        """Empty every secret field's input (a PIN's and a JSON credential's too, not only a
        password's): once the answer is taken, the value has no business in the widget state that
        JupyterLab's "save widget state" writes into the notebook (``doubtless``: see
        :meth:`secret_fields`)."""
        for name in self.secret_fields(doubtless=doubtless):
            self.controls[name].forget()

    def _freeze(self, outcome: FormOutcome, note: str | None = None) -> None:
        """Disable every input, clear secrets out of the widgets, and say what was sent."""
        self.outcome = outcome
        for control in self.controls.values():
            for widget in control.widgets():
                widget.disabled = True
        self.forget_secrets()
        for button in self.buttons.values():
            button.disabled = True
        text = summary_html(self.fields, outcome, self.server)
        if note:
            text += f'<div style="{HELP_STYLE}">{esc(note)}</div>'
        self.status.value = live(text, focus=True)  # said, and where the focus goes from the buttons
