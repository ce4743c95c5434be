"""Where a run writes, checked before its first job: a folder that is a file, or that
cannot be written (a read-only file system, no permission).

Snakemake creates each job's output folders as the job starts, so such a place ended
a run with Snakemake's own traceback (40 frames ending in ``OSError: [Errno 30]`` for a
read-only ``data/``; 18 for ``results/gates`` being a file, after the model it gates
had trained). The workflow's ``onstart`` asks :func:`place_problems` first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from gatedrnn.plan.paths import LOGS

# The folders under results/ whose runs' files sit in a folder per regime.
PER_REGIME = (
    "models",
    "gates",
    "checkpoints",
    "logs/train",
    "logs/gates",
    "benchmarks/train",
    "benchmarks/gates",
)


def output_folders(plan) -> set[str]:
    """Every folder the plan's jobs write into (relative to the working directory)."""
    folders = {"data", "results", LOGS}
    folders |= {os.path.dirname(dataset["corpus"]) for dataset in plan.datasets.values()}
    folders |= {os.path.dirname(path) for targets in plan.targets.values() for path in targets}
    folders |= {f"results/{kind}/{regime}" for kind in PER_REGIME for regime in plan.regimes}
    return folders


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _unwritable(path: Path) -> str:
    why = "is on a read-only file system" if _read_only(path) else "is not writable"
    return (
        f"{path}/ {why}, and the run writes into it: make it writable, or run in a working "
        "directory that is (--directory)"
    )


def place_problems(folders: Iterable[str], root: str | Path = ".") -> list[str]:
    """One line per place that stops a job from writing into ``folders``: the first
    path on the way that is a file, or the deepest existing folder that cannot be
    written; each says the fix."""
    problems: dict[str, None] = {}
    for folder in sorted(folders):
        path = Path(root)
        for part in Path(folder).parts:
            path = path / part
            if path.is_dir():
                continue
            if path.exists() or path.is_symlink():
                problems.setdefault(
                    f"{path} is a file, where the run writes a folder: move it away (or delete it) and rerun"
                )
            elif not os.access(path.parent, os.W_OK):
                problems.setdefault(_unwritable(path.parent))
            break
        else:
            if not os.access(path, os.W_OK):
                problems.setdefault(_unwritable(path))
    return list(problems)
