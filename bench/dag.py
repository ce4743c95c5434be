"""``dag``: ``snakemake -n --nolock`` on the full default DAG against ``snakemake --version``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.common import Sample, interleave, load_average, med, spread


def cmd_dag(args) -> None:
    snakemake = shutil.which("snakemake", path=str(Path(sys.executable).parent)) or "snakemake"
    commands = {
        "snakemake -n --nolock": [snakemake, "-n", "--nolock", *args.snakemake_args],
        "snakemake --version": [snakemake, "--version"],
    }
    jobs = None

    def run(cmd):
        def go():
            before = os.times()
            t = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=args.root)
            wall = time.perf_counter() - t
            after = os.times()
            if proc.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
            nonlocal jobs
            if m := re.search(r"^total\s+(\d+)\s*$", proc.stdout + proc.stderr, re.M):
                jobs = int(m.group(1))
            cpu = (after.children_user - before.children_user) + (
                after.children_system - before.children_system
            )
            return Sample(wall, cpu)

        return go

    contenders = {name: run(cmd) for name, cmd in commands.items()}
    for fn in contenders.values():
        fn()  # warm the page cache
    res = interleave(contenders, args.rounds)
    print(f"# dag: {args.rounds} interleaved rounds in {Path(args.root).resolve()}; medians (min..max)")
    print(f"# load average: {load_average()}")
    print(f"{'command':<24} {'wall s':>7} {'range':>13} {'CPU s':>7}")
    for name, samples in res.items():
        print(
            f"{name:<24} {med(samples, 'wall'):>7.2f} {spread(samples, 'wall'):>13} "
            f"{med(samples, 'cpu'):>7.2f}"
        )
    plan = med(res["snakemake -n --nolock"], "wall") - med(res["snakemake --version"], "wall")
    print(f"jobs in the DAG: {jobs}; planning beyond Snakemake's own start-up: {plan:.2f} s wall")
    start = res["snakemake --version"]
    if med(start, "wall") - med(start, "cpu") > 3:
        print(
            "Snakemake's start-up waits far longer than it computes. If SLURM's client is installed "
            "but its controller is not reachable, snakemake-executor-plugin-slurm's import runs "
            "`scontrol show config` (10 s timeout) on every invocation: start the controller, or "
            "run with SLURM_CONF=/dev/null when not submitting to SLURM (bench/README.md)."
        )
