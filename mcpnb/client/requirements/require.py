"""``pool.require``: gather the declarations, plan, (ask,) connect, check, and say what happened.

Everything that can be wrong with the input (syntax, unknown keys, a skill folder without
``SKILL.md``, a cycle, an unresolved conflict) is found before the first connection, so bad input
leaves the pool exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpnb.client.requirements.choosing import choose
from mcpnb.client.requirements.connecting import connect_plan
from mcpnb.client.requirements.errors import failure_error, plan_error
from mcpnb.client.requirements.layers import layer_declarations
from mcpnb.client.requirements.model import SOURCES, Declarations
from mcpnb.client.requirements.reading import read_text
from mcpnb.client.requirements.resolution import Resolution
from mcpnb.client.requirements.resolver import resolve
from mcpnb.client.requirements.skills import load_skills
from mcpnb.client.requirements.spec import parse_spec

if TYPE_CHECKING:
    from mcpnb.client.interaction import CallContext
    from mcpnb.client.pool import Pool
    from mcpnb.client.requirements.plan import Plan

SpecInput = Mapping[str, Any] | str | Declarations | None
#: ``(config path, needed servers, inputs given) -> inputs``: a VS Code file's lacking inputs asked.
AskInputs = Callable[[str | Path, Collection[str], Mapping[str, str] | None], Mapping[str, str]]
#: How many rounds of questions ``ask`` may need (a choice of config can reveal a version conflict).
_ROUNDS = 3


def gather(
    spec: SpecInput,
    *,
    source: str = "notebook",
    skills: Sequence[str | Path] = (),
    base: str | Path | None = None,
    config: bool | str | Path = True,
    where: str | None = None,
    inputs: Mapping[str, str] | None = None,
    ask: AskInputs | None = None,
) -> Declarations:
    """Every declaration: the spec's (a mapping from code, or JSON/YAML text), its skills and the
    skills they require, and the config layers (``config``: True for the default files found from
    ``base``, a path for one project file, False for none). I/O happens here and only here.

    ``inputs`` are the ``${input:ID}`` values of a VS Code file given as ``config``; ``ask`` gets
    the ones the needed servers still lack from a person."""
    if isinstance(spec, Declarations):
        return spec
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}: use one of {', '.join(SOURCES)}")
    folder = Path(base).expanduser() if base is not None else Path.cwd()
    file = where or ("<code>" if not isinstance(spec, str) else "<spec>")
    data = read_text(spec, file) if isinstance(spec, str) else spec
    parsed = parse_spec(data, file=file, source=source, origin=source, objects=not isinstance(spec, str))  # type: ignore[arg-type]
    refs = [*parsed.skills, *(str(s) for s in skills)]
    loaded, roots = load_skills(refs, folder, file=file)
    declared = [*parsed.servers, *(d for skill in loaded for d in skill.servers)]
    needed = {d.name for d in declared}
    settled = {d.name for d in declared if d.config is not None}  # declared in full: no file needed
    path = None if config is True else config
    if ask is not None and path not in (None, False):
        inputs = ask(path, needed, inputs)  # type: ignore[arg-type]
    layers = (
        ()
        if config is False
        else layer_declarations(folder, path, needed=needed, settled=settled, inputs=inputs)
    )
    return Declarations(parsed.servers, loaded, roots, layers)


def plan_for(
    pool: Pool,
    declarations: Declarations,
    strategy: str,
    run: Callable[[Coroutine[Any, Any, Any]], Any],
    *,
    answers: dict[str, Any] | None = None,
    context: CallContext | None = None,
) -> Plan:
    """The plan; with ``ask``, the person (or the answers) settles the conflicts priority would."""
    if strategy != "ask":
        return resolve(declarations, strategy)
    plan = resolve(declarations, "ask", nobody="nothing to ask")
    choices: dict[str, str] = {}
    asked: set[str] = set()
    how, nobody = "asked", None
    for _ in range(_ROUNDS):
        new = [c for c in plan.conflicts if c.key not in asked]
        if not new:
            break
        picked, said = run(choose(pool, new, answers=answers, context=context))
        asked |= {c.key for c in new}
        if picked is None:
            nobody = said
        else:
            choices.update(picked)
            how = said
        plan = resolve(declarations, "ask", choices=choices, chosen_by=how, nobody=nobody)
    return plan


def require(
    pool: Pool,
    spec: SpecInput,
    *,
    strategy: str = "priority",
    source: str = "notebook",
    skills: Sequence[str | Path] = (),
    base: str | Path | None = None,
    config: bool | str | Path = True,
    answers: dict[str, Any] | None = None,
    context: CallContext | None = None,
    where: str | None = None,
    run: Callable[[Coroutine[Any, Any, Any]], Any] | None = None,
    inputs: Mapping[str, str] | None = None,
) -> Resolution:
    """See :meth:`mcpnb.client.pool.Pool.require`. ``where`` names the spec in messages (a cell);
    ``run`` runs a coroutine on the runtime loop (a notebook cell's runner cancels it on interrupt)."""
    run = run or pool.runtime.run
    declarations = gather(
        spec, source=source, skills=skills, base=base, config=config, where=where,
        inputs=inputs, ask=_asking(pool, run, context),
    )  # fmt: skip
    plan = plan_for(pool, declarations, strategy, run, answers=answers, context=context)
    return _settle(pool, plan, run(connect_plan(pool, plan)) if plan.ok else None)


async def arequire(
    pool: Pool,
    spec: SpecInput,
    *,
    strategy: str = "priority",
    source: str = "notebook",
    skills: Sequence[str | Path] = (),
    base: str | Path | None = None,
    config: bool | str | Path = True,
    answers: dict[str, Any] | None = None,
    context: CallContext | None = None,
    where: str | None = None,
    inputs: Mapping[str, str] | None = None,
) -> Resolution:
    """Async twin of :func:`require` (reading the files, and asking for a VS Code file's inputs,
    in a thread)."""
    import asyncio

    declarations = await asyncio.to_thread(
        gather, spec, source=source, skills=skills, base=base, config=config, where=where,
        inputs=inputs, ask=_asking(pool, pool.runtime.run, context),
    )  # fmt: skip
    plan = await asyncio.to_thread(
        plan_for, pool, declarations, strategy, pool.runtime.run, answers=answers, context=context
    )
    return _settle(pool, plan, await pool.runtime.arun(connect_plan(pool, plan)) if plan.ok else None)


def _asking(
    pool: Pool, run: Callable[[Coroutine[Any, Any, Any]], Any], context: CallContext | None
) -> AskInputs:
    def ask(path: str | Path, needed: Collection[str], given: Mapping[str, str] | None) -> Mapping[str, str]:
        from mcpnb.client.inputs import ask_inputs

        interaction = pool.effective_interaction
        return run(ask_inputs(interaction, path, needed, given, context, pool.typed_inputs))

    return ask


def _settle(pool: Pool, plan: Plan, resolution: Resolution | None) -> Resolution:
    if resolution is None:
        raise plan_error(Resolution(plan))
    pool.typed_inputs.failed(row.name for row in resolution.rows if row.state == "failed")
    if resolution.failures:
        raise failure_error(resolution)
    return resolution
