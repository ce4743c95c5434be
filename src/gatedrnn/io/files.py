"""Files written whole or not at all, and content hashes.

Every writer goes through a temporary file in the same directory and an atomic
rename, so a killed job never leaves a half-written file under a final name.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import torch


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
