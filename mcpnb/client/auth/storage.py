"""Where OAuth tokens live between requests: process memory (default) or a 0600 JSON file.

Both implement the SDK's ``TokenStorage`` protocol. They also remember what the SDK forgets between
providers: *when* the access token expires and *where* the token endpoint is (the authorization
server's metadata). Without those, a provider built on stored tokens sends an expired token and
waits for a 401, or refreshes against the MCP server's own origin and fails.

Memory stores are shared per server within the process: the pool builds a new provider on every
(re)connect, and a person who authorized in a browser once should not have to do it again because
the server restarted.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken

from mcpnb.client.auth.notice import tell_person
from mcpnb.client.errors import AuthError

TOKEN_DIR_ENV = "MCPNB_TOKEN_DIR"
#: What a :class:`FileTokenStorage` could not write (its folder read-only), or ``{}`` for a file it
#: could not remove (a sign-out: the file is not read again), by file: held for the kernel's life,
#: as a new storage for the same file (a reconnect's) reads it.
_HELD: dict[str, dict[str, Any]] = {}


def token_dir() -> Path:
    """``$MCPNB_TOKEN_DIR`` or ``<user config dir>/mcpnb/tokens`` (looked up at call time, for tests).
    The spaces and line endings around the variable's value are not part of it (a spawner's
    environment file saved on Windows), and one that is blank is not set."""
    override = os.environ.get(TOKEN_DIR_ENV, "").strip()
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir("mcpnb")) / "tokens"


def token_path(server: str) -> Path:
    """The file for one server; the name is sanitised so it cannot escape the token directory."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", server).lstrip(".") or "_"
    return token_dir() / f"{safe}.json"


class MemoryTokenStorage:
    """Tokens and client registration held in this process only (gone with the kernel)."""

    def __init__(self) -> None:
        self._tokens: OAuthToken | None = None
        self._client_info: OAuthClientInformationFull | None = None
        self._metadata: OAuthMetadata | None = None
        self.expires_at: float | None = None

    def __repr__(self) -> str:  # never the values: a repr ends up in notebooks
        return f"MemoryTokenStorage(tokens={'yes' if self._tokens else 'no'})"

    async def get_tokens(self) -> OAuthToken | None:
        return self._tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._tokens = tokens
        self.expires_at = _expiry(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self._client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._client_info = client_info

    def stored_client_info(self) -> OAuthClientInformationFull | None:
        return self._client_info

    def stored_metadata(self) -> OAuthMetadata | None:
        return self._metadata

    def store_metadata(self, metadata: OAuthMetadata) -> None:
        self._metadata = metadata

    def clear(self) -> None:
        self._tokens = self._client_info = self._metadata = self.expires_at = None


class FileTokenStorage:
    """Tokens and client registration in ``<token dir>/<server>.json``, readable by the owner only.

    The file records the server URL it belongs to and is ignored for any other URL, so renaming a
    server entry can never send one server's token to another. Where the file cannot be written (a
    read-only home), what would have gone in it is held for the session instead, said once: a
    sign-in that succeeded must not fail for want of a place to keep it.
    """

    def __init__(self, path: Path, server_url: str) -> None:
        self.path, self.server_url = Path(path), server_url

    def __repr__(self) -> str:
        return f"FileTokenStorage(path={str(self.path)!r})"

    def _load(self) -> dict[str, Any]:
        data = _HELD.get(str(self.path))
        if data is None:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return {}
        if not isinstance(data, dict) or data.get("server_url") != self.server_url:
            return {}
        return data

    def _save(self, **changes: Any) -> None:
        data = {**self._load(), **changes, "server_url": self.server_url}
        try:
            self._write(data)
        except OSError as exc:
            if str(self.path) not in _HELD:
                tell_person(
                    f"mcpnb could not keep the sign-in in {self.path.parent} ({exc.strerror or exc}): it "
                    f"is held until the kernel stops, and asked for again after; set {TOKEN_DIR_ENV} to a "
                    "folder you can write to keep it"
                )
            _HELD[str(self.path)] = data
        else:
            _HELD.pop(str(self.path), None)

    def _write(self, data: dict[str, Any]) -> None:
        """Write the file whole or not at all: a new file of an unguessable name, created by this call
        alone (mkstemp: O_EXCL, and O_NOFOLLOW, so a link planted in its place is never written
        through), mode 0600 from the first byte, on disk before it replaces the old one."""
        private_directory(self.path.parent)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    @property
    def expires_at(self) -> float | None:
        value = self._load().get("expires_at")
        return float(value) if isinstance(value, (int, float)) else None

    async def get_tokens(self) -> OAuthToken | None:
        raw = self._load().get("tokens")
        try:
            return OAuthToken.model_validate(raw) if raw else None
        except ValueError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._save(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=_expiry(tokens))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = self._load().get("client_info")
        try:
            return OAuthClientInformationFull.model_validate(raw) if raw else None
        except ValueError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._save(client_info=client_info.model_dump(mode="json", exclude_none=True))

    def stored_client_info(self) -> OAuthClientInformationFull | None:
        """The registration on file, read synchronously (the provider needs its redirect port up front)."""
        raw = self._load().get("client_info")
        try:
            return OAuthClientInformationFull.model_validate(raw) if raw else None
        except ValueError:
            return None

    def stored_metadata(self) -> OAuthMetadata | None:
        raw = self._load().get("oauth_metadata")
        try:
            return OAuthMetadata.model_validate(raw) if raw else None
        except ValueError:
            return None

    def store_metadata(self, metadata: OAuthMetadata) -> None:
        self._save(oauth_metadata=metadata.model_dump(mode="json", exclude_none=True))

    def clear(self) -> None:
        _removed(self.path)


def private_directory(directory: Path) -> None:
    """``directory``, created 0700 if missing; one that others may write to is made private when it
    is the person's own, and refused when it is not. Whoever can write a directory can swap the token
    file in it for their own (tokens for their account) or a link to a file of the person's."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name != "posix":
        return
    info = os.stat(directory)
    if not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return
    who = "anyone" if info.st_mode & stat.S_IWOTH else "its group"
    if info.st_uid != os.getuid():
        raise AuthError(
            f"the token directory {directory} may be written by {who} and is not yours, so mcpnb keeps "
            f"no tokens there; set {TOKEN_DIR_ENV} to a directory only you can write"
        )
    os.chmod(directory, stat.S_IMODE(info.st_mode) & ~0o077)
    tell_person(
        f"the token directory {directory} could be written by {who}: mcpnb made it private to you "
        "(no access for others), so nobody else can replace the tokens it keeps there"
    )


def _expiry(tokens: OAuthToken) -> float | None:
    return time.time() + tokens.expires_in if tokens.expires_in else None


_MEMORY: dict[tuple[str, ...], MemoryTokenStorage] = {}


def memory_storage(*key: str) -> MemoryTokenStorage:
    """The process-wide store for ``key`` (server name first), created on first use."""
    return _MEMORY.setdefault(tuple(key), MemoryTokenStorage())


def forget_tokens(server: str) -> None:
    """Drop what mcpnb holds for ``server``: memory stores and the token file (a 'log out')."""
    for key in [k for k in _MEMORY if k[0] == server]:
        del _MEMORY[key]
    _removed(token_path(server))


def _removed(path: Path) -> None:
    """``path`` removed; one that cannot be (its folder read-only) is not read again by this kernel,
    said once: a sign-out must not leave the old tokens in use."""
    signed_out = _HELD.pop(str(path), None) == {}  # already: said
    try:
        path.unlink()
    except (FileNotFoundError, NotADirectoryError):  # never kept on disk
        pass
    except OSError as exc:
        _HELD[str(path)] = {}
        if not signed_out:
            tell_person(
                f"mcpnb could not remove {path} ({exc.strerror or exc}): this kernel no longer reads "
                "it, but a new one would; delete it yourself to sign out everywhere"
            )
