"""Where OAuth tokens live between requests: process memory (default) or a 0600 JSON file.

Both implement the SDK's ``TokenStorage`` protocol. They also remember what the SDK forgets between
providers: *when* the access token expires and *where* the token endpoint is (the authorization
server's metadata). Without those, a provider built on stored tokens sends an expired token and
waits for a 401, or refreshes against the MCP server's own origin and fails.

Memory stores are shared per server within the process: the pool builds a new provider on every
(re)connect, and a person who authorized in a browser once should not have to do it again because
the server restarted.

A token file is shared by every process of the person's that connects to that server (three
notebooks side by side, a papermill run, a script): each change to it is read, merged and written
while holding a lock beside it (:meth:`FileTokenStorage.writing`), and a refresh waits for any other
process's refresh of the same file (:meth:`FileTokenStorage.refresh_turn`), so that it reads, and
refreshes with, what that one stored. A browser sign-in waits in the same way for another process's
sign-in to the same server (:meth:`FileTokenStorage.sign_in_turn`), and uses what it stored instead
of asking the person twice. Tokens gone from the file are a sign-out (:func:`forget_tokens` in another
process, or the person deleting the file): a refresh never writes them back
(:meth:`FileTokenStorage.replacing`). The locks are ``flock`` locks (POSIX; elsewhere none is taken),
which the system drops when their process ends however it ends.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
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
        #: The client the tokens given to :meth:`set_tokens` were issued to (its provider's), kept
        #: with them: two kernels that each registered a client (both signed in at once) share the
        #: file, and one's tokens are refreshed by the other's client only to be refused.
        self.client_id: str | None = None
        #: That client's registration, where it registered (a configured client's secret stays in
        #: the configuration): stored with the tokens as the file's registration, so that the file
        #: never pairs one kernel's tokens with another's client, which a kernel taking them up
        #: (a new one, or one whose own tokens the server refused) could not refresh them with.
        self.registration: OAuthClientInformationFull | None = None
        self._replacing = False  # within replacing(): set_tokens only replaces tokens on file
        #: Whether the last set_tokens within :meth:`replacing` found no tokens to replace (a sign-out
        #: since they were read) and wrote nothing.
        self.gone = False

    def __repr__(self) -> str:
        return f"FileTokenStorage(path={str(self.path)!r})"

    def signature(self) -> tuple[Any, ...]:
        """What changes whenever the file is written or removed (by any process), read with one
        ``stat``: a provider re-reads the file only when it changed, not on every request."""
        try:
            info = os.stat(self.path)
            on_disk: tuple[int, int, int] | None = (info.st_ino, info.st_mtime_ns, info.st_size)
        except OSError:
            on_disk = None
        held = _HELD.get(str(self.path))
        return (on_disk, None if held is None else id(held))

    def signed_out(self) -> bool:
        """Whether the file says this server's sign-in was removed: no file (a sign-out removes
        it), or this server's record with no tokens in it. A file written for another URL under
        the same name, or one that cannot be read (a write cut short), says nothing of this
        sign-in: a kernel holding tokens goes on with them."""
        data = _HELD.get(str(self.path))
        if data is None:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                return True
            except (OSError, ValueError):
                return False
        return not data or (
            isinstance(data, dict) and data.get("server_url") == self.server_url and not data.get("tokens")
        )

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
        def merged() -> dict[str, Any] | None:
            found = self._load()
            if "tokens" in changes and self._replacing and not found.get("tokens") and self.signed_out():
                self.gone = True  # signed out since they were read: a refresh does not undo that
                return None
            return {**found, **changes, "server_url": self.server_url}

        try:
            with self.writing():  # what another process wrote meanwhile is merged, not written over
                data = merged()
                if data is None:
                    return
                self._write(data)
        except OSError as exc:
            data = merged()
            if data is None:
                return
            if str(self.path) not in _HELD:
                tell_person(
                    f"mcpnb could not keep the sign-in in {self.path.parent} ({exc.strerror or exc}): it "
                    f"is held until the kernel stops, and asked for again after; set {TOKEN_DIR_ENV} to a "
                    "folder you can write to keep it"
                )
            _HELD[str(self.path)] = data
        else:
            _HELD.pop(str(self.path), None)

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Held while this process reads, merges and writes the file. Two processes that save at
        once (one a refreshed token, the other its registration or the server's metadata) each
        read the file before the other wrote it, and the second write put back what the first had
        replaced: a refresh token the server had since spent, say. Brief (no request is made
        while it is held), so it is waited for without a timeout."""
        private_directory(self.path.parent)
        lock = _FileLock(self._beside("lock"))
        lock.acquire()
        try:
            yield
        finally:
            lock.release()

    async def refresh_turn(
        self, patience: float, *, slow: Callable[[], None] | None = None, after: float = 2.0
    ) -> _FileLock | None:
        """This process's turn to refresh the tokens in the file, once no other process is
        refreshing them (held until the refreshed tokens are stored; ``release()`` it). Waited for
        up to ``patience`` seconds (a refresh is one token request), then None: the refresh goes on
        without it. None also where no lock can be made (a read-only folder, not POSIX). ``slow()``
        is called once the wait has lasted ``after`` seconds: a cell that stands still says why."""
        return await self._turn("refresh", patience, slow, after)

    async def sign_in_turn(
        self, patience: float, *, slow: Callable[[], None] | None = None, after: float = 0.0
    ) -> _FileLock | None:
        """This process's turn to sign in to the server in a browser, once no other process is
        signing in to it (held until the new tokens are stored or the sign-in failed; ``release()``
        it). Two kernels that both need a sign-in (the first run of two notebooks, or both after a
        sign-out) showed two links, and the person approved twice; the second now waits for the
        first and uses what it stored. Waited for up to ``patience`` seconds (as long as a sign-in
        may take), then None: the sign-in goes on without it; None also where no lock can be made."""
        return await self._turn("signin", patience, slow, after)

    async def _turn(
        self, what: str, patience: float, slow: Callable[[], None] | None, after: float
    ) -> _FileLock | None:
        lock = _FileLock(self._beside(what))
        start = time.monotonic()
        try:
            private_directory(self.path.parent)
            while not lock.acquire(wait=False):
                waited = time.monotonic() - start
                if waited > patience:
                    return None
                if slow is not None and waited >= after:
                    slow, said = None, slow
                    said()
                await anyio.sleep(0.05)
        except (OSError, AuthError):
            return None
        return lock

    @contextlib.contextmanager
    def replacing(self) -> Iterator[None]:
        """Held while a refresh stores its tokens: they replace tokens on file, and are not written
        where there are none any more (:attr:`gone` then says so). Another process that signed out
        (removed the file) meanwhile would otherwise have its sign-out undone by this one, which
        still held the tokens in memory, refreshed them and wrote them back."""
        self._replacing, self.gone = True, False
        try:
            yield
        finally:
            self._replacing = False

    def _beside(self, what: str) -> Path:
        """A lock file beside the token file (a dot name: never a server's file, see token_path)."""
        return self.path.parent / f".{self.path.name}.{what}"

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
        registration = self.registration
        self._save(
            tokens=tokens.model_dump(mode="json", exclude_none=True),
            expires_at=_expiry(tokens),
            tokens_client_id=self.client_id,
            **(
                {}
                if registration is None
                else {"client_info": registration.model_dump(mode="json", exclude_none=True)}
            ),
        )

    def tokens_client_id(self) -> str | None:
        """The client the stored tokens were issued to, where the process that stored them said."""
        value = self._load().get("tokens_client_id")
        return value if isinstance(value, str) else None

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


#: What ``flock`` says on a file system that has no locks: then none is taken (as where there is no
#: ``fcntl``), rather than failing every save and sending the person to sign in again and again.
_NO_LOCKS = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL})


class _FileLock:
    """An exclusive ``flock`` on a file at ``path``: one holder among every process and every open of
    it. The file is there only while the lock is held (no file of its own stays in the token
    folder): its holder removes it before letting go, and whoever then got the lock of a removed
    file takes the one there now. Created 0600, never through a link. No lock where there is no
    ``fcntl`` (Windows)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, *, wait: bool = True) -> bool:
        """Whether the lock is now held (``wait=False``: taken only if free). OSError: no lock file
        can be made there."""
        if os.name != "posix":
            return True
        import fcntl

        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
                now = os.stat(self.path, follow_symlinks=False)
            except BlockingIOError:
                os.close(fd)
                return False
            except FileNotFoundError:  # its holder removed it as this process got the lock
                os.close(fd)
                continue
            except OSError as exc:
                os.close(fd)
                if exc.errno not in _NO_LOCKS:
                    raise
                with contextlib.suppress(OSError):  # no lock on this file system (NFS without
                    os.unlink(self.path)  # lockd, CIFS, some FUSE): go on without one, as on Windows
                return True
            except BaseException:
                os.close(fd)
                raise
            if os.path.samestat(os.fstat(fd), now):
                self._fd = fd
                return True
            os.close(fd)  # the lock of a file removed meanwhile: the one there now is the lock

    def release(self) -> None:
        """Let go of the lock, removing its file first; safe to repeat."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            os.close(fd)


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
    lock = _FileLock(path.parent / f".{path.name}.lock")  # FileTokenStorage.writing's: not mid-save
    try:
        locked = path.parent.is_dir() and lock.acquire()
    except OSError:
        locked = False
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
    finally:
        if locked:
            lock.release()
