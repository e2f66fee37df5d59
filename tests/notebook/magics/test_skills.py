"""``%mcp skills`` through a real IPython shell: probe-kit's skills listed, one loaded and shown as
its instructions, and the mistakes a person makes named."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from .conftest import connect_demo, line


def test_skills_listed_across_servers_then_one_loaded(ip, mcp):
    line(ip, "serve probe-kit")
    connect_demo(ip)  # a server without skills: left out of the listing, not an error
    listed = line(ip, "skills")
    assert [(s.server, s.name) for s in listed] == [("probe", "probe-kit-tour"), ("probe", "review-a-change")]
    text = repr(listed)
    assert text.splitlines()[0].split() == ["server", "skill", "files", "description"]
    assert "review-a-change  2" in text and "demo" not in text
    loaded = line(ip, "skills probe review-a-change")
    shown, _ = ip.display_formatter.format(loaded)
    assert "text/markdown" not in shown  # JupyterLab runs a trusted output's Markdown as markup
    assert "\n# Review a change" in shown["text/plain"]  # the instructions, not the YAML
    assert "name: review-a-change" not in shown["text/plain"]
    assert loaded.read("checklist.md").startswith("# Before saying")


def test_the_mistakes_name_what_exists(ip, mcp):
    line(ip, "serve probe-kit")
    connect_demo(ip)
    with pytest.raises(
        UsageError, match=r"'probe' has no skill 'reveiw-a-change'; did you mean 'review-a-change'"
    ):
        line(ip, "skills probe reveiw-a-change")
    with pytest.raises(Exception, match=r"'demo' offers no skills"):
        line(ip, "skills demo")
