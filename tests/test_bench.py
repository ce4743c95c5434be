"""The benchmarks run (at toy size) and print what their READMEs quote. No timing is asserted."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import pytest
from conftest import REPO


def run(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=600, cwd=REPO, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def table_row(out: str, name: str) -> list[str]:
    rows = [line for line in out.splitlines() if line.startswith(name)]
    assert rows, f"no row for {name!r} in:\n{out}"
    return rows[0].split()


@pytest.mark.parametrize("mode", [[], ["--in-process"]], ids=["fresh processes", "in process"])
def test_train_step_bench_prints_a_ratio_per_model(mode):
    out = run(
        "-m", "gatedrnn.bench", "train-step", "--models", "gru:8,cho_gru:8",
        "--steps", "1", "--rounds", "1", "--share-steps", "0", "--threads", "1", *mode,
    )  # fmt: skip
    assert ("fresh process" in out) != bool(mode)
    for model in ("gru w8", "cho_gru w8"):
        row = table_row(out, model)
        ratio_cpu = float(row[row.index("|", 8) + 2])  # train_model / bare, CPU time
        assert math.isfinite(ratio_cpu) and ratio_cpu > 0
    assert re.search(r"gru w8: train_model -?\d+, bare \d+, fwd\+bwd \d+", out)


def test_cell_bench_times_the_fast_path_beside_the_recorded_loop():
    out = run("bench/bench_cells.py", "--threads", "1", "--repeats", "1", "--width", "8")
    for name in ("gru", "cho_gru", "gru_noreset", "cho_gru recorded", "gru_noreset recorded"):
        assert name in out
    assert float(table_row(out, "gru ")[-1]) == 1.0  # nn.GRU against itself
