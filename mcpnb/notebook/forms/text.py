"""The stdin fallback: the same questions, field by field, for terminals and text-only frontends.

``input_fn`` is whatever reads a line (``input``, ``Kernel.raw_input`` from the background thread,
or a scripted function in tests). If it raises ``EOFError`` the person is gone: that is a cancel.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcpnb.client.elicitation.answers import FORMAT_HINTS, parse_number, validate, validate_field
from mcpnb.client.elicitation.fields import MISSING, Field, fields_from_schema, mask
from mcpnb.client.elicitation.outcome import FormOutcome, SamplingOutcome
from mcpnb.client.handwritten import json_or_flow
from mcpnb.notebook.forms.controls import said_already, unquoted
from mcpnb.notebook.forms.urls import url_parts

#: After this many unusable answers to one question, give up (a script or a person stuck in a loop).
MAX_TRIES = 5

_YES = {"y", "yes", "true", "t", "1", "on"}
_NO = {"n", "no", "false", "f", "0", "off"}
_WORDS = {"decline": "decline", "cancel": "cancel"}
_SAID = {"decline": "declined by the person", "cancel": "cancelled by the person"}


class _Stop(Exception):
    def __init__(self, action: str, reason: str) -> None:
        super().__init__(reason)
        self.action = action
        self.reason = reason


def _show_default(f: Field) -> str:
    if not f.has_default:
        return ""
    if f.kind == "choice":
        return f.label_for(f.default)
    if f.kind == "multichoice" and isinstance(f.default, list):
        return ", ".join(f.label_for(v) for v in f.default)
    if f.kind == "boolean" and isinstance(f.default, bool):
        return "y" if f.default else "n"
    if f.secret_like and f.default:
        return "••••••"
    return f.default if isinstance(f.default, str) else json.dumps(f.default)


def _prompt(f: Field) -> str:
    bits = [f.title]
    if f.kind == "boolean":
        bits.append("[y/n/null]" if f.nullable else "[y/n]")
    elif f.kind == "string" and f.format in FORMAT_HINTS:
        bits.append(f"({FORMAT_HINTS[f.format]})")
    elif f.kind in ("integer", "number"):
        lo = f.minimum if f.minimum is not None else f.exclusive_minimum
        hi = f.maximum if f.maximum is not None else f.exclusive_maximum
        if lo is not None or hi is not None:
            bits.append(f"({f.kind}, {'' if lo is None else lo}..{'' if hi is None else hi})")
        else:
            bits.append(f"({f.kind})")
    elif f.kind == "json":
        bits.append(f"(JSON: {f.json_reason})" if f.json_reason else "(JSON)")
    elif f.kind == "multichoice":
        bits.append("(numbers or values, comma-separated)")
    if f.has_default and f.default == "":  # "[default: ]" read as a prompt cut short, '""' as code
        bits.append("(Enter leaves it empty)")
    elif f.has_default:
        bits.append(f"[default: {_show_default(f)}]")
    elif f.required:
        bits.append("(required)")
    else:
        bits.append("(optional, Enter to skip)")
    return " ".join(str(b) for b in bits) + ": "


def _pick(f: Field, token: str) -> Any:
    """A choice by number (1-based), value or label; ``KeyError`` if none fits."""
    token = token.strip()
    if token.isdigit() and 1 <= int(token) <= len(f.choices):
        return f.choices[int(token) - 1].value
    for choice in f.choices:
        shown = choice.value if isinstance(choice.value, str) else json.dumps(choice.value)
        if token == shown or token.casefold() == choice.label.casefold():
            return choice.value
    for choice in f.choices:
        shown = choice.value if isinstance(choice.value, str) else json.dumps(choice.value)
        if token.casefold() == shown.casefold():
            return choice.value
    raise KeyError(token)


def coerce(f: Field, text: str) -> Any:
    """Turn a typed answer into the JSON value the field wants; ``ValueError`` explains a bad one."""
    if f.nullable and text.strip().lower() in ("null", "none"):
        return None
    if f.kind == "string":
        return text
    if f.kind in ("integer", "number"):
        value, problem = parse_number(text, whole=f.kind == "integer")
        if problem:
            raise ValueError(problem)
        return value
    if f.kind == "boolean":
        word = text.strip().lower()
        if word in _YES:
            return True
        if word in _NO:
            return False
        raise ValueError("answer y or n")
    if f.kind == "choice":
        try:
            return _pick(f, text)
        except KeyError:
            raise ValueError(f"choose 1–{len(f.choices)} or one of the values listed") from None
    if f.kind == "multichoice":
        tokens = [t for t in (p.strip() for p in text.split(",")) if t]
        try:
            picked = [_pick(f, t) for t in tokens]
        except KeyError as exc:
            raise ValueError(f"unknown choice {exc.args[0]!r}") from None
        return _dedupe(picked)
    try:
        return json_or_flow(text)
    except ValueError as exc:
        raise ValueError(f"not valid JSON: {exc}") from None


def _dedupe(values: list[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for v in values:
        key = json.dumps(v, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _read(input_fn: Callable[[str], str], prompt: str) -> str:
    try:
        answer = input_fn(prompt)
    except EOFError:
        raise _Stop("cancel", "input closed") from None
    except KeyboardInterrupt:
        raise _Stop("cancel", "interrupted") from None
    answer = "" if answer is None else str(answer)
    word = answer.strip().lower()
    if word in _WORDS:
        raise _Stop(_WORDS[word], _SAID[word])
    return answer


def _ask_field(
    f: Field,
    root: dict[str, Any],
    input_fn: Callable[[str], str],
    print_fn: Callable[..., None],
    message: str | None = None,
) -> Any:
    """Ask until the answer is valid; returns MISSING for a skipped optional field. A description
    that only repeats the form's ``message`` is not printed twice."""
    if f.description and not said_already(f.description, message):
        print_fn(f"  {f.description}")
    if f.kind in ("choice", "multichoice"):
        for i, choice in enumerate(f.choices, 1):
            shown = choice.value if isinstance(choice.value, str) else json.dumps(choice.value)
            extra = f" ({shown})" if choice.label != shown else ""
            print_fn(f"    {i}. {choice.label}{extra}")
    if f.secret_like:
        print_fn("  ⚠ this looks like a secret: it will be sent to the server")
    for _ in range(MAX_TRIES):
        text = _read(input_fn, _prompt(f))
        if text == "" or (f.kind != "string" and not text.strip()):
            if f.has_default:
                return f.default
            if not f.required:
                return MISSING
            print_fn("  ✗ required")
            continue
        try:
            value = coerce(f, text)
        except ValueError as exc:
            print_fn(f"  ✗ {unquoted(str(exc), text) if f.secret_like else exc}")
            continue
        problem = validate_field(f, value, root)
        if problem:
            print_fn(f"  ✗ {unquoted(problem, text) if f.secret_like else problem}")
            continue
        return value
    raise _Stop("cancel", f"no usable answer for {f.name!r} after {MAX_TRIES} tries")


def ask_text(
    schema: dict[str, Any],
    *,
    message: str | None,
    server: str | None,
    input_fn: Callable[[str], str],
    print_fn: Callable[..., None] = print,
    secret_input_fn: Callable[[str], str] | None = None,
) -> FormOutcome:
    """Ask a form elicitation on a line-based console. Typing ``decline`` or ``cancel`` answers so.

    ``secret_input_fn`` (e.g. ``getpass.getpass`` or ``Kernel.getpass``) reads every secret-looking
    field a person types (a password, a PIN, an OTP code, a JSON credential) without echo: JupyterLab
    saves what ``input_fn`` read as the cell's ``stdin`` output, so a PIN read with it stayed in the
    notebook. Choices and yes/no are read with ``input_fn``: their values are listed on screen
    anyway. Without it, secrets are read with ``input_fn`` after a warning.
    """
    server = server or "The server"
    fields = fields_from_schema(schema)
    print_fn(f"✎ {server} asks for input: {message or ''}".rstrip())
    print_fn("   (Enter keeps the default; type 'decline' or 'cancel' at any prompt to stop)")
    content: dict[str, Any] = {}
    try:
        todo = list(fields)
        for _round in range(MAX_TRIES):
            for f in todo:
                read = secret_input_fn if (secret_input_fn and _typed_secret(f)) else input_fn
                value = _ask_field(f, schema, read, print_fn, message)
                if value is MISSING:
                    content.pop(f.name, None)
                else:
                    content[f.name] = value
            errors = validate(schema, content)
            if not errors:
                break
            for name, problem in errors.items():
                print_fn(f"  ✗ {name or 'answer'}: {problem}")
            todo = [f for f in fields if f.name in errors]
            if not todo:  # a problem no single field can fix
                return FormOutcome("decline", None, reason="; ".join(errors.values()))
        else:
            return FormOutcome("cancel", None, reason="the answers never validated")
    except _Stop as stop:  # the person's own word needs no reason; anything else says why
        print_fn(f"→ {stop.action}" + ("" if stop.reason in _SAID.values() else f" ({stop.reason})"))
        return FormOutcome(stop.action, None, reason=stop.reason)  # type: ignore[arg-type]
    print_fn(f"→ sending to {server}: {json.dumps(mask(fields, content), ensure_ascii=False, default=str)}")
    return FormOutcome("accept", content)


def _typed_secret(f: Field) -> bool:
    """A secret a person types (not one of listed choices): read without echo."""
    return f.secret_like and (
        f.kind == "string" or (f.kind in ("integer", "number", "json") and f.clearly_secret)
    )


def ask_confirm_text(
    question: str,
    details: str,
    *,
    yes: str,
    no: str,
    input_fn: Callable[[str], str],
    print_fn: Callable[..., None] = print,
) -> bool:
    """A yes/no of mcpnb's own on a console; anything but ``y``/``yes`` is no (the safe answer)."""
    print_fn(f"⚠ {details}")
    said = input_fn(f"{question} [y/N]: ").strip().lower() in ("y", "yes")
    print_fn(f"→ {yes if said else no}")
    return said


def ask_url_text(
    url: str,
    message: str | None,
    server: str | None,
    input_fn: Callable[[str], str],
    print_fn: Callable[..., None] = print,
) -> FormOutcome:
    """URL-mode consent on a console: the link is printed, never opened; ``done`` means accept."""
    server = server or "The server"
    _before, host, _after, warnings = url_parts(url)
    print_fn(f"↗ {server} asks you to open a link: {message or ''}".rstrip())
    print_fn(f"   {url}")
    if host:
        print_fn(f"   site: {host}")
    for warning in warnings:
        print_fn(f"   ⚠ {warning}")
    for _ in range(MAX_TRIES):
        try:
            answer = input_fn("Open it in your browser, then type 'done' (or 'decline' / 'cancel'): ")
        except (EOFError, KeyboardInterrupt):
            return FormOutcome("cancel", None, reason="input closed")
        word = (answer or "").strip().lower()
        if word in ("done", "d", "y", "yes", "ok", "completed", "accept"):
            return FormOutcome("accept", None)
        if word in ("decline", "n", "no"):
            return FormOutcome("decline", None, reason="declined by the person")
        if word in ("cancel", "c"):
            return FormOutcome("cancel", None, reason="cancelled by the person")
        print_fn("  type done, decline or cancel")
    return FormOutcome("cancel", None, reason="no usable answer")


def ask_sampling_text(
    params: Any,
    *,
    server: str | None,
    input_fn: Callable[[str], str],
    print_fn: Callable[..., None] = print,
) -> SamplingOutcome:
    """A sampling request on a console: the person is the model. A blank line ends the reply."""
    from mcpnb.notebook.forms.panels import sampling_view

    view = sampling_view(params)
    server = server or "The server"
    print_fn(f"✦ {server} asks for a model reply (you answer as the model).")
    if view.system_prompt:
        print_fn(f"   system: {view.system_prompt}")
    for role, text in view.messages:
        print_fn(f"   {role}: {text}")
    if view.media:
        print_fn("   (a console shows a picture or sound as its type and size only)")
    for what, value in view.settings():
        print_fn(f"   {what}: {value}")
    print_fn("   Type your reply (a blank line ends it), or 'reject':")
    for _ in range(MAX_TRIES):
        lines: list[str] = []
        try:
            while True:
                line = input_fn("> " if not lines else ". ")
                line = "" if line is None else str(line)
                if not lines and line.strip().lower() in ("reject", "decline", "cancel"):
                    return SamplingOutcome("reject", None, reason="rejected by the person")
                if line == "":
                    break
                lines.append(line)
        except (EOFError, KeyboardInterrupt):
            if not lines:
                return SamplingOutcome("reject", None, reason="input closed")
        if lines:
            return SamplingOutcome("accept", "\n".join(lines))
        print_fn("  (empty reply: type some text, or 'reject')")
    return SamplingOutcome("reject", None, reason="no reply")
