"""One large structured result, measured in a process of its own (so peak memory is this size's).

    python bench/suite/large_child.py '{"n": 100000, "transport": "http-modern", "url": "...",
        "steps": ["call", "df", "render", "wire", "raw"], "also": ["stdio"], "timeout": 300}'

Prints one JSON line: seconds for each step (``call``: ``pool.call`` of the demo server's ``rows``
tool; ``df``: ``result.df``; ``render``: ``mcpnb.notebook.render.result_bundle(result)``, which
includes the lenient outputSchema check; ``wire``: the same request POSTed with a bare HTTP client,
the answer's bytes read and not parsed, i.e. the server's own time plus the wire, which any client
pays; ``raw``: the same call through a raw ``mcp.Client``, which validates strictly), the peak
resident memory (ru_maxrss) before the call and after rendering, the result's size as compact JSON
(``payload_mb``), and what came back. A step that fails gives ``{"<step>_error": "..."}`` and the
steps after it are skipped. Then, for each transport in ``also`` (after the peak was taken), the
call alone over it: ``{"call/<transport>": seconds}`` or ``{"call/<transport>_error": "..."}``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import resource
import sys
import time
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "tests" / "servers" / "demo_server.py"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def payload_mb(result: object) -> float:
    """The result's size as compact JSON (what the peak is compared with)."""
    from pydantic_core import to_json

    return len(to_json(result.raw)) / 1e6  # type: ignore[attr-defined]


def pool_options(kind: str, url: str | None) -> dict:
    if kind == "inprocess":
        sys.path.insert(0, str(DEMO.parent))
        from demo_server import create_server

        return {"server": create_server()}
    if kind == "stdio":
        return {"command": sys.executable, "args": [str(DEMO), "stdio"]}
    return {"url": url, "era": "legacy" if kind == "http-legacy" else "modern"}


async def raw_call(spec: dict) -> float:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    kind = spec["transport"]
    if kind == "inprocess":
        from demo_server import create_server

        target = create_server()
    elif kind == "stdio":
        params = StdioServerParameters(command=sys.executable, args=[str(DEMO), "stdio"])
        target = stdio_client(params, errlog=open(os.devnull, "w"))  # noqa: SIM115
    else:
        target = spec["url"]
    mode = "legacy" if kind == "http-legacy" else "auto"
    async with Client(target, mode=mode, read_timeout_seconds=spec["timeout"]) as client:
        await client.call_tool("rows", {"n": 10})  # the SDK lists the tools first, for their outputSchema
        t = time.perf_counter()
        result = await asyncio.wait_for(client.call_tool("rows", {"n": spec["n"]}), spec["timeout"])
        elapsed = time.perf_counter() - t
        assert not result.is_error, result
        return elapsed


def wire_call(spec: dict) -> float:
    """POST ``rows`` as the modern era frames it, and read the answer without parsing it."""
    import httpx2

    version = "2026-07-28"
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": version,
        "mcp-method": "tools/call",
        "mcp-name": "rows",
    }
    envelope = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }

    def post(client: httpx2.Client, n: int) -> bytes:
        params = {"name": "rows", "arguments": {"n": n}, "_meta": envelope}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        response = client.post(spec["url"], headers=headers, content=body, timeout=spec["timeout"])
        response.raise_for_status()
        return response.content

    with httpx2.Client() as client:
        post(client, 10)  # a kept-alive connection, as the pool's
        t = time.perf_counter()
        size = len(post(client, spec["n"]))
        elapsed = time.perf_counter() - t
    if size < spec["n"] * 20:
        raise RuntimeError(f"the answer has {size} bytes: not {spec['n']} rows")
    return elapsed


def main() -> None:
    spec = json.loads(sys.argv[1])
    n, steps, out = spec["n"], spec["steps"], {}
    import mcpnb
    from mcpnb.notebook.render import result_bundle

    pool = mcpnb.Pool()
    try:
        pool.connect("big", **pool_options(spec["transport"], spec["url"]))
        warm = pool.call("big", "rows", {"n": 10})  # imports pandas, the renderer, the schema check
        warm.df, result_bundle(warm)
        out["base_mb"] = peak_mb()
        result = df = bundle = None
        for step in steps:
            t = time.perf_counter()
            try:
                if step == "call":
                    result = pool.call("big", "rows", {"n": n}, timeout=spec["timeout"])
                    if result.is_error:
                        raise RuntimeError(result.text[:200])
                    out["rows"] = len(result.data["rows"])
                elif step == "df":
                    df = result.df
                    out["shape"] = list(df.shape)
                elif step == "render":
                    bundle = result_bundle(result)
                    out["html_chars"] = len(bundle["text/html"])
                    out["schema_valid"] = result.schema_valid
                    out["peak_mb"] = peak_mb()
                elif step == "wire":  # after the peak was taken: it holds the answer's bytes
                    out["wire"] = wire_call(spec)
                    continue
                elif step == "raw":
                    if result is not None:  # after the peak was taken: it copies
                        out["payload_mb"] = payload_mb(result)
                    result = df = bundle = None
                    gc.collect()
                    out["raw"] = asyncio.run(raw_call(spec))
                    continue
            except Exception as exc:
                out[f"{step}_error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
                break
            out[step] = time.perf_counter() - t
        out.setdefault("peak_mb", peak_mb())
        if result is not None and "payload_mb" not in out:
            out["payload_mb"] = payload_mb(result)
        result = df = bundle = None
        for kind in spec.get("also", []):
            gc.collect()
            try:
                pool.connect(kind, **pool_options(kind, spec["url"]))
                t = time.perf_counter()
                result = pool.call(kind, "rows", {"n": n}, timeout=spec["timeout"])
                out[f"call/{kind}"] = time.perf_counter() - t
                if result.is_error:
                    raise RuntimeError(result.text[:200])
            except Exception as exc:
                out.pop(f"call/{kind}", None)
                out[f"call/{kind}_error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
            finally:
                result = None
                if kind in pool:
                    pool.disconnect(kind)
    finally:
        pool.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
