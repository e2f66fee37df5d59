"""A VS Code file's ``${input:ID}`` values, asked of the person in the cell as VS Code prompts for them.

VS Code asks for an input the first time a server that uses it starts. A connect from such a file
does the same through the pool's :class:`~mcpnb.client.interaction.Interaction`, like a server's
elicitation: one form for every input the chosen servers lack (a ``password`` input in a password
field, or read without echo on a console; a ``pickString`` as a choice; a ``default`` filled in).
Where nobody can answer (headless, a script), or the person declines, nothing is made up: those
servers are failed rows that say how to give the values (``--input ID=VALUE``, ``inputs=``).

What the person typed is kept while the kernel runs, as VS Code keeps it (:class:`TypedInputs`):
connecting from the same file again does not ask again, unless a server that used the value failed
to start (a mistyped key is asked for anew). Nothing is written to disk.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mcpnb.client.config.vscode import Variables
from mcpnb.client.interaction import CallContext, Interaction, ask_form


def question(variables: Variables, lacking: Mapping[str, list[str]]) -> dict[str, Any]:
    """The form's JSON Schema: one required string per input, saying which servers use it."""
    properties: dict[str, Any] = {}
    for input_id, servers in lacking.items():
        declared = variables.declared[input_id]
        used = f"for {', '.join(servers)}"
        prop: dict[str, Any] = {
            "type": "string",
            "title": input_id,
            "description": f"{declared.description} ({used})" if declared.description else used,
        }
        if declared.password:
            prop["writeOnly"] = True  # a password field, and masked in the record of what was sent
        if declared.options:
            prop["oneOf"] = [{"const": value, "title": label} for value, label in declared.options]
        if declared.default is not None:
            prop["default"] = declared.default
        properties[input_id] = prop
    return {"type": "object", "properties": properties, "required": list(properties)}


class TypedInputs:
    """What a person typed for each file's inputs in this kernel, and the servers each went to."""

    def __init__(self) -> None:
        self._kept: dict[tuple[Path, str], tuple[str, list[str]]] = {}  # (file, input) -> value, users

    def recall(self, path: str | Path, declared: Iterable[str]) -> dict[str, str]:
        """The values typed for ``path``'s inputs that it still declares."""
        file = _key(path)
        return {i: self._kept[(file, i)][0] for i in declared if (file, i) in self._kept}

    def keep(self, path: str | Path, values: Mapping[str, str], users: Mapping[str, list[str]]) -> None:
        for input_id, value in values.items():
            self._kept[(_key(path), input_id)] = (value, list(users.get(input_id, [])))

    def failed(self, servers: Iterable[str]) -> None:
        """Servers that did not start: the values typed for them are asked for again next time."""
        down = set(servers)
        self._kept = {k: v for k, v in self._kept.items() if not down & set(v[1])}

    def forget(self, path: str | Path | None = None) -> None:
        """Drop the values typed for ``path`` (default: every file)."""
        file = None if path is None else _key(path)
        self._kept = {k: v for k, v in self._kept.items() if file is not None and k[0] != file}


def _key(path: str | Path) -> Path:
    return Path(path).expanduser().resolve()


async def ask_inputs(
    interaction: Interaction,
    path: str | Path,
    servers: Iterable[str] | None,
    given: Mapping[str, str] | None,
    call: CallContext | None = None,
    typed: TypedInputs | None = None,
) -> dict[str, str]:
    """``given``, what the person typed before (``typed``) and what they type now for the inputs
    ``servers`` (default: all) still lack; what they type now is kept in ``typed``.

    Only a file in VS Code's format has inputs; for any other, and when nothing is lacking or
    nobody answers, ``given`` comes back as it was (the config then says what is missing).
    """
    from mcpnb.client.config.layers import vscode_variables

    values = dict(given or {})
    if not Path(path).expanduser().is_file():
        return values  # the config's own reading says so
    variables = vscode_variables(path, values)
    if variables is not None and typed is not None:
        values = {**typed.recall(path, variables.declared), **values}
        variables = dataclasses.replace(variables, values=values)
    lacking = variables.lacking(servers) if variables is not None else {}
    if variables is None or not lacking:
        return values
    users = list(dict.fromkeys(s for names in lacking.values() for s in names))
    many = len(lacking) > 1
    message = (
        f"{variables.file} asks its client for {'these values' if many else 'this value'} before "
        f"starting {', '.join(users)}, as VS Code prompts for them. "
        f"{'They go' if many else 'It goes'} into the server settings only, and {'are' if many else 'is'} "
        "kept until the kernel stops, never saved."
    )
    result, _nobody = await ask_form(
        interaction, ", ".join(users), message, question(variables, lacking), call or CallContext(), "inputs"
    )
    if result is not None and result.action == "accept":
        answered = {k: str(v) for k, v in (result.content or {}).items() if v is not None and k in lacking}
        values.update(answered)
        if typed is not None:
            typed.keep(path, answered, lacking)
    return values
