"""Timing, interleaved rounds and sample statistics shared by every benchmark.

Contenders are timed in interleaved rounds (the order rotates each round) and
reported as medians and ratios, so that a machine shared with other work slows
them alike. Each timing is taken twice: wall clock (``perf_counter``) and the
process's CPU time (user + system, ``process_time``); on a busy machine the CPU
time of a one-thread run is the steadier of the two.
"""

from __future__ import annotations

import dataclasses
import math
import os
import resource
import statistics
import time
from collections.abc import Callable

import torch


@dataclasses.dataclass
class Sample:
    wall: float
    cpu: float
    faults: float = math.nan  # minor page faults (resource.getrusage), where counted


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def timed(fn: Callable[[], object], device: torch.device) -> Sample:
    synchronize(device)
    w0, c0, f0 = time.perf_counter(), time.process_time(), minor_faults()
    fn()
    synchronize(device)
    return Sample(time.perf_counter() - w0, time.process_time() - c0, minor_faults() - f0)


def interleave(contenders: dict[str, Callable[[], Sample]], rounds: int) -> dict[str, list[Sample]]:
    """Each round runs every contender once; the order rotates round to round (ABC, BCA, CAB...)."""
    names = list(contenders)
    out: dict[str, list[Sample]] = {n: [] for n in names}
    for r in range(rounds if names else 0):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            out[name].append(contenders[name]())
    return out


def med(samples: list[Sample], attr: str) -> float:
    return statistics.median(getattr(s, attr) for s in samples)


def spread(samples: list[Sample], attr: str) -> str:
    values = sorted(getattr(s, attr) for s in samples)
    return f"{values[0]:.3g}..{values[-1]:.3g}"


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def label(cell: str, hidden: int) -> str:
    return f"{cell} w{hidden}"


def parse_models(text: str) -> list[tuple[str, int]]:
    models = []
    for item in text.split(","):
        cell, width = item.split(":")
        models.append((cell.strip(), int(width)))
    return models


def format_models(models: list[tuple[str, int]]) -> str:
    return ",".join(f"{cell}:{width}" for cell, width in models)
