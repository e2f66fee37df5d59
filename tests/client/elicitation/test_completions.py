"""A server's ``notifications/elicitation/complete`` reaches whoever waits for that page.

The server is the SDK's ``MCPServer`` (2025-11-25: the notification is that era's); its session's
``send_elicit_complete`` is the SDK's implementation of the notification, not ours.
"""

from __future__ import annotations

import threading

import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp.types import ElicitRequestURLParams

from mcpnb.client.elicitation.completions import KEPT, PageCompletions
from mcpnb.client.errors import UrlRequiredError


def gate() -> tuple[MCPServer, dict[str, object]]:
    """A server whose tool wants a sign-in page opened first (−32042) and keeps the asking session."""
    srv = MCPServer("gate", log_level="WARNING")
    sessions: dict[str, object] = {}

    @srv.tool()
    async def sign_in(ctx: Context) -> str:
        sessions["e1"] = ctx.session
        page = ElicitRequestURLParams(
            mode="url", message="Sign in first", url="http://127.0.0.1:9/login", elicitation_id="e1"
        )
        raise UrlElicitationRequiredError([page])

    return srv, sessions


def test_the_servers_word_reaches_the_waiter_once_and_the_log(pool):
    srv, sessions = gate()
    pool.connect("gate", server=srv, era="legacy")
    with pytest.raises(UrlRequiredError) as refused:
        pool.call("gate", "sign_in")
    assert refused.value.elicitations[0]["elicitationId"] == "e1"
    heard: list[str] = []
    pool.connection("gate").pages.when_done("e1", lambda: heard.append(threading.current_thread().name))
    assert heard == []  # nothing said yet
    session = sessions["e1"]
    pool.runtime.run(session.send_elicit_complete("e1"))  # what the sign-in page does when it is done
    pool.runtime.run(session.send_elicit_complete("e1"))  # said twice: the spec's "ignore it"
    pool.tools("gate", refresh=True)  # a round trip after both: they have been read
    assert len(heard) == 1 and heard[0] != threading.main_thread().name  # heard where it came
    said = [line for line in pool.logs("gate") if "says the page it asked to open is done" in line]
    assert len(said) == 1 and "(e1)" in said[0], pool.logs("gate")


def test_a_waiter_that_comes_after_the_word_hears_at_once():
    pages = PageCompletions()
    assert pages.complete("late")
    heard: list[int] = []
    pages.when_done("late", lambda: heard.append(1))
    assert heard == [1]
    assert not pages.complete("late")  # already completed: ignored
    assert heard == [1]


def test_a_waiter_that_stopped_hears_nothing_and_old_words_are_forgotten():
    pages = PageCompletions()
    heard: list[str] = []
    stop = pages.when_done("a", lambda: heard.append("a"))
    pages.when_done("b", lambda: heard.append("b"))
    stop()
    pages.complete("a")
    pages.complete("b")
    assert heard == ["b"]
    for n in range(KEPT):
        pages.complete(f"x{n}")
    pages.when_done("a", lambda: heard.append("a again"))  # forgotten: waits for a new word
    assert heard == ["b"]


@pytest.mark.parametrize("http", [False, True], ids=["in-process", "http"])
def test_probekits_page_opened_is_said_done_to_the_pool_that_was_refused(pool, tmp_path, http):
    """probe-kit's −32042 page, opened as a browser would, tells this connection it is done; the
    call then goes through."""
    import urllib.request

    from mcpnb import serve_probekit

    (tmp_path / "page.md").write_text("# Welcome\n")
    serve_probekit("probe", pool=pool, era="legacy", root=tmp_path, http=http)
    call = {"path": "page.md", "via": "error"}
    with pytest.raises(UrlRequiredError) as refused:
        pool.call("probe", "open_local_page", call)
    (page,) = refused.value.elicitations
    heard = threading.Event()
    pool.connection("probe").pages.when_done(page["elicitationId"], heard.set)
    assert not heard.is_set()
    assert b"Welcome" in urllib.request.urlopen(page["url"], timeout=10).read()  # 127.0.0.1 only
    assert heard.wait(10)
    assert pool.call("probe", "open_local_page", call).structured["action"] == "accept"
