"""Checkpoints on disk: written atomically (:func:`gatedrnn.io.files.atomic_torch_save`),
found newest first, verified before they are trusted, pruned as the run moves on.
An unreadable or truncated file is skipped with a warning, never resumed.
"""

from __future__ import annotations

import re
import sys
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import torch

from gatedrnn.train.config import TrainConfig, prefix_state_problem

CHECKPOINT_NAME = re.compile(r"^checkpoint_step(\d+)\.pt$")


# A finished run's whole state (model, optimizer, generator, history), kept beside its
# checkpoints: where a longer run of the same protocol starts (``start_from``).
FINAL_STATE_NAME = "final_state.pt"


def list_checkpoints(checkpoint_dir: Path) -> list[tuple[int, Path]]:
    """(step, path) of every checkpoint, newest first."""
    if not checkpoint_dir.is_dir():
        return []
    found = []
    for p in checkpoint_dir.iterdir():
        m = CHECKPOINT_NAME.match(p.name)
        if m:
            found.append((int(m.group(1)), p))
    return sorted(found, reverse=True)


def verify_archive(path: Path) -> None:
    """Raise if a file torch.save wrote fails its zip CRC-32 checks: torch.load does not
    check them, so a flipped byte in a tensor would otherwise load silently."""
    with zipfile.ZipFile(path) as archive:
        bad = archive.testzip()
    if bad is not None:
        raise zipfile.BadZipFile(f"CRC-32 mismatch in {bad}")


def load_state_file(path: Path, log: Callable[[str], None]) -> dict | None:
    """A checkpoint or final state that passes its CRC checks and loads; else None,
    reported (a warning and a WARNING line in the log)."""
    try:
        verify_archive(path)
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:
        message = f"state file {path} is unreadable ({type(err).__name__}: {err}); not using it"
        warnings.warn(message, stacklevel=3)
        log(f"WARNING: {message}")
        return None


def load_prefix_state(path: Path, cfg: TrainConfig, expected_prefix_hash: str, log: Callable[[str], None]):
    """The state at ``path`` (another run's, see :func:`prefix_state_problem`) if this
    run may start from it; else None, said in the log. A missing file is only a note:
    the run trains those steps itself and ends with the same bytes."""
    path = Path(path)
    if not path.is_file():
        log(f"note: no state to start from at {path}; training from step 0 (same result, slower)")
        return None
    state = load_state_file(path, log)
    if state is None:
        return None
    problem = prefix_state_problem(state, cfg, expected_prefix_hash)
    if problem is not None:
        message = f"state {path} cannot start this run: {problem}; training from step 0"
        warnings.warn(message, stacklevel=2)
        log(f"WARNING: {message}")
        return None
    return state


def load_latest_checkpoint(checkpoint_dir: Path, expected_hash: str, log: Callable[[str], None]):
    """The newest checkpoint that loads and matches ``expected_hash``; bad ones are
    reported and skipped (a truncated file from a kill mid-write, a foreign config)."""
    for step, path in list_checkpoints(checkpoint_dir):
        try:
            verify_archive(path)
            state = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as err:  # truncated or corrupted: fall back to the previous one
            message = f"checkpoint {path} is unreadable ({type(err).__name__}: {err}); discarding it"
            warnings.warn(message, stacklevel=2)
            log(f"WARNING: {message}")
            path.unlink(missing_ok=True)
            continue
        if state.get("config_hash") != expected_hash or state.get("step") != step:
            message = f"checkpoint {path} belongs to another configuration; ignoring it"
            warnings.warn(message, stacklevel=2)
            log(f"WARNING: {message}")
            continue
        return state
    return None


def canonical_strings(obj):
    """``obj`` with every string in its dicts, lists and tuples interned.

    torch.save pickles a string once and refers back to it wherever the same object
    recurs, so a state's bytes depend on which of its equal strings are one object:
    the optimizer's ``'step'`` key is the interned literal in a fresh run but a string
    unpickled from a checkpoint in a resumed one. Interned, equal strings are one
    object either way, and the same state gives the same file however it was reached.
    """
    if isinstance(obj, str):
        return sys.intern(obj)
    if isinstance(obj, dict):
        return {canonical_strings(k): canonical_strings(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [canonical_strings(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(canonical_strings(v) for v in obj)
    return obj


def prune_checkpoints(checkpoint_dir: Path, keep: int) -> None:
    for _, path in list_checkpoints(checkpoint_dir)[keep:]:
        path.unlink(missing_ok=True)
