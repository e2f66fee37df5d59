"""Real tools' schemas are checked, however large: the fan-out guard must refuse only what a
check cannot finish, never a schema a real server sends.

The schemas (tests/data/real_schemas/, sources in its README) are the largest found among 48
servers' 2,116 tools (Twilio's 1,409 OpenAPI-derived ones, Notion's, GitHub's and Kubernetes'
servers, Playwright, probe-kit...), and among schemas written as an OpenAPI-to-MCP converter that
keeps references writes them: Kubernetes' Deployment and CronJobList (23,879 and 36,161 nodes once
their references are read where they stand, through ``ObjectMeta``, ``Container`` and ``PodSpec``
used again and again) and GitHub's issue timeline (16,842). jsonschema-rs compiles each in about
3 ms and checks a value in under 2 ms, yet the 10,000-node count judged those three to fan out: a
Deployment's arguments went unchecked and every timeline result said it was not checked. What makes
a check walk too many paths is branching that adds up at one part of the value (``wide``: 2**40 at
``x``), not the size of a schema a value must itself be as large as to visit: the nodes that apply
at one place are what ``fans_out`` counts (``place_size``; the timeline's 96).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mcpnb.client import schemacost, schemarefs
from mcpnb.client.arguments import check_arguments
from mcpnb.client.errors import ArgumentsError
from mcpnb.client.schemacheck import schema_problem
from mcpnb.client.toolinfo import ToolInfo

DATA = Path(__file__).resolve().parents[1] / "data" / "real_schemas"

DEPLOYMENT = {
    "manifest": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx:1.27",
                            "ports": [{"containerPort": 80}],
                            "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}},
                            "env": [{"name": "MODE", "value": "prod"}],
                        }
                    ]
                },
            },
        },
    }
}
CRONJOBS = {
    "manifest": {
        "apiVersion": "batch/v1",
        "kind": "CronJobList",
        "items": [
            {
                "apiVersion": "batch/v1",
                "kind": "CronJob",
                "metadata": {"name": "nightly"},
                "spec": {
                    "schedule": "0 3 * * *",
                    "jobTemplate": {
                        "spec": {
                            "template": {
                                "spec": {
                                    "restartPolicy": "OnFailure",
                                    "containers": [{"name": "c", "image": "busybox", "args": ["true"]}],
                                }
                            }
                        }
                    },
                },
            }
        ],
    }
}


def _changed(value: dict[str, Any], path: list[Any], new: Any) -> dict[str, Any]:
    out = copy.deepcopy(value)
    node: Any = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = new
    return out


#: file, a valid value, an invalid one, and where the check must say the invalid one fails.
CASES = [
    (
        "k8s_deployment_input.json",
        DEPLOYMENT,
        _changed(
            DEPLOYMENT,
            ["manifest", "spec", "template", "spec", "containers", 0, "ports", 0, "containerPort"],
            "80",
        ),
        "at $.manifest.spec.template.spec.containers[0].ports[0].containerPort:",
    ),
    (
        "k8s_cronjoblist_input.json",
        CRONJOBS,
        _changed(CRONJOBS, ["manifest", "items", 0, "spec", "schedule"], 5),
        "at $.manifest.items[0].spec.schedule:",
    ),
    ("github_timeline_output.json", {"result": []}, {"result": [{"event": 5, "id": "x"}]}, "at $.result[0]:"),
    (
        "twilio_create_stream_input.json",
        {
            "AccountSid": "AC" + "0" * 32,
            "CallSid": "CA" + "0" * 32,
            "Url": "wss://127.0.0.1/stream",
            "Track": "both_tracks",
        },
        {"AccountSid": "AC" + "0" * 32, "CallSid": "CA" + "0" * 32},
        "at $:",
    ),
    (
        "notion_patch_block_children_input.json",
        {"block_id": "b5f2", "children": [{"paragraph": {"rich_text": [{"text": {"content": "hi"}}]}}]},
        {"block_id": "b5f2", "children": "hi"},
        "at $.children:",
    ),
]


def _schema(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text())["schema"]


@pytest.mark.parametrize("name", [case[0] for case in CASES])
def test_a_real_schema_is_not_judged_to_fan_out(name: str) -> None:
    assert not schemacost.fans_out(_schema(name)), (name, schemacost.place_size(_schema(name)))


def test_real_schemas_are_far_from_the_limit_place_by_place() -> None:
    """The headroom the fan-out limit leaves legitimate schemas. Counted over the whole schema
    (``expanded_size``) GitHub's timeline is 4,823 nodes of the 10,000: a real schema twice as big
    would have lost its check for nothing. Counted at one place of the value (``place_size``),
    the survey's largest (the same timeline, of 3,958 schemas from 48 servers, GitHub's OpenAPI
    and Kubernetes) is 96, 104x under the limit; the stored ones keep 50x at least."""
    sizes = {
        name: schemacost.place_size(_schema(name)) for name in sorted(p.name for p in DATA.glob("*.json"))
    }
    assert max(sizes.values()) < schemarefs.EXPANDED_LIMIT / 50, sizes
    assert sizes["github_timeline_output.json"] == 96
    assert schemarefs.expanded_size(_schema("github_timeline_output.json")) == 4823  # the old count's


def test_a_real_schema_several_times_over_is_still_checked() -> None:
    """Three timelines in one result (a converter's batch operation, say): 14,469 nodes over the
    whole schema, judged to fan out and left unchecked by the old count; at one place still 96."""
    timeline = _schema("github_timeline_output.json")
    schema = {
        "type": "object",
        "properties": {f"page{i}": timeline["properties"]["result"] for i in range(3)},
        "$defs": timeline["$defs"],
    }
    assert schemarefs.expanded_size(schema) > schemarefs.EXPANDED_LIMIT
    assert not schemacost.fans_out(schema)
    said = schema_problem({"page0": [], "page1": [], "page2": [{"event": 5, "id": "x"}]}, schema)
    assert said is not None and said.startswith("at $.page2[0]:"), said


@pytest.mark.parametrize(("name", "valid", "invalid", "where"), CASES)
def test_a_real_schema_checks_a_value(name: str, valid: Any, invalid: Any, where: str) -> None:
    """As a result's outputSchema is checked: a valid value passes, an invalid one is placed."""
    schema = _schema(name)
    assert schema_problem(valid, schema) is None
    said = schema_problem(invalid, schema)
    assert said is not None and said.startswith(where), said


@pytest.mark.parametrize(("name", "valid", "invalid", "where"), [c for c in CASES if "_input" in c[0]])
def test_a_real_input_schema_checks_a_call(name: str, valid: Any, invalid: Any, where: str) -> None:
    """A call is checked before it goes: valid arguments go as given, invalid ones are refused here."""
    tool = ToolInfo(server="s", name=name.removesuffix("_input.json"), input_schema=_schema(name))
    assert check_arguments(tool, valid) == valid
    with pytest.raises(ArgumentsError):
        check_arguments(tool, invalid)
