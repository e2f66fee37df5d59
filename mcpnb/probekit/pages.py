"""Local pages served over loopback HTTP, so a URL-mode elicitation hands out a link a browser opens.

A ``file://`` URL is not a web link: a client rightly refuses to link it (and a browser tab from
JupyterLab cannot open it anyway). ``open_local_page`` publishes the page here and asks consent for
``http://127.0.0.1:PORT/<token>/<name>``. Only published files are served, each under a random
token, as escaped text; the server binds 127.0.0.1 only and stops with probe-kit's last session.
"""

from __future__ import annotations

import html
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

MAX_VISITS = 256  # consents whose page visit is awaited; the oldest are forgotten


class PageServer:
    """A loopback HTTP server for the pages probe-kit asked consent to open."""

    def __init__(self) -> None:
        self._pages: dict[str, Path] = {}  # "/<token>/<name>" (unquoted) -> file
        self._tokens: dict[Path, str] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._visits: OrderedDict[str, Callable[[], None]] = OrderedDict()  # consent id -> its first visit

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def publish(self, file: Path, title: str | None = None) -> str:
        """The URL of ``file`` (the same one each time for the same file), starting the server once."""
        with self._lock:
            if self._httpd is None:
                self._httpd = _serve(self)
            token = self._tokens.setdefault(file, secrets.token_urlsafe(12))
            self._pages[f"/{token}/{file.name}"] = file
            host, port = self._httpd.server_address[:2]
            return f"http://{host}:{port}/{token}/{quote(file.name)}"

    def on_visit(self, url: str, elicitation_id: str, then: Callable[[], None]) -> str:
        """``url`` marked for one consent: its first visit calls ``then`` (in the serving thread),
        which tells the client that asked that the page is done (``notifications/elicitation/complete``).
        A page is only read here, so opening it is all the interaction there is."""
        with self._lock:
            self._visits[elicitation_id] = then
            self._visits.move_to_end(elicitation_id)
            while len(self._visits) > MAX_VISITS:
                self._visits.popitem(last=False)
        return f"{url}?visit={quote(elicitation_id, safe='')}"

    def visited(self, path: str) -> None:
        """A page was served: the consent its URL names (if any) is done, once."""
        said = parse_qs(urlsplit(path).query).get("visit", [])
        with self._lock:
            then = self._visits.pop(said[0], None) if said else None
        if then is not None:
            then()

    def page(self, path: str) -> Path | None:
        """The published file at a request path, if any."""
        with self._lock:
            return self._pages.get(unquote(urlsplit(path).path))

    def stop(self) -> None:
        with self._lock:
            httpd, self._httpd = self._httpd, None
            self._pages.clear()
            self._tokens.clear()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()


def _serve(pages: PageServer) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            file = pages.page(self.path)
            if file is None or not file.is_file():
                self.send_error(404, "No such page (probe-kit serves only pages it asked you to open)")
                return
            body = _as_html(file).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
            self.end_headers()
            self.wfile.write(body)
            pages.visited(self.path)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: a cell is not a server log
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, name="probe-kit-pages", daemon=True).start()
    return httpd


def _as_html(file: Path) -> str:
    """The page as text (never run as HTML: it is a file from disk, not a web app)."""
    text = file.read_text(encoding="utf-8", errors="replace")
    return (
        f"<!doctype html><meta charset='utf-8'><title>{html.escape(file.name)}</title>"
        "<body style='font-family:sans-serif;max-width:48em;margin:2em auto'>"
        f"<pre style='white-space:pre-wrap'>{html.escape(text)}</pre></body>"
    )
