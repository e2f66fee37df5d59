"""The MCP Apps project's own JSON Schema of the host ⇄ page messages (``schema.json`` of
``@modelcontextprotocol/ext-apps``, installed in ``tests/peers``): the oracle for what mcpnb's host
sends a page and what probe-kit's hand-written page sends its host.

Each definition is its own document (its ``$ref``s point into its own ``$defs``). Two readings are
replaced by the extension's text, where the generated schema says what the text does not:
- the style variables' record requires every one of the seventy keys, where the specification says
  "Hosts can provide any subset of standardized variables" (the names themselves are still checked);
- ``containerDimensions`` is an ``allOf`` of two objects that each allow no key of the other, which
  no value but ``{}`` meets; the text's rule is checked instead: ``height`` or ``maxHeight``,
  ``width`` or ``maxWidth``, each optional ("Unbounded: field omitted"), numbers.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from conftest import EVERYTHING

SCHEMA = EVERYTHING.parents[2] / "ext-apps" / "dist" / "src" / "generated" / "schema.json"


@functools.cache
def _definitions() -> dict[str, Any]:
    assert SCHEMA.exists(), (
        "run `npm ci --prefix tests/peers` (the MCP Apps schema comes with its example server)"
    )
    return json.loads(SCHEMA.read_text(encoding="utf-8"))["$defs"]


def problems(definition: str, message: dict[str, Any]) -> list[str]:
    """Where ``message`` breaks the official ``definition`` (a JSON-RPC message is checked without
    its ``jsonrpc`` and ``id``, which the definitions leave to JSON-RPC); [] when it keeps to it."""
    import jsonschema

    body = {k: v for k, v in message.items() if k not in ("jsonrpc", "id")}
    validator = jsonschema.Draft202012Validator(_definitions()[definition])
    found = []
    for error in validator.iter_errors(body):
        where = list(error.absolute_path)
        if where[-2:] == ["styles", "variables"] and error.validator == "required":
            continue  # any subset, as the specification's text says (see the module's doc)
        if where[-1:] == ["containerDimensions"]:
            found += _dimensions(error.instance)  # the text's rule (see the module's doc)
            continue
        found.append(f"{'/'.join(map(str, where)) or '(top)'}: {error.message[:200]}")
    return found


def _dimensions(value: Any) -> list[str]:
    keys = set(value) if isinstance(value, dict) else {"(not an object)"}
    wrong = [k for k in keys if k not in ("height", "maxHeight", "width", "maxWidth")]
    wrong += [k for k in keys - set(wrong) if not isinstance(value[k], int | float)]
    both = [pair for pair in (("height", "maxHeight"), ("width", "maxWidth")) if set(pair) <= keys]
    return [f"containerDimensions: {k} is not a dimension in pixels" for k in wrong] + [
        f"containerDimensions: {a} and {b} both given" for a, b in both
    ]
