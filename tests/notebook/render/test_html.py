"""Right-to-left server text in HTML: a cell or block with Hebrew or Arabic letters is laid out
from its first strong letter (``dir="auto"``), so it reads as written; other text keeps its markup."""

from __future__ import annotations

from mcpnb.client.results import ToolResult
from mcpnb.notebook.render import result_bundle
from mcpnb.notebook.render.html import pre, rtl_dir


def test_only_text_with_right_to_left_letters_gets_dir_auto():
    assert rtl_dir("שלום, world!") == ' dir="auto"' and rtl_dir("مرحبا") == ' dir="auto"'
    assert rtl_dir("hello") == "" and rtl_dir("日本語 café") == ""
    assert pre("תוצאה: 1") == '<pre dir="auto">תוצאה: 1</pre>' and pre("a") == "<pre>a</pre>"


def test_a_result_table_cell_in_hebrew_reads_right_to_left():
    rows = [{"שם": "דוד", "city": "Haifa"}, {"שם": "שרה", "city": "Tel Aviv"}]
    html = result_bundle(ToolResult(server="s", tool="t", content=[], structured=rows))["text/html"]
    assert '<td dir="auto">דוד</td>' in html and '<th dir="auto">שם</th>' in html
    assert "<td>Haifa</td>" in html
