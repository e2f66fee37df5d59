"""The lenient ``outputSchema`` check: does a result's structured content match what the tool declared?

It runs on every structured result a person looks at, and results can be large (100,000 rows), so it
uses ``jsonschema-rs``, a compiled validator: about 10 ms for 100k rows where ``jsonschema`` takes
seconds (``python bench/run.py`` measures both). Validators are compiled once per schema and cached;
the result object caches its verdict. Remote ``$ref``s are never fetched: a server's schema must not
make the client call the network. Imported on first use.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from typing import Any

#: Format checkers that replace the validator's own, as hashable ``(name, check)`` pairs.
Checkers = tuple[tuple[str, Callable[[Any], bool]], ...]


def _refuse(uri: str) -> Any:
    raise ValueError(f"remote schema {uri} is not fetched")


@lru_cache(maxsize=512)
def compiled(schema_json: str, *, formats: bool = True, checkers: Checkers = ()) -> Any:
    """A compiled validator for a schema given as canonical JSON text (cached: tools repeat)."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(
        json.loads(schema_json), validate_formats=formats, formats=dict(checkers) or None, retriever=_refuse
    )


def schema_key(schema: Any) -> str:
    """The cache key of a schema: its canonical JSON."""
    return json.dumps(schema, sort_keys=True, default=str)


def json_path(path: Any) -> str:
    """``$.rows[2].age`` for the instance path ``["rows", 2, "age"]``."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def schema_problem(instance: Any, schema: dict[str, Any]) -> str | None:
    """The first validation error as one line (``at $.rows[2].age: "x" is not of type "integer"``)."""
    try:
        validator = compiled(schema_key(schema))
        if validator.is_valid(instance):
            return None
        error = next(iter(validator.iter_errors(instance)), None)
    except Exception as exc:  # an invalid or unresolvable schema is itself worth reporting
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"cannot check against the schema: {first}"
    if error is None:
        return None
    return f"at {json_path(error.instance_path)}: {error.message}"
