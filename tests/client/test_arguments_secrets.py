"""An argument error never quotes a secret argument's value.

``%mcp call sec.login password={{pw}}`` with ``pw`` a dict said ``argument 'password':
{"v":"hunter2…"} is not of type "string"``: the value, in the cell's output (and, for a model's call,
in its context). A secret parameter (``format: password``, ``writeOnly``, a secret-looking name, or
a secret-looking key inside an object) is written ``••••••``; other arguments' values as before.
"""

from __future__ import annotations

import pytest

from mcpnb.client.arguments import check_arguments
from mcpnb.client.errors import ArgumentsError
from mcpnb.client.toolinfo import ToolInfo
from mcpnb.notebook.magics.parser import parse_pairs

SECRET = "ValErrPw_Aa11Bb22Cc33"
TOOL = ToolInfo(
    server="sec",
    name="login",
    input_schema={
        "type": "object",
        "properties": {
            "username": {"type": "string"},
            "password": {"type": "string"},
            "phrase": {"type": "string", "format": "password", "minLength": 30},
            "blob": {"type": "string", "writeOnly": True, "pattern": "^x"},
            "pin": {"type": "integer", "minimum": 10},
            "db": {"type": "object", "properties": {"password": {"type": "string"}}},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["username"],
    },
)


@pytest.mark.parametrize(
    "arguments",
    [
        {"password": {"v": SECRET}},
        {"password": [SECRET]},
        {"password": 9988776655443322},
        {"phrase": SECRET},
        {"blob": SECRET},
        {"db": {"password": {"v": SECRET}}},
        {"db": {"password": 9988776655443322}},
    ],
    ids=["object", "list", "number", "format-password", "writeOnly", "nested", "nested-number"],
)
def test_a_secret_arguments_value_is_not_quoted(arguments):
    with pytest.raises(ArgumentsError) as caught:
        check_arguments(TOOL, {"username": "ann", **arguments})
    said = str(caught.value)
    assert SECRET not in said and "9988776655443322" not in said
    assert "••••••" in said and "(nothing was sent)" in said


def test_the_error_still_says_what_is_wrong():
    with pytest.raises(ArgumentsError, match=r"argument 'password': •••••• \(an object\) is not of type"):
        check_arguments(TOOL, {"username": "ann", "password": {"v": SECRET}})
    with pytest.raises(ArgumentsError, match=r"argument 'pin': .*minimum of 10"):
        check_arguments(TOOL, {"username": "ann", "pin": 3})


def test_a_typed_secret_is_not_quoted_in_how_to_write_it():
    tool = ToolInfo(
        server="s",
        name="t",
        input_schema={
            "type": "object",
            "properties": {"api_key": {"type": "array", "items": {"type": "string"}}},
        },
    )
    with pytest.raises(ArgumentsError) as caught:
        check_arguments(tool, parse_pairs([f"api_key={SECRET}"], []))
    assert SECRET not in str(caught.value) and "api_key=[••••••]" in str(caught.value)


def test_other_arguments_are_quoted_as_before():
    with pytest.raises(ArgumentsError, match=r'\{"v":"plain"\} is not of type "string"'):
        check_arguments(TOOL, {"username": {"v": "plain"}})


def test_a_secret_inside_an_object_quoted_whole_is_masked():
    """A validator quotes the whole object that failed (``maxProperties``, ``anyOf``), a password
    inside it too."""
    tool = ToolInfo(
        server="db",
        name="connect",
        input_schema={
            "type": "object",
            "properties": {
                "db": {"type": "object", "maxProperties": 2},
                # two branches take an object, neither this one: the anyOf's error quotes it whole
                "dsn": {"anyOf": [{"type": "object", "required": ["host"]}, {"maxProperties": 0}]},
            },
        },
    )
    for arguments in ({"db": {"host": "a", "password": SECRET, "port": 5}}, {"dsn": {"password": SECRET}}):
        with pytest.raises(ArgumentsError) as error:
            check_arguments(tool, arguments)
        assert SECRET not in str(error.value) and "••••••" in str(error.value)


def test_a_short_secret_is_hidden_where_it_stands_alone_not_inside_the_bound():
    """A PIN ``1234`` under a minimum of ``12345``: the bound was shown as ``••••••5``."""
    tool = ToolInfo(
        server="sec",
        name="unlock",
        input_schema={"type": "object", "properties": {"pin": {"type": "integer", "minimum": 12345}}},
    )
    with pytest.raises(ArgumentsError) as info:
        check_arguments(tool, {"pin": 1234})
    said = str(info.value)
    assert "minimum of 12345" in said and "••••••5" not in said, said
    assert "1234 " not in said and "(1234" not in said, said
