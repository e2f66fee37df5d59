"""The plain-text tables of resources, prompts and logs line up cells of any script; a tool's or a
prompt's card gives a line to copy that holds no secret."""

from __future__ import annotations

from mcpnb.client.printable import width
from mcpnb.notebook.magics.listings import text_table

from .conftest import bundle, line


def test_hebrew_and_cjk_cells_do_not_push_the_columns_after_them():
    lines = text_table(
        ["name", "title"], [["挨拶", "こんにちは"], ["שלום", "hello"], ["ab", "x"]]
    ).splitlines()
    marks = ["title", "こんにちは", "hello", "x"]
    assert {width(line[: line.index(m)]) for line, m in zip(lines, marks, strict=True)} == {6}


def test_a_hebrew_cell_reads_right_to_left_in_html():
    from mcpnb.notebook.magics.listings import html_table

    html = html_table(["name", "title"], [["greet", "שלום, עולם!"]])
    assert '<td dir="auto">שלום, עולם!</td>' in html and "<td>greet</td>" in html


def locked() -> object:
    """FastMCP with a tool and a prompt that each take a password."""
    import fastmcp

    srv = fastmcp.FastMCP("locked")

    @srv.tool
    def login(user: str, password: str, api_key: str = "") -> str:
        """Sign in."""
        return f"{user} signed in with {len(password)} characters"

    @srv.prompt
    def connect_db(host: str, password: str) -> str:
        """Connect to a database."""
        return f"connect to {host} ({len(password)} characters)"

    return srv


def test_a_card_s_call_line_names_a_notebook_variable_for_a_secret(ip, mcp):
    """The card's line to copy invited ``password=…``: typed there, a password stays in the
    notebook's history and its saved file. A secret's name gets ``{{password}}``, read from the
    kernel when the line runs; the line as shown runs."""
    mcp.pool.connect("locked", server=locked())
    tool = bundle(ip, line(ip, "tools locked.login"))
    assert "call it: %mcp call locked.login user=… password={{password}}\n" in tool["text/plain"] + "\n"
    assert "password = getpass.getpass()" in tool["text/plain"]
    assert "<code>%mcp call locked.login user=… password={{password}}</code>" in tool["text/html"]
    prompt = bundle(ip, line(ip, "prompts locked.connect_db"))["text/plain"]
    assert "get it: %mcp prompt locked.connect_db host=… password={{password}}" in prompt
    ip.user_ns["password"] = "hunter22"
    assert (
        line(ip, "call locked.login user=ann password={{password}}").text == "ann signed in with 8 characters"
    )
    said = line(ip, "prompt locked.connect_db host=db1 password={{password}}").text
    assert said == "connect to db1 (8 characters)"


def test_a_secret_s_variable_is_a_plain_python_name():
    from mcpnb.notebook.render.card import secret_variable

    assert secret_variable("X-Api-Key") == "X_Api_Key"
    assert secret_variable("apiKey") == "apiKey"
    assert secret_variable("2fa_token") == "_2fa_token"
    assert secret_variable("max_tokens") is None and secret_variable("user") is None
