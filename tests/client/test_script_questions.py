"""A server's questions in plain Python, where no notebook cell can ask anyone.

The policy answers (decline, unless ``$MCPNB_ELICITATION`` or the code says otherwise), and a
question nobody could be asked is said once per server and tool as a WARNING on the ``mcpnb``
logger, with the ways to answer it: a script's form was declined with no word anywhere but the
result, and ``MCPNB_ELICITATION=defaults`` did nothing outside a notebook. Against
server-everything's form (a 2025-11-25 push request), the SDK's ``MCPServer`` with ``ctx.elicit``
and probe-kit in-process.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT

from mcpnb import Interaction
from mcpnb.probekit import create_server

FORM = "trigger-elicitation-request"  # server-everything's form: a required field with no default
DEFAULTS = "test_elicitation_sep1034_defaults"  # probe-kit's form whose every field has a default


@pytest.fixture(autouse=True)
def _no_policy_in_the_environment(monkeypatch):
    monkeypatch.delenv("MCPNB_ELICITATION", raising=False)


def _nobody(caplog) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "mcpnb"
        and r.levelno == logging.WARNING
        and "nobody was there to answer" in r.getMessage()
    ]


def test_a_question_nobody_can_answer_is_a_warning_once_per_tool(pool, everything, caplog):
    pool.connect("ev-once", command="node", args=[everything, "stdio"])
    for _ in range(2):
        result = pool.call("ev-once", FORM)
        assert any("declined by the 'decline' policy" in n for n in result.answered_without_asking)
    said = _nobody(caplog)
    assert len(said) == 1, said
    assert said[0].startswith(
        f"ev-once.{FORM} asked a question (a form) and nobody was there to answer: declined by the "
        "'decline' policy. To answer: pass answers={...} with the call"
    )
    assert "an Interaction subclass whose elicit() asks someone" in said[0]
    assert "MCPNB_ELICITATION=defaults" in said[0]


def test_each_tool_is_told_once_and_answers_given_are_no_question_unanswered(pool, caplog):
    pool.connect("probe-once", server=create_server())
    pool.call("probe-once", "ask_user", {"question": "Name?"})
    pool.call("probe-once", "ask_user", {"question": "Age?"})
    pool.call("probe-once", "interview", {})
    answered = pool.call("probe-once", "ask_user", {"question": "Name?"}, answers={"answer": "Ada"})
    assert answered.text == "Name? Ada"
    said = _nobody(caplog)
    assert [s.split(" asked ")[0] for s in said] == ["probe-once.ask_user", "probe-once.interview"]


def test_sampling_nobody_can_answer_says_how_to_answer_it(pool, caplog):
    pool.connect("probe-llm", server=create_server())
    with pytest.raises(Exception, match="sampling was rejected"):
        pool.call("probe-llm", "test_sampling", {"prompt": "hi"})
    said = _nobody(caplog)
    assert said and "an Interaction subclass whose sample() answers" in said[0]


def test_an_interaction_given_a_policy_keeps_it_whatever_the_environment(pool, monkeypatch, caplog):
    """``$MCPNB_ELICITATION`` is read at each question (a script may set it after importing
    mcpnb); an ``Interaction(policy=...)`` the code gives wins over it."""
    pool.connect("probe-env", server=create_server())
    monkeypatch.setenv("MCPNB_ELICITATION", "defaults")
    accepted = pool.call("probe-env", DEFAULTS)
    assert "action=accept" in accepted.text
    assert "accepted by the 'defaults' policy" in accepted.answered_without_asking[0]
    assert "$MCPNB_ELICITATION is 'defaults'" in accepted.answered_without_asking[0]
    pool.interaction = Interaction(policy="decline")
    assert "action=decline" in pool.call("probe-env", DEFAULTS).text


SCRIPT = textwrap.dedent(
    """
    import json, logging
    from pydantic import BaseModel
    from mcp.server.mcpserver import Context, MCPServer
    import mcpnb
    from mcpnb.probekit import create_server

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s %(message)s")

    class Plan(BaseModel):
        name: str = "Ada"
        seats: int = 3

    server = MCPServer("forms")

    @server.tool()
    async def plan(ctx: Context) -> str:
        answer = await ctx.elicit("Which plan?", Plan)
        if answer.action != "accept":
            return answer.action
        return f"accept {answer.data.name} {answer.data.seats}"

    pool = mcpnb.Pool()
    pool.connect("sdk", server=server, era="legacy")  # ctx.elicit: a request of the server's own
    pool.connect("probe", server=create_server())
    print(json.dumps({
        "sdk": pool.call("sdk", "plan").text,
        "probe": pool.call("probe", "test_elicitation_sep1034_defaults").text,
    }))
    pool.close()
    """
)


def _run(elicitation: str, script: str = SCRIPT) -> tuple[dict[str, str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MCPNB_ELICITATION": elicitation}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_mcpnb_elicitation_defaults_answers_a_plain_scripts_questions():
    """The notebook's variable, read the same way (any case): a form whose fields all have defaults
    is accepted with them, by the SDK's own server and by probe-kit."""
    said, stderr = _run(" Defaults ")
    assert said["sdk"] == "accept Ada 3"
    assert "action=accept" in said["probe"]
    assert "nobody was there to answer" not in stderr


def test_a_value_mcpnb_elicitation_does_not_take_is_said_with_the_decline():
    said, stderr = _run("defualts")
    assert said["sdk"] == "decline"
    assert "WARNING mcpnb sdk.plan asked a question (a form) and nobody was there to answer" in stderr
    assert "($MCPNB_ELICITATION='defualts' is ignored: it takes decline or defaults)" in stderr


QUIET = textwrap.dedent(
    """
    import json, sys
    import mcpnb
    pool = mcpnb.Pool()  # probe-kit in a process of its own: nothing here sets up logging
    pool.connect("probe", command=sys.executable, args=["-m", "mcpnb.probekit"], era="legacy")
    said = [pool.call("probe", "ask_user", {"question": "Name?"}).data["action"] for _ in range(2)]
    print(json.dumps({"probe": " ".join(said)}))
    pool.close()
    """
)


def test_a_script_that_sets_up_no_logging_still_hears_of_a_question_nobody_answered():
    """The ``mcpnb`` logger's NullHandler silenced the WARNING in exactly the scripts it is for:
    where no logging is set up, it is said on stderr, once per tool."""
    said, stderr = _run("", QUIET)
    assert said["probe"] == "decline decline"
    told = [line for line in stderr.splitlines() if line.startswith("mcpnb: probe.ask_user asked a question")]
    assert len(told) == 1 and "nobody was there to answer" in told[0], stderr
