"""A result's display and ``.df`` in a real kernel: what ipykernel sends must be UTF-8, and an
editor's completion reads the types mcpnb declares.

The server is written by hand (tests/servers/odd_results_server.py): it sends the JSON a
JavaScript server that cut a string inside an emoji sends (``"party \\ud83c"``), which no SDK
server writes. Python reads the escape into a string no UTF-8 holds, so ipykernel could not send
the display ("'utf-8' codec can't encode character '\\ud83c': surrogates not allowed").
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.frontend import Frontend, shell_reply

ODD = str(Path(__file__).resolve().parents[2] / "servers" / "odd_results_server.py")
CONNECT = f"""
import mcpnb
pool = mcpnb.Pool()
pool.connect("odd", command={sys.executable!r}, args=[{ODD!r}], tool_timeout=10)
"""


def test_half_of_an_emoji_is_shown_as_a_replacement_with_a_warning_and_kept_in_data(kernel):
    fe = Frontend(kernel)
    fe.run_ok(CONNECT)
    shown = fe.run_ok('r = pool.call("odd", "half_emoji"); r')
    fe.wait_for(lambda: shown in fe.results, what="the result's display")
    text, html = fe.results[shown]["text/plain"], fe.results[shown]["text/html"]
    assert "party \ufffd" in text and "cake \U0001f382" in text  # a whole emoji stays one
    assert "party \ufffd" in html
    assert "⚠ this result holds half of a character (an unpaired UTF-16 surrogate" in text
    assert "result.data and result.text keep them as sent" in html

    frame = fe.run_ok("r.df")  # pandas' own display of the DataFrame
    fe.wait_for(lambda: frame in fe.results, what="the DataFrame's display")
    assert "party \ufffd" in fe.results[frame]["text/plain"]

    kept = fe.run_ok(
        'print(r.data[0]["title"] == "party " + chr(0xD83C), r.text.endswith(chr(0xD83C)), len(r.data))\n'
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as said:\n"
        '    warnings.simplefilter("always")\n'
        '    print(r.df["title"].tolist() == ["party \\ufffd", "cake \\U0001f382"], str(said[0].message))\n'
        "pool.close()"
    )
    fe.wait_for(lambda: "\n" in fe.stdout.get(kept, "").strip(), what="the checks")
    first, second = fe.stdout[kept].splitlines()[:2]
    assert first == "True True 2"  # nothing lost: the data as sent
    assert second.startswith("True result.df: it held half of a character")


def test_an_editor_completes_the_dataframe_methods_of_result_df(kernel):
    """``r.df.<Tab>`` offered nothing: ``df`` was a property returning ``Any``, so jedi found no
    attributes; its declared type (``pd.DataFrame``) is what an editor reads."""
    fe = Frontend(kernel)
    fe.run_ok(CONNECT + 'r = pool.call("odd", "summary_beside_rows")')
    code = "r.df.gro"
    request = kernel.complete(code, len(code))
    matches = shell_reply(kernel, request, timeout=60)["matches"]
    assert "groupby" in [m.rsplit(".", 1)[-1] for m in matches], matches
    fe.run_ok("pool.close()")
