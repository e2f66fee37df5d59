"""The ``.mcp.json`` layers as declarations, ranked by the closest layer that names each server.

They are merged exactly as ``%mcp connect --config`` merges them (site < user < project < local,
key by key), so a local file that only adds a secret ``env`` entry still completes the project's server.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path

from mcpnb.client.requirements.model import Declaration, Source


def layer_declarations(
    base: Path,
    path: str | Path | None = None,
    *,
    needed: Collection[str] = (),
    settled: Collection[str] = (),
    inputs: Mapping[str, str] | None = None,
) -> tuple[Declaration, ...]:
    """Every configured server, as a declaration of the layer that named it last.

    A server whose settings are invalid is an error only if ``needed`` names it: a typo in a server
    the notebook does not use must not stop the notebook from getting the ones it does. One the
    notebook declares in full (``settled``) is left out with a warning: the notebook's own settings
    outrank the file's, so its mistake stopped nothing but the cell. ``inputs``: the
    ``${input:ID}`` values of a VS Code file.
    """
    import warnings

    from mcpnb.client.config import LOCAL_FILE, load_config, site_config_paths, user_config_path
    from mcpnb.client.errors import ConfigError

    found = load_config(start=base, path=path, keep_going=True, inputs=inputs)
    broken = sorted(set(needed) & set(found.problems))
    for name in broken:
        if name in settled:
            warnings.warn(
                f"{found.problems[name]}; left out: the notebook's own settings for {name!r} are used",
                UserWarning,
                stacklevel=3,
            )
    broken = [name for name in broken if name not in settled]
    if broken:
        raise ConfigError(found.problems[broken[0]])
    user, site = user_config_path(), site_config_paths()
    out = []
    for name, config in found.servers.items():
        where = Path(config.source or "")
        layer: Source = (
            "local"
            if where.name == LOCAL_FILE
            else "user"
            if _same(where, user)
            else "site"
            if any(_same(where, s) for s in site)
            else "project"
        )
        out.append(Declaration(name, layer, f"{layer} ({where.name})", config=config))
    return tuple(out)


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
