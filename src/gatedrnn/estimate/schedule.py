"""Wall time: the jobs placed longest-first on the machine's slots, and the report."""

from __future__ import annotations

import heapq

from gatedrnn.estimate.costs import TrainJob


def makespan(jobs: list[TrainJob], slots: int) -> float:
    """Wall time of the jobs, longest first, on ``slots`` parallel slots; a job that
    continues another's state starts only once that one has finished."""
    slots = max(1, slots)
    done: dict[str, float] = {}
    pending = sorted(jobs, key=lambda j: (-j.seconds, j.name))
    free = [0.0] * slots
    heapq.heapify(free)
    while pending:
        waiting = {j.name for j in pending}
        ready = [j for j in pending if j.after is None or j.after in done or j.after not in waiting]
        job = ready[0] if ready else pending[0]
        pending.remove(job)
        start = max(heapq.heappop(free), done.get(job.after, 0.0) if job.after else 0.0)
        done[job.name] = start + job.seconds
        heapq.heappush(free, done[job.name])
    return max(done.values(), default=0.0)


def format_hours(seconds: float) -> str:
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


# A projection times a few steps at one moment; a busy machine (other processes on its
# cores) runs the job slower: verify's 10.3 minutes took 15.3 on 2 shared cores (issue #52).
BUSY_FACTOR = 1.5


def format_range(seconds: float) -> str:
    """``10.3 to 15.5 min``: the projection, and the same on a busy machine."""
    low, high = format_hours(seconds), format_hours(seconds * BUSY_FACTOR)
    if low.split()[-1] == high.split()[-1]:
        low = low.rsplit(" ", 1)[0]
    return f"{low} to {high}"


def report(jobs: list[TrainJob], cores: int, threads: int) -> str:
    slots = max(1, cores // max(1, threads))
    cpu = sum(j.seconds for j in jobs) * threads
    wall = makespan(jobs, slots)
    by_regime: dict[str, list[TrainJob]] = {}
    for job in jobs:
        by_regime.setdefault(job.regime, []).append(job)
    width = max([28, *map(len, by_regime)])  # round two's names run longer
    lines = [
        f"{len(jobs)} training jobs to run, {threads} thread(s) each, {slots} at a time (--cores {cores}):",
        f"  projected CPU time  {format_hours(cpu)}",
        f"  projected wall time {format_hours(wall)}",
        f"  costs from this machine's benchmarks: {sum(j.source == 'benchmark' for j in jobs)} jobs; "
        f"from calibration: {sum(j.source == 'calibration' for j in jobs)} jobs",
        f"  steps to train: {sum(j.steps for j in jobs):,} "
        f"({sum(1 for j in jobs if j.after)} jobs continue a shorter run's state)",
        "",
        f"{'regime':<{width}} {'jobs':>5} {'steps':>8} {'CPU':>10}",
    ]
    for regime, group in by_regime.items():
        lines.append(f"{regime:<{width}} {len(group):>5} {sum(j.steps for j in group):>8,} "
                     f"{format_hours(sum(j.seconds for j in group) * threads):>10}")  # fmt: skip
    return "\n".join(lines)
