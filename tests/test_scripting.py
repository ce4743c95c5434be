"""The rule scripts' glue (gatedrnn.scripting): a script's torch threads are the rule's,
whether torch was loaded before ``run_logged`` or only inside the script's work, and a
rule that reads only tables does not load torch at all (seconds per job, issue #50)."""

from __future__ import annotations

import subprocess
import sys

import pytest

RUN = """
import os, sys
os.environ.pop("OMP_NUM_THREADS", None); os.environ.pop("MKL_NUM_THREADS", None)
{before}
from gatedrnn.scripting import run_logged
seen = {{}}
def main(log):
    seen["loaded before the work"] = "torch" in sys.modules
    import torch
    seen["threads"] = torch.get_num_threads()
run_logged(sys.argv[1], main, threads={threads})
print(seen["loaded before the work"], seen["threads"])
"""


def run(tmp_path, threads: int, before: str = "") -> str:
    code = RUN.format(before=before, threads=threads)
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "rule.log")], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr + (tmp_path / "rule.log").read_text()
    return proc.stdout.strip()


@pytest.mark.parametrize("threads", [1, 2])
def test_torch_loaded_inside_the_work_runs_the_rules_threads(tmp_path, threads):
    assert run(tmp_path, threads) == f"False {threads}"


@pytest.mark.parametrize("threads", [1, 2])
def test_torch_loaded_before_runs_the_rules_threads(tmp_path, threads):
    assert run(tmp_path, threads, before="import torch; torch.set_num_threads(3)") == f"True {threads}"


def test_the_glue_does_not_load_torch():
    code = "import sys, gatedrnn.scripting; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "False", proc.stderr
