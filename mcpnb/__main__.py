"""``python -m mcpnb``: a two-minute tour with zero setup, on the built-in probe-kit server.

It does what a notebook would: connect a server, look at its tools, call one, turn the structured
result into a table, and show the status of the pool. Everything runs in this process. Tools are
named as the magics name them (``probe.code_review``), so the tour carries over to a notebook.
"""

from __future__ import annotations

import textwrap

SAMPLE = textwrap.dedent(
    """\
    import subprocess

    def run(cmd, seen=[]):
        seen.append(cmd)
        return subprocess.run(cmd, shell=True)

    def load(path):
        try:
            return eval(open(path).read())
        except:
            return None
    """
)


def main(argv: list[str] | None = None) -> None:
    import argparse

    import mcpnb

    parser = argparse.ArgumentParser(
        prog="python -m mcpnb",
        description="A two-minute tour of mcpnb in this terminal, on probe-kit (the teaching MCP "
        "server inside the package): connect, list tools, call one, a table, the status.",
        epilog="next: jupyter lab notebooks/01-quickstart.ipynb (the course) · "
        "python -m mcpnb.probekit --help (the server on its own) · in IPython: %load_ext mcpnb, then %mcp?",
    )
    parser.add_argument("--version", action="version", version=f"mcpnb {mcpnb.__version__}")
    parser.parse_args(argv)

    pool = mcpnb.default_pool()
    print("1. Connect probe-kit, the teaching server that ships with mcpnb (in-process):")
    mcpnb.serve_probekit("probe", pool=pool)
    print(pool.status(), end="\n\n")

    from mcpnb.notebook.render.tool_list import short

    tools = pool.tools("probe")
    print(f"2. It offers {len(tools)} tools, for example:")
    for tool in tools[:5]:
        print(f"   {tool.server}.{tool.name:<24} {short(tool.description, 60)}")
    print()

    print("3. Call probe.code_review on a small snippet (in a notebook: %mcp call probe.code_review")
    print("   source=...); the result is data, not just text:")
    result = pool.call("probe", "code_review", {"source": SAMPLE})
    print(f"   {result!r}".splitlines()[0], end="\n\n")
    import pandas as pd

    from mcpnb.notebook.render.structured import frame_table

    findings = pd.DataFrame(result.data["findings"])
    print(frame_table(findings[["severity", "rule", "line", "message"]])[1], end="\n\n")

    print("4. The pool keeps the connection between calls; its status:")
    print(pool.status())
    pool.close()


if __name__ == "__main__":
    main()
