"""People in the loop: elicitation forms, URL consent, sampling panels, progress and logs.

Importing this package is cheap: ipywidgets loads when a form is built, the validator when one is checked,
so terminals and headless runs (text fallback, policies) never pay for them.
"""

from __future__ import annotations

from mcpnb.client.elicitation.answers import validate
from mcpnb.client.elicitation.fields import MISSING, Choice, Field, defaults_of, fields_from_schema, mask
from mcpnb.client.elicitation.outcome import FormOutcome, SamplingOutcome
from mcpnb.client.elicitation.policy import Policy, apply_policy
from mcpnb.notebook.forms.panels import ConfirmPanel, SamplingPanel, SamplingView, UrlConsent, sampling_view
from mcpnb.notebook.forms.progress import LogView, ProgressView, TextProgress, format_log
from mcpnb.notebook.forms.text import ask_confirm_text, ask_sampling_text, ask_text, ask_url_text
from mcpnb.notebook.forms.widgets import ElicitationForm

__all__ = [
    "MISSING",
    "Choice",
    "ConfirmPanel",
    "ElicitationForm",
    "Field",
    "FormOutcome",
    "LogView",
    "Policy",
    "ProgressView",
    "SamplingOutcome",
    "SamplingPanel",
    "SamplingView",
    "TextProgress",
    "UrlConsent",
    "apply_policy",
    "ask_confirm_text",
    "ask_sampling_text",
    "ask_text",
    "ask_url_text",
    "defaults_of",
    "fields_from_schema",
    "format_log",
    "mask",
    "sampling_view",
    "validate",
]
