"""A toolbox's skills, for the model (SEP-2640): listed in its instructions, loaded by one tool.

Skills are written for a model, and agents use them progressively: the model sees each skill's
name and description, and loads the one a task calls for (its ``SKILL.md``, then any file it
names) instead of carrying every skill's instructions in every prompt. So a toolbox made with
``skills=True`` lists its servers' skills in :attr:`~mcpnb.client.toolbox.box.Toolbox.instructions`
and holds one more function, :data:`LOADER`, that runs here, not on a server: it loads through
:meth:`~mcpnb.client.server_skills.ServerSkill.aload`, which checks every file against the listing.
A skill that does not match its listing reaches the model as an error, never as instructions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpnb.client.errors import CallError, McpnbError, did_you_mean_text
from mcpnb.client.results import ToolResult
from mcpnb.client.toolinfo import ToolInfo

if TYPE_CHECKING:
    from mcpnb.client.pool import Pool
    from mcpnb.client.server_skills import ServerSkill
    from mcpnb.client.toolbox.functions import ToolFunction

#: The loader's name, and the "server" its flat name gives (``mcp__mcpnb__load_skill``): it runs in
#: this process, where the toolbox is.
LOADER = "load_skill"
HERE = "mcpnb"
SKILL_FILE = "SKILL.md"


def label(skill: ServerSkill) -> str:
    """``server/skill``: how the model names a skill (two servers may each have a ``review``)."""
    return f"{skill.server}/{skill.name}"


async def skills_of(pool: Pool, servers: list[str]) -> tuple[list[ServerSkill], dict[str, str]]:
    """The skills of those ``servers`` that offer any, and why a server's could not be listed."""
    from mcpnb.client.server_skills import declares_skills

    found: list[ServerSkill] = []
    missed: dict[str, str] = {}
    for server in servers:
        if not declares_skills(pool.connection(server).capabilities):
            continue
        try:
            found += await pool._skills(server)
        except McpnbError as exc:  # the tools stay; the person is told why the skills did not come
            missed[f"{server}'s skills"] = str(exc)
    return found, missed


def instructions(skills: list[ServerSkill]) -> str:
    """The section of the system prompt that tells the model which skills it may load."""
    lines = [f"- {label(s)}: {s.description}" for s in skills]
    return (
        f"## Skills\nInstructions you can load when a task calls for one: call {LOADER} with its "
        "name, then follow what it says (it may name files of its own: load those the same way).\n"
        + "\n".join(lines)
    )


def loader_tool(skills: list[ServerSkill]) -> ToolInfo:
    return ToolInfo(
        server=HERE,
        name=LOADER,
        description=(
            "Load a skill's instructions (its SKILL.md), or one file of a skill by the path its "
            "instructions give. Load a skill before you follow it."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "skill": {"type": "string", "enum": [label(s) for s in skills], "description": "The skill"},
                "file": {
                    "type": "string",
                    "description": "A file of the skill, by its path in the skill (references/forms.md); "
                    "leave out for its instructions",
                },
            },
            "required": ["skill"],
            "additionalProperties": False,
        },
        annotations={"readOnlyHint": True, "openWorldHint": False},
    )


def make_loader(pool: Pool, skills: list[ServerSkill]) -> ToolFunction:
    """The loader as a toolbox function: called with ``skill`` (and a ``file``), it returns a
    :class:`ToolResult` with the text, or one with ``is_error`` saying what went wrong."""
    from mcpnb.client.toolbox.functions import Binder, dressed
    from mcpnb.client.toolbox.schema import normal_form
    from mcpnb.client.toolbox.signatures import params

    tool = loader_tool(skills)
    found = params(normal_form(tool.input_schema)[0])
    binder = Binder(LOADER, found)
    by_label = {label(s): s for s in skills}

    def arguments(*args: Any, **kwargs: Any) -> dict[str, Any]:
        from mcpnb.client.arguments import check_arguments

        return check_arguments(tool, binder.bind(args, kwargs))

    async def acall(*args: Any, **kwargs: Any) -> ToolResult:
        given = arguments(*args, **kwargs)
        try:
            text = await _read(by_label, given["skill"], given.get("file"))
        except McpnbError as exc:  # the model reads it; advice for the person stays a warning on it
            result = _result(exc.for_model, is_error=True)
            if exc.for_model != str(exc):
                result.warnings.append(str(exc))
            return result
        return _result(text)

    def call(*args: Any, **kwargs: Any) -> ToolResult:
        return pool.runtime.run(acall(*args, **kwargs))

    loader = dressed(call, acall, arguments, tool, found, tool.description or "")
    loader.runs_here = True  # type: ignore[attr-defined]
    return loader


async def _read(by_label: dict[str, ServerSkill], name: str, file: str | None) -> str:
    skill = by_label.get(name)
    if skill is None:  # the schema's enum keeps a model to the list; a caller in code may not be
        raise CallError(f"there is no skill {name!r}{did_you_mean_text(name, by_label)}")
    loaded = await skill.aload()
    others = [p for p in _paths(skill) if p != SKILL_FILE]
    if not file or file.strip("/") == SKILL_FILE:
        tail = f"\n\n(Files of this skill: {', '.join(others)})" if others else ""
        return loaded.body.strip() + tail
    if "://" in file:
        raise CallError(f"{file!r}: name a file of {name} by its path in the skill, not by a URI")
    if skill.files is not None and file.strip("/") not in others:
        held = f"its files: {', '.join(others)}" if others else "it has no other file"
        raise CallError(f"{name} has no file {file!r}; {held} (leave file out for its instructions)")
    data = await loaded.aread(file)
    if isinstance(data, bytes):
        return f"{file} is a binary file of {len(data)} bytes; it cannot be shown as text"
    return data


def _paths(skill: ServerSkill) -> list[str]:
    """The skill's files by their paths in the skill (none known for a dynamic skill)."""
    return [f.uri.removeprefix(skill.folder) for f in skill.files or () if f.uri.startswith(skill.folder)]


def _result(text: str, *, is_error: bool = False) -> ToolResult:
    from mcp.types import TextContent

    return ToolResult(
        server=HERE, tool=LOADER, content=[TextContent(type="text", text=text)], is_error=is_error
    )
