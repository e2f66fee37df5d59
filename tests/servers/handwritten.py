"""What the hand-written stdio servers share: newline-delimited JSON-RPC on stdin and stdout.

No SDK server sends what they send (garbage, one request at a time), so they are written by hand.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def requests() -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(method, id, params) of each request read from stdin, in turn; lines that are no JSON,
    notifications and answers to the server are passed over."""
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        if request_id is None or method is None:
            continue
        yield method, request_id, message.get("params") or {}
