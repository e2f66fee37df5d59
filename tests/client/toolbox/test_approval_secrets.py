"""The approval question masks a model's secret arguments, as forms mask them.

``approve="always"``: "The model asks to run sec.login with {"username": "ann", "password": ...}"
quoted the password in the question, the panel a person reads and the record a saved notebook
keeps. A parameter the schema marks ``format: password`` or ``writeOnly``, or whose name looks
secret (``password``, ``api_key``), shows as ``••••••``; the other arguments as they were.
"""

from __future__ import annotations

from mcpnb.client.toolinfo import ToolInfo
from tests.client.toolbox.test_approval import Person, call
from tests.servers.secrets_server import create_server

PASSWORD = "LlmApprPw_Tt11Uu22Vv33"
KEY = "LlmApprKey_Aa11Bb22"


def test_the_question_masks_secret_arguments_and_the_call_still_gets_them(pool):
    person = pool.interaction = Person("yes")
    pool.connect("sec", server=create_server())
    tools = pool.functions("sec", approve="always")
    reply = tools.run(call("mcp__sec__login", {"username": "ann", "password": PASSWORD, "api_key": KEY}))
    assert f"password {len(PASSWORD)}, key {len(KEY)}" in reply["content"]  # run with the real ones
    (asked,) = person.asked
    assert PASSWORD not in asked and KEY not in asked
    assert '"username": "ann", "password": "••••••", "api_key": "••••••"' in asked


def test_secret_by_schema_by_name_and_inside_objects():
    from mcpnb.client.toolbox.approval import shown_arguments

    tool = ToolInfo(
        server="s",
        name="t",
        input_schema={
            "type": "object",
            "properties": {
                "phrase": {"type": "string", "format": "password"},
                "blob": {"type": "string", "writeOnly": True},
                "db": {"type": "object"},
                "note": {"type": "string"},
            },
        },
    )
    shown = shown_arguments(
        tool,
        {"phrase": "p1", "blob": "b1", "db": {"host": "h", "password": "p2"}, "note": "n", "token": "t1"},
    )
    assert shown == {
        "phrase": "••••••",
        "blob": "••••••",
        "db": {"host": "h", "password": "••••••"},
        "note": "n",
        "token": "••••••",  # not in the schema (a model's slip): its name says enough
    }


def test_what_a_call_deletes_is_shown_not_hidden_as_a_secret():
    """``key``, ``session``, ``page_token``: what the person judges a destructive call by. Only a
    credential beyond doubt is hidden from the approval question."""
    from mcpnb.client.toolbox.approval import shown_arguments
    from mcpnb.client.toolinfo import ToolInfo

    schema = {
        "type": "object",
        "properties": {
            "key": {"type": "string"},
            "session": {"type": "string"},
            "page_token": {"type": "string"},
            "password": {"type": "string"},
            "opts": {"type": "object"},
        },
    }
    tool = ToolInfo(server="redis", name="delete", description=None, input_schema=schema)
    shown = shown_arguments(
        tool,
        {
            "key": "prod:users:*",
            "session": "prod-db",
            "page_token": "p2",
            "password": "hunter2",
            "opts": {"access_token": "abc123", "sort_key": "name"},
            "token": "t0k3n",
            "github_token": "ghp_SECRET",
            "encryption_key": "k3y",
            "session_cookie": "c00kie",
        },
    )
    assert {shown[k] for k in ("github_token", "encryption_key", "session_cookie")} == {"••••••"}
    assert shown["key"] == "prod:users:*" and shown["session"] == "prod-db" and shown["page_token"] == "p2"
    assert shown["password"] == "••••••" and shown["token"] == "••••••"
    assert shown["opts"] == {"access_token": "••••••", "sort_key": "name"}
