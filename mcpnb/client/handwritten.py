"""A value written by hand: JSON, or YAML's flow style with JSON's scalars only.

People type ``{bold: true, tags: [new, sale]}`` without quoting every key, in a ``%mcp`` line as in
a form's JSON editor; both read it the same way here. YAML is read with JSON's words only: YAML 1.1
would read ``no`` as false, ``12:30`` as 750 and ``2024-01-01`` as a date, which JSON cannot send.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

__all__ = ["json_or_flow", "yaml_lines", "yaml_value"]


def yaml_value(text: str) -> tuple[Any, bool]:
    """``(value, True)`` when ``text`` is YAML, read with JSON's scalars only; else ``(None, False)``."""
    import textwrap

    import yaml

    try:
        return yaml.load(textwrap.dedent(text), Loader=_json_scalar_loader()), True
    except (yaml.YAMLError, TypeError, RecursionError):  # TypeError: an unhashable key ({[a]: 1})
        return None, False


def yaml_lines(text: str) -> dict[tuple[Any, ...], int]:
    """Where each key and list item of the YAML ``text`` starts: its path (``("address", "zip")``,
    ``("items", 0)``) to a line of ``text``, counted from 0; empty when ``text`` is no YAML. So a
    schema's complaint about ``address.zip`` points at the line ``zip`` is on, not ``address``."""
    import textwrap

    import yaml

    try:
        root = yaml.compose(textwrap.dedent(text), Loader=_json_scalar_loader())
    except (yaml.YAMLError, RecursionError):
        return {}
    lines: dict[tuple[Any, ...], int] = {}
    todo: list[tuple[tuple[Any, ...], Any]] = [((), root)]
    while todo:
        path, node = todo.pop()
        if isinstance(node, yaml.MappingNode):
            children = [((*path, key.value), key, value) for key, value in node.value]
        elif isinstance(node, yaml.SequenceNode):
            children = [((*path, n), item, item) for n, item in enumerate(node.value)]
        else:
            continue
        for where, mark, child in children:
            lines.setdefault(where, mark.start_mark.line)
            todo.append((where, child))
    return lines


def json_or_flow(text: str) -> Any:
    """``text`` as JSON, else, when it opens a list or an object, in YAML's flow style; the JSON
    error (a ``ValueError``) when it is neither. Plain words stay an error, not a string: a form's
    JSON editor that took ``hello`` for ``"hello"`` would hide a missing bracket."""
    try:
        return json.loads(text)
    except ValueError:
        if text.lstrip()[:1] in ("[", "{"):
            value, ok = yaml_value(text)
            if ok:
                return value
        raise


@functools.cache
def _json_scalar_loader() -> Any:
    """YAML's safe loader, recognising only JSON's scalars (``true``, ``false``, ``null``, numbers)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {}
    number = r"-?(?:0|[1-9][0-9]*)"
    for tag, pattern, first in (
        ("bool", r"^(?:true|false)$", "tf"),
        ("null", r"^(?:null|~|)$", ["n", "~", ""]),
        ("int", rf"^{number}$", "-0123456789"),
        ("float", rf"^{number}(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$", "-0123456789"),
    ):
        Loader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", re.compile(pattern), list(first))
    return Loader
