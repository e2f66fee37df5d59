"""What a JSON Schema dislikes about a value, said the way a teacher would say it.

``jsonschema`` answers "'2' is not of type 'integer'"; a student learns more from "your arguments
send `limit` as a string ('2'); the schema wants an integer". The checkers of the exercises use
these sentences for tool arguments (``inputSchema``) and for results (``outputSchema``) alike.
"""

from __future__ import annotations

import contextlib
from typing import Any

#: JSON's names for Python's types, with the article a sentence needs.
_JSON_TYPES = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    (list, "an array"),
    (dict, "an object"),
    (type(None), "null"),
)
_WANTED = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "a boolean (true or false)",
    "array": "an array (a list)",
    "object": "an object (a dict)",
    "null": "null (None)",
}


def json_type(value: Any) -> str:
    """``'2'`` → "a string", ``2`` → "an integer" (bool before int: True is an int in Python)."""
    for kind, words in _JSON_TYPES:
        if isinstance(value, kind):
            return words
    return f"a value of type {type(value).__name__} (not JSON)"


def _where(path: list[Any]) -> str:
    return ".".join(str(p) for p in path) if path else "the value"


def _fix(value: Any, wanted: list[str]) -> str:
    """A concrete way out, when there is an obvious one (quotes around a number, mostly)."""
    if isinstance(value, str) and any(w in ("integer", "number") for w in wanted):
        try:
            number = int(value) if "integer" in wanted else float(value)
        except ValueError:
            return ""
        return f": drop the quotes and write {number!r}"
    if isinstance(value, bool | int | float) and "string" in wanted:
        return f": put it in quotes, {str(value)!r}"
    return ""


def _sentence(error: Any, sender: str) -> str:
    where = _where(list(error.absolute_path))
    kind = error.validator
    if kind == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        wants = " or ".join(_WANTED.get(w, w) for w in wanted)
        got = json_type(error.instance)
        fix = _fix(error.instance, wanted)
        return f"{sender} `{where}` as {got} ({error.instance!r}); the schema wants {wants}{fix}"
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        inside = f" inside `{where}`" if error.absolute_path else ""
        owner = sender.replace("send", "have")  # "your arguments have", "your result has"
        return f"`{missing}` is required by the schema and {owner} no `{missing}`{inside}"
    if kind == "additionalProperties":
        allowed = list((error.schema.get("properties") or {}).keys())
        extra = sorted(set(error.instance) - set(allowed))
        names = ", ".join(f"`{e}`" for e in extra)
        hint = _did_you_mean(extra[0], allowed) if len(extra) == 1 else ""
        return f"the schema allows no {names}{hint} (it knows {', '.join(allowed) or 'no keys'})"
    if kind == "enum":
        options = ", ".join(repr(v) for v in error.validator_value)
        return f"`{where}` is {error.instance!r}; the schema allows only {options}"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        limit = f"{kind} {error.validator_value}"
        return f"`{where}` is {error.instance!r}, outside the range the schema sets ({limit})"
    return f"at `{where}`: {error.message}"


def explain(value: Any, schema: dict[str, Any], *, sender: str = "your value has") -> list[str]:
    """One teaching sentence per problem of ``value`` against ``schema`` (empty: it matches).

    ``sender`` starts the type sentences: "your arguments send" reads well for a tool call,
    "the result has" for structured content. NumPy and pandas values are read as the JSON mcpnb
    sends for them (``np.int64(2)`` is the integer 2 on the wire), so they are judged as that.
    """
    import jsonschema

    from mcpnb.client.arguments import NotJson, native

    with contextlib.suppress(NotJson):  # something no JSON carries: judged as it is, said to be no JSON
        value = native(value)

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    errors = sorted(cls(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    return [_sentence(error, sender) for error in errors]


def _did_you_mean(word: str, choices: list[str]) -> str:
    from mcpnb.client.errors import did_you_mean

    match = did_you_mean(word, choices)
    return f" (did you mean `{match}`?)" if match else ""


def unknown_parameters(args: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """Keys the schema does not name, with a "did you mean" (schemas often allow extras silently)."""
    known = list((schema.get("properties") or {}).keys())
    return [
        f"the tool has no parameter `{key}`{_did_you_mean(key, known)}; the server would ignore it"
        for key in args
        if key not in known
    ]
