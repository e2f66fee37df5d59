"""Lenient JSON Schema checks. ``jsonschema`` is imported on first use: it can cost seconds to import."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    import jsonschema

    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def schema_problem(instance: Any, schema: dict[str, Any]) -> str | None:
    """The most relevant validation error as one line ("at $.rows[2].age: 'x' is not of type ...")."""
    import jsonschema

    try:
        validator = _validator(json.dumps(schema, sort_keys=True))
        error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    except Exception as exc:  # an invalid or unresolvable schema is itself worth reporting
        return f"cannot check against the schema: {exc}"
    if error is None:
        return None
    where = error.json_path if error.absolute_path else "$"
    return f"at {where}: {error.message}"
