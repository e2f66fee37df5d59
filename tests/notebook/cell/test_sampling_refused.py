"""A sampling request refused in a notebook where a person sits (their own
``Mcp.elicitation = 'decline'``, a ``%%capture`` cell): the person reads why nobody was asked,
through server-everything's echo of the refusal, not "no person is there to answer"."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import EVERYTHING

from tests.frontend import Frontend

pytestmark = pytest.mark.timeout(120)


def _ran(kernel: Any, code: str) -> str:
    """Run ``code`` in the kernel (a frontend that allows stdin: a person is there); its stdout."""
    fe = Frontend(kernel)
    return fe.stdout.get(fe.run_ok(code), "")


@pytest.mark.parametrize(
    ("setup", "prefix", "why"),
    [
        ("%config Mcp.elicitation = 'decline'", "", "Mcp.elicitation is 'decline'"),
        (
            "",
            "%%capture captured\n",
            "the cell's output is captured (%%capture), where a form would wait unseen",
        ),
    ],
)
def test_a_refused_completion_says_why_to_the_person_at_the_notebook(kernel, setup, prefix, why):
    """A person sat at the notebook and was never asked: the cell (through the server's echo) said
    "no person is there to answer", and the reason (their own setting, a %%capture) was nowhere."""
    _ran(kernel, f"%load_ext mcpnb\n%mcp connect ev -- node {EVERYTHING} stdio\n{setup}")
    _ran(kernel, f"{prefix}r = %mcp call ev.trigger-sampling-request prompt='Say hi'")
    said = _ran(kernel, "print('TEXT', r.text)\nprint('NOTES', r.answered_without_asking)")
    assert f"sampling was rejected without asking the person: {why}" in said, said
    assert "no person is there" not in said, said
    assert f"answered without asking anyone: rejected ({why})" in said, said
