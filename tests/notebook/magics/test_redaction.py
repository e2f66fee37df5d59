"""A token must never appear in anything the magics show: outputs, displays, errors, logs, config."""

from __future__ import annotations

import json
import sys

from conftest import DEMO

TOKENS = [
    "tok-HEADER-9f8e7d6c",
    "tok-APIKEY-1a2b3c4d",
    "tok-ENV-5e6f7a8b",
    "tok-URL-0c9d8e7f",
    "tok-TYPO-11aa22bb",
]


def shown(ip, capsys, source: str) -> str:
    """Everything a person would see for one cell: printed text, errors, and every display format."""
    result = ip.run_cell(source)
    out = capsys.readouterr()
    parts = [out.out, out.err]
    if result.result is not None:
        data, _ = ip.display_formatter.format(result.result)
        parts.append(json.dumps(data, default=str))
    if result.error_in_exec is not None:
        parts.append(str(result.error_in_exec))
    return "\n".join(parts)


def test_no_token_in_any_output(ip, mcp, capsys, http_url, monkeypatch):
    monkeypatch.setenv("MCPNB_REDACT_TOKEN", TOKENS[0])
    cells = [
        f'%mcp connect web {http_url} --header "Authorization: Bearer {TOKENS[0]}" '
        f'--header "X-Api-Key: {TOKENS[1]}"',
        f"%mcp connect sub -- {sys.executable} {DEMO} stdio --api-key={TOKENS[2]}",
        f"%mcp connect envd --env API_TOKEN={TOKENS[2]} -- {sys.executable} {DEMO} stdio",
        "%mcp call envd.stderr_line text=" + TOKENS[2],
        "%mcp call envd.env name=API_TOKEN",
        f"%mcp connect refused http://127.0.0.1:9/mcp?api_key={TOKENS[3]}",
        f'%mcp connect typo {http_url} --headr "Authorization: Bearer {TOKENS[4]}"',
        f"%mcp connect typo2 {http_url} Authorization:{TOKENS[4]}",
        "%mcp status",
        "%mcp",
        "%mcp config",
        "%mcp logs web",
        "%mcp logs envd",
        "%mcp logs refused",
    ]
    seen = {source: shown(ip, capsys, source) for source in cells}
    assert "connected" in seen["%mcp status"]
    assert "Authorization" in seen["%mcp config"] and "***" in seen["%mcp config"]
    for source, text in seen.items():
        if source == "%mcp call envd.env name=API_TOKEN":
            continue  # the tool's own result: the server chose to return its environment
        for token in TOKENS:
            assert token not in text, (source, token, text)
