"""The benchmark suite behind ``python bench/run.py``: one module per section, plus shared parts.

Sections (each returns :class:`~suite.common.Row` s): ``sequential`` (per-call latency of every
client on every transport), ``concurrency`` (many slow calls on one connection), ``kernel``
(``%mcp call`` over ``pool.call`` in a real kernel), ``startup`` (``%load_ext mcpnb`` and the first
connect in a fresh interpreter), ``large`` (100k/1M-row structured results) and ``probekit``
(probe-kit's HTTP listener against ``MCPServer.run()``'s). Numbers are printed and written to
docs/performance.md; tests only check that every row is there (tests/test_bench.py).
"""
