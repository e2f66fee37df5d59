"""People in the loop: elicitation forms, URL consent, sampling panels, progress and logs.

Importing this package is cheap: ipywidgets and jsonschema load when a form is built or validated,
so terminals and headless runs (text fallback, policies) never pay for them.
"""

from __future__ import annotations

from mcpnb.forms.outcome import FormOutcome, SamplingOutcome
from mcpnb.forms.panels import SamplingPanel, SamplingView, UrlConsent, sampling_view
from mcpnb.forms.policy import Policy, apply_policy
from mcpnb.forms.progress import LogView, ProgressView, TextProgress, format_log
from mcpnb.forms.schema import MISSING, Choice, Field, defaults_of, fields_from_schema, mask, validate
from mcpnb.forms.text import ask_sampling_text, ask_text, ask_url_text
from mcpnb.forms.widgets import ElicitationForm

__all__ = [
    "MISSING",
    "Choice",
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
