"""URL consent (and the −32042 retry variant) and the sampling panel."""

from __future__ import annotations

import mcp.types as types

from mcpnb.notebook.forms import FormOutcome, SamplingOutcome, SamplingPanel, UrlConsent, sampling_view


def panel(url="https://auth.example.com/login?x=1", retry=None, **kw):
    got: list[FormOutcome] = []
    p = UrlConsent(
        url,
        message=kw.get("message", "Sign in first"),
        server=kw.get("server", "srv"),
        on_done=got.append,
        on_retry=retry,
    )
    return p, got


def test_url_panel_shows_server_url_host_and_a_plain_link():
    p, got = panel()
    info = p.info.value
    assert "srv" in info and "Sign in first" in info
    assert "<b style='font-size:1.1em'>auth.example.com</b>" in info
    assert "/login?x=1" in info
    link = p.link.value
    assert 'href="https://auth.example.com/login?x=1"' in link
    assert 'target="_blank"' in link and "noopener" in link
    assert got == []  # nothing happens until a person acts
    assert [b.description for b in p.buttons.values()] == ["I've completed it", "Decline", "Cancel"]


def test_url_buttons():
    for key, action in (("accept", "accept"), ("decline", "decline"), ("cancel", "cancel")):
        p, got = panel()
        p.buttons[key].click()
        assert got == [FormOutcome(action, None)]
        assert all(b.disabled for b in p.buttons.values())
        p.buttons["accept"].click()
        assert len(got) == 1


def test_dangerous_urls_are_not_linked_and_warned():
    p, _ = panel("javascript:alert(document.cookie)")
    assert "<a" not in p.link.value and "not a web link" in p.info.value
    p, _ = panel("https://bank.com@evil.example/x")
    assert "<b style='font-size:1.1em'>evil.example</b>" in p.info.value and "user name" in p.info.value


def test_untrusted_strings_escaped():
    url = 'https://x.org/"><script>alert(1)</script>'
    p, _ = panel(url, message="<script>alert(2)</script>", server="<script>alert(3)</script>")
    assert "<script>" not in p.info.value and "<script>" not in p.link.value
    assert "&lt;script&gt;alert(2)" in p.info.value
    assert '"><' not in p.link.value


def test_retry_variant():
    retried: list[int] = []
    p, got = panel(retry=lambda: retried.append(1))
    assert p.buttons["retry"].description == "Retry the call"
    p.buttons["accept"].click()  # completed: no server waits for that, the call does: it is retried
    assert got == [FormOutcome("accept", None)] and retried == [1]
    assert all(b.disabled for b in p.buttons.values())
    # it does not claim the page was completed: Retry may be clicked without opening it
    assert "Went on from the page" in p.status.value and "completed" not in p.status.value
    assert p.buttons["accept"].layout.display == "none"  # one button retries: "Retry the call"
    assert "then <b>Retry the call</b>" in p.info.value and "completed it" not in p.info.value
    p.retry()
    assert retried == [1]
    # retry straight away accepts first
    p, got = panel(retry=lambda: retried.append(2))
    p.buttons["retry"].click()
    assert got == [FormOutcome("accept", None)] and retried == [1, 2]
    # after a decline there is nothing to retry
    p, got = panel(retry=lambda: retried.append(3))
    p.buttons["decline"].click()
    assert p.retry() is False and retried == [1, 2]


def test_retry_status_ends_with_the_outcome():
    retried: list[int] = []
    p, _ = panel(retry=lambda: retried.append(1))
    p.buttons["retry"].click()
    assert "Retrying the call" in p.status.value
    p.finish_retry(False, "still needs the page")  # not through: Retry is offered again
    assert "Retrying" not in p.status.value and "✗ still needs the page" in p.status.value
    assert not p.buttons["retry"].disabled and p.buttons["decline"].disabled
    p.buttons["retry"].click()
    assert retried == [1, 1]
    p.finish_retry(True, "Done: the result is below.")
    assert "✓ Done: the result is below." in p.status.value and "still needs" not in p.status.value
    assert "Went on from the page" in p.status.value  # what the person did stays on record
    assert all(b.disabled for b in p.buttons.values())


def test_the_panel_says_what_each_button_does():
    p, _ = panel()
    assert "then <b>I've completed it</b>. Decline:" in p.info.value and "Cancel: not now" in p.info.value
    assert p.buttons["accept"].layout.display != "none" and "retry" not in p.buttons


def test_button_labels_are_not_cut():
    p, _ = panel(retry=lambda: None)
    assert p.buttons["accept"].layout.width == "auto" and p.buttons["retry"].layout.width == "auto"


SAMPLING = types.CreateMessageRequestParams(
    messages=[
        types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say <b>hi</b>")),
        types.SamplingMessage(
            role="assistant", content=types.ImageContent(type="image", data="AAAA", mime_type="image/png")
        ),
    ],
    system_prompt="You are terse",
    max_tokens=20,
    model_preferences=types.ModelPreferences(hints=[types.ModelHint(name="claude")]),
)


def test_sampling_view_reads_sdk_params_and_dicts():
    v = sampling_view(SAMPLING)
    assert v.messages[0] == ("user", "Say <b>hi</b>")
    assert v.messages[1][1].startswith("[image image/png")
    assert (v.system_prompt, v.max_tokens, v.model_hints) == ("You are terse", 20, ["claude"])
    d = sampling_view(SAMPLING.model_dump(by_alias=True, mode="json"))
    assert d == v


def test_sampling_view_reads_sdk_models_without_fastmcps_deprecation_warnings():
    """Once fastmcp is imported (a FastMCP server written in a cell), reading an SDK model's
    camelCase names warns ("Accessing `CreateMessageRequestParams.maxTokens` is deprecated"), and
    each warning lands in the person's cell: the snake_case names are read first."""
    import warnings

    import fastmcp  # noqa: F401  (its shims are what warn)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = sampling_view(SAMPLING)
    assert [str(w.message) for w in caught] == []
    assert v.system_prompt == "You are terse" and v.messages[1][1].startswith("[image image/png")


def test_sampling_panel_accept_and_reject():
    got: list[SamplingOutcome] = []
    p = SamplingPanel(SAMPLING, server="everything", on_done=got.append)
    text = p.info.value
    assert "everything" in text and "You are terse" in text and "token limit 20" in text
    assert "Say &lt;b&gt;hi&lt;/b&gt;" in text and "<b>hi</b>" not in text
    p.buttons["accept"].click()  # empty reply refused
    assert got == [] and "Type a reply" in p.status.value
    p.reply.value = "hello"
    p.buttons["accept"].click()
    assert got == [SamplingOutcome("accept", "hello")]
    assert p.reply.disabled and all(b.disabled for b in p.buttons.values())
    result = got[0].to_result()
    assert isinstance(result, types.CreateMessageResult) and result.content.text == "hello"
    got.clear()
    p = SamplingPanel({"messages": []}, server=None, on_done=got.append)
    p.buttons["reject"].click()
    assert got == [SamplingOutcome("reject", None)]
    assert isinstance(got[0].to_result(), types.ErrorData)


def test_a_yes_or_no_of_our_own_is_two_buttons_answered_once():
    from mcpnb.notebook.forms import ConfirmPanel

    got: list[FormOutcome] = []
    panel = ConfirmPanel(
        "Run fs.write_file?",
        "The model asks <b>this</b>.",
        yes="Run it",
        no="Do not run it",
        on_done=got.append,
    )
    assert "&lt;b&gt;this&lt;/b&gt;" in panel.info.value and "Run fs.write_file?" in panel.info.value
    assert [b.description for b in panel.buttons.values()] == ["Run it", "Do not run it"]
    panel.buttons["decline"].click()
    assert [o.action for o in got] == ["decline"] and "✗ Do not run it" in panel.status.value
    assert not panel.submit("accept") and len(got) == 1  # answered once
    assert all(b.disabled for b in panel.buttons.values())


def test_a_yes_or_no_on_a_console_takes_only_y_for_yes():
    from mcpnb.notebook.forms import ask_confirm_text

    for typed, said in (("y", True), ("YES ", True), ("", False), ("no", False), ("run", False)):
        printed: list[str] = []
        got = ask_confirm_text(
            "Run x?",
            "details",
            yes="Run it",
            no="Do not",
            input_fn=lambda _p, t=typed: t,
            print_fn=printed.append,
        )
        assert got is said and printed[-1] == ("→ Run it" if said else "→ Do not")


REMOTE_SIGNS = ("BINDER_SERVICE_HOST", "BINDER_REQUEST", "JUPYTERHUB_API_URL", "COLAB_RELEASE_TAG",
                "SSH_CONNECTION", "SSH_CLIENT")  # fmt: skip


def test_a_link_to_the_kernel_s_own_machine_is_said_not_to_open_where_the_browser_is_elsewhere(monkeypatch):
    """On Binder a page served on 127.0.0.1 (probe-kit's) is on the Binder machine: the student's
    browser cannot open it, and a newcomer clicked a link that led nowhere with no word why."""
    for var in REMOTE_SIGNS:
        monkeypatch.delenv(var, raising=False)
    local = "http://127.0.0.1:8765/t0k/welcome.md"
    p, _ = panel(local)
    assert "will not open here" not in p.info.value  # the browser is on this machine
    monkeypatch.setenv("BINDER_SERVICE_HOST", "10.0.0.1")
    p, _ = panel(local)
    assert (
        "127.0.0.1 is the machine the kernel runs on" in p.info.value and "will not open here" in p.info.value
    )
    p, _ = panel("https://example.com/page")
    assert "will not open here" not in p.info.value  # a site on the web opens anywhere
