"""Files written whole or not at all, read back with their name in every error, and
content hashes.

Every writer goes through a temporary file in the same directory and an atomic
rename, so a killed job never leaves a half-written file under a final name. A
reader that meets an empty or cut-short file anyway (a copy that failed, a full
disk elsewhere) says which file, not a bare ``JSONDecodeError`` or ``EOFError``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
from pathlib import Path


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def damaged_file_error(path, what: str, err: Exception) -> ValueError:
    """The error for an intermediate file that cannot be read: its name, what it is,
    and the fix (the rule that wrote it writes it again)."""
    path = Path(path)
    size = path.stat().st_size if path.is_file() else None
    state = "is empty (0 bytes)" if size == 0 else f"cannot be read ({type(err).__name__}: {err})"
    return ValueError(
        f"{what} {path} {state}: it is truncated or damaged; delete it and rerun the workflow, "
        "which writes it again"
    )


def read_json(path, what: str = "file"):
    """The JSON document in ``path``; an empty or truncated file is a ValueError naming it."""
    try:
        return json.loads(Path(path).read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise damaged_file_error(path, what, err) from None


class FolderInUse(OSError):
    """Another process holds the folder's lock (:func:`exclusive_folder_lock`)."""


@contextlib.contextmanager
def exclusive_folder_lock(folder, what: str, log=print):
    """Hold an exclusive lock (``flock``) on ``folder`` for the duration, or refuse at
    once (:class:`FolderInUse`, naming the folder) if another process holds it. The
    kernel releases the lock when the holder dies, so a killed job leaves nothing to
    clean. A file system that cannot lock a folder (some NFS mounts) is said in the
    log and the job goes on unlocked, as it did before.

    Why: Snakemake's directory lock checks for other runs' lock files and then writes
    its own, so two ``snakemake`` runs started at the same instant can both pass it
    and both start the same job (docs/protocol.md, "Two runs at once")."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise FolderInUse(
                    f"{folder} is locked by another process running {what}: two snakemake runs "
                    "on this directory started the same job. Let the other run finish (it makes "
                    "this output), then run this command again"
                ) from None
            log(f"note: {folder} cannot be locked on this file system ({err.strerror}); going on unlocked")
        yield folder
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_torch_save(obj, path: Path) -> None:
    """Write to a temp file in the same directory, fsync, then rename over ``path``."""
    import torch  # here: reading JSON must not start torch (the numerics are pinned first)

    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            torch.save(obj, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except (OSError, RuntimeError) as err:
        cause = err if isinstance(err, OSError) else err.__context__
        if isinstance(cause, OSError) and cause.filename is None:
            # name the file (torch's zip writer even hides a full disk behind a RuntimeError)
            raise OSError(cause.errno, cause.strerror, str(path)) from err
        raise
    finally:
        if tmp.exists():
            tmp.unlink()
