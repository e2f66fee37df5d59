"""Shuffling non-conflicting declarations never changes the plan (hypothesis).

Declarations arrive in whatever order cells, files and folders give them; a plan that depended on
that order would connect differently on another machine.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpnb.client.requirements import Declarations, resolve

from .helpers import cfg, decl, skill

NAMES = ["time", "probe", "docs", "git"]
CONFIGS = {name: cfg(name, "--serve", name) for name in NAMES}
TOOLS = ["search", "read", "now", "log"]


@st.composite
def declaration(draw, source: str):
    name = draw(st.sampled_from(NAMES))
    return decl(
        name,
        source,
        config=CONFIGS[name],  # one config per name: nothing conflicts
        version=draw(st.sampled_from([None, ">=1", ">=2", "<9", "!=3"])),
        optional=draw(st.booleans()),
        tools=tuple(draw(st.lists(st.sampled_from(TOOLS), max_size=2, unique=True))),
    )


@st.composite
def declarations(draw):
    def unique(items):  # one declaration per name and requester, as specs and skills allow
        return list({d.name: d for d in items}.values())

    notebook = unique(draw(st.lists(declaration("notebook"), max_size=4)))
    count = draw(st.integers(0, 4))
    skills = []
    for i in range(count):
        # requires point only to earlier skills: acyclic by construction
        requires = (
            tuple(f"s{j}" for j in draw(st.lists(st.integers(0, i - 1), unique=True)) if i) if i else ()
        )
        skills.append(
            skill(f"s{i}", *unique(draw(st.lists(declaration("skill"), max_size=3))), requires=requires)
        )
    layers = []
    for source in ("user", "project", "local"):
        layers += unique(draw(st.lists(declaration(source), max_size=2)))
    roots = tuple(s.name for s in skills if draw(st.booleans())) or tuple(s.name for s in skills[-1:])
    return Declarations(tuple(notebook), tuple(skills), roots, tuple(layers))


def _shuffled(data, draw):
    def perm(items):
        return tuple(draw(st.permutations(list(items))))

    skills = tuple(
        replace(
            s,
            servers=tuple(replace(d, tools=perm(d.tools)) for d in perm(s.servers)),
            requires=perm(s.requires),
        )
        for s in data.skills
    )
    return Declarations(perm(data.servers), perm(skills), perm(data.roots), perm(data.layers))


@settings(max_examples=150, deadline=None)
@given(data=declarations(), shuffle=st.data())
def test_shuffling_non_conflicting_declarations_gives_the_same_plan(data, shuffle):
    plan = resolve(data)
    assert plan.ok and plan.conflicts == () and plan.cycles == ()
    again = resolve(_shuffled(data, shuffle.draw))
    assert again == plan
