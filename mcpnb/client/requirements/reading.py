"""JSON or YAML text to data, with errors that name the file, the line and the column.

YAML (``pyyaml``, imported on first use) reads JSON too, but JSON's own messages are clearer, so
text that opens with ``{`` is read as JSON. A key given twice in one mapping is an error in both:
the last one silently winning would hide a server.
"""

from __future__ import annotations

import json
from typing import Any

from mcpnb.client.errors import ConfigError, json_problem


class _Twice(ValueError):
    def __init__(self, key: str, line: int | None = None) -> None:
        super().__init__(key)
        self.key, self.line = key, line


def read_text(text: str, file: str, *, first_line: int = 1) -> Any:
    """Parse ``text``; ``first_line`` is where it starts in ``file`` (front matter starts at line 2)."""
    if text.lstrip().startswith("{"):
        return _json(text, file, first_line)
    return _yaml(text, file, first_line)


def _json(text: str, file: str, first_line: int) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise _Twice(key)
            out[key] = value
        return out

    try:
        return json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        raise ConfigError(json_problem(text, exc, first_line), file=file) from None
    except _Twice as exc:
        raise ConfigError("key appears twice in the same object", file=file, key=exc.key) from None


class _Int(int):
    """A YAML number that remembers how it was written: ``PORT: 0755`` in ``env`` means the text
    "0755", which YAML 1.1 reads as the octal 493 (see config.validate)."""

    def __new__(cls, value: int, written: str) -> _Int:
        number = super().__new__(cls, value)
        number.written = written
        return number


class _Float(float):
    """As :class:`_Int`: ``1.10`` keeps its zero."""

    def __new__(cls, value: float, written: str) -> _Float:
        number = super().__new__(cls, value)
        number.written = written
        return number


def _yaml(text: str, file: str, first_line: int) -> Any:
    import yaml

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise _Twice(str(key), key_node.start_mark.line + first_line)
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

        def construct_yaml_int(self, node: Any) -> Any:
            return _Int(super().construct_yaml_int(node), node.value)

        def construct_yaml_float(self, node: Any) -> Any:
            return _Float(super().construct_yaml_float(node), node.value)

    Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_yaml_int)
    Loader.add_constructor("tag:yaml.org,2002:float", Loader.construct_yaml_float)

    try:
        return yaml.load(text, Loader=Loader)
    except _Twice as exc:
        raise ConfigError(
            f"key appears twice in the same mapping (line {exc.line})", file=file, key=exc.key
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + first_line}, column {mark.column + 1}" if mark else ""
        problem = exc.problem or exc.context or "cannot parse"
        hint = ""
        if mark is not None and text.splitlines()[mark.line : mark.line + 1]:
            line = text.splitlines()[mark.line]
            if ": >" in line or ": <" in line or ": =" in line or ": !" in line or ": ~" in line:
                hint = ' (quote version specifiers: version: ">=2.0")'
        raise ConfigError(f"invalid YAML{where}: {problem}{hint}", file=file) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid YAML: {exc}", file=file) from None
