"""Secret hunting: a notebook that turns logging on (INFO, then DEBUG for the SDK and httpcore)
and talks to a server with credentials in its URL and headers. The saved file holds none of them."""

from __future__ import annotations

from pathlib import Path

import nbformat
from conftest import ROOT, HttpServer
from nbclient import NotebookClient

PASSWORD = "pw-Xq81-userinfo"
QUERY_TOKEN = "qt-Zk42-query"
BEARER = "bt-Lm77-bearer"
API_KEY = "ak-Rv19-apikey"


def test_a_notebook_with_logging_on_saves_no_credential(tmp_path: Path, monkeypatch):
    server = HttpServer("http")
    host = server.url.removeprefix("http://")
    # the notebook reads its credentials from the environment, as a real one should
    monkeypatch.setenv("WEB_URL", f"http://ada:{PASSWORD}@{host}?token={QUERY_TOKEN}")
    monkeypatch.setenv("WEB_BEARER", BEARER)
    monkeypatch.setenv("WEB_API_KEY", API_KEY)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import logging, os\nlogging.basicConfig(level=logging.INFO)"),
        nbformat.v4.new_code_cell(
            "import mcpnb\n"
            "pool = mcpnb.default_pool()\n"
            "headers = {'Authorization': 'Bearer ' + os.environ['WEB_BEARER'],\n"
            "           'X-Api-Key': os.environ['WEB_API_KEY']}\n"
            "pool.connect('web', url=os.environ['WEB_URL'], era='legacy', health_check_interval=0,\n"
            "             headers=headers)\n"
            "pool.call('web', 'add', {'a': 1, 'b': 2}).data"
        ),
        nbformat.v4.new_code_cell(
            "for name in ('mcp', 'client', 'httpcore', 'httpx2'):\n"
            "    logging.getLogger(name).setLevel(logging.DEBUG)\n"
            "pool.call('web', 'header', {'name': 'x-api-key'}).data == os.environ['WEB_API_KEY']"
        ),
        nbformat.v4.new_code_cell("pool.status()"),
        nbformat.v4.new_code_cell("pool.close()"),
    ]
    try:
        NotebookClient(
            nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
        ).execute()
    finally:
        server.stop()
    saved = tmp_path / "logged.ipynb"
    nbformat.write(nb, saved)
    text = saved.read_text()

    assert "HTTP Request: POST" in text  # logging really was on, and the requests were logged
    assert "True" in nb.cells[2].outputs[-1]["data"]["text/plain"]  # the key reached the server
    for secret in (PASSWORD, QUERY_TOKEN, BEARER, API_KEY):
        assert secret not in text, f"{secret} leaked into the saved notebook"
    assert "***" in text
