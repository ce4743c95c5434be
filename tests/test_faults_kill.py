"""Kill -9 mid-training, rerun the same command, lose nothing (the real CLI).

A reference run makes the training-dependent tables of a small grid (the smoke
config, one seed, the three models of the GRU-against-LSTM comparison, 160 steps so
a kill can land mid-training). Two faulted runs must end byte-identical to it:

- one training job is killed with SIGKILL after a seeded random checkpoint; its newest
  checkpoint is then truncated and a half-written temp file left beside it (a kill
  during the checkpoint write); the same command is rerun;
- one training job gets SIGTERM (a scheduler's time limit) after a seeded random
  checkpoint: it finishes the step in progress, checkpoints it and exits 143; the same
  command resumes from that very step;
- the whole Snakemake process group is killed with SIGKILL at a seeded random point and
  one bit of the newest checkpoint is flipped; the same command is refused by the lock
  Snakemake left (its message names ``--unlock``), and after ``snakemake --unlock`` the
  same command finishes.

While the reference trains (frozen with SIGSTOP for the moment, so that it cannot end
first on a slow machine), a second Snakemake on the same directory must be refused by
the lock, and the first must finish unharmed.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import time
from types import SimpleNamespace

import pytest
from conftest import run_snakemake
from faults.damage import flip_a_tensor_byte
from faults.runs import (
    finish,
    newest_checkpoint_step,
    output_differences,
    process_group_alive,
    smoke_config,
    start_snakemake,
    train_jobs,
    wait_until,
    write_config,
)

from gatedrnn.train.checkpoints import FINAL_STATE_NAME, list_checkpoints
from gatedrnn.train.interrupt import SIGTERM_EXIT_STATUS

pytestmark = pytest.mark.workflow

STEPS, EVERY = 160, 20
REFERENCE_WIDTH = smoke_config()["grid"]["reference_width"]
MODELS = [("lstm", REFERENCE_WIDTH), ("gru", "budget"), ("gru", REFERENCE_WIDTH)]
OVERRIDES = {
    "train": {"steps": STEPS, "eval_every": EVERY, "checkpoint_every": EVERY},
    # longer training goes past train.steps (gatedrnn.plan.checks); not among the targets
    "regimes": {"steps_x4": {"steps": 4 * STEPS}},
    "grid": {"seeds": [0], "models": [{"cell": c, "width": w} for c, w in MODELS]},
    # No sweep: its 40-step point at this lr would be the first 40 steps of every model
    # here, trained in a process of its own first (prefix sharing has its own tests).
    "regime_sweep": {"enabled": False},
}
MODEL_IDS = [f"{c}_{'budget' if w == 'budget' else 'w'}{REFERENCE_WIDTH}_s0" for c, w in MODELS]
TARGETS = [
    "results/tables/matched_widths.csv",
    "results/tables/gru_vs_lstm.csv",
    "results/tables/gru_advantage_split.csv",
    "results/tables/val_loss_curves.csv",
]
ARGS = ("--cores", "2", *TARGETS)
TIMEOUT = 600


def kill_point(seed: int) -> SimpleNamespace:
    """A seeded random point mid-training: a model, a checkpoint it must have written
    (at least two checkpoints to go), and a delay after it."""
    rng = random.Random(seed)
    return SimpleNamespace(
        rng=rng,
        model=rng.choice(MODEL_IDS),
        after_checkpoint=rng.randrange(EVERY, STEPS - 2 * EVERY + 1, EVERY),
        delay=rng.uniform(0.0, 0.05),
    )


def checkpoint_dir(workdir, model):
    return workdir / "results" / "checkpoints" / "default" / model


def wait_for_kill_point(proc, workdir, point):
    ckpt = checkpoint_dir(workdir, point.model)
    wait_until(
        lambda: newest_checkpoint_step(ckpt) >= point.after_checkpoint,
        TIMEOUT, f"{point.model} checkpoint {point.after_checkpoint}", proc,
    )  # fmt: skip
    time.sleep(point.delay)
    assert not (workdir / f"results/models/default/{point.model}/model.pt").exists(), "kill landed too late"


def assert_no_losses(reference, workdir, fault_ledger):
    differences = output_differences(reference, workdir)
    fault_ledger.files_lost(
        f"{workdir.name}/{rel} ({kind})" for rel, kind in differences.items() if kind != "extra"
    )
    assert differences == {}, differences
    assert not list((workdir / "results").rglob("*.tmp*")), "temp files left behind"
    kept = sorted((workdir / "results" / "checkpoints").rglob("*.pt"))
    # only each run's final state (a longer run's start, compared byte for byte above)
    assert all(p.name == FINAL_STATE_NAME for p in kept), "spent checkpoints left behind"
    assert {p.parent.name for p in kept if p.parent.parent.name == "default"} == set(MODEL_IDS)


@pytest.fixture(scope="module")
def configfile(tmp_path_factory):
    return write_config(tmp_path_factory.mktemp("kill_config") / "kill.yaml", OVERRIDES)


@pytest.fixture(scope="module")
def reference(tmp_path_factory, configfile):
    """The uninterrupted run; while it trains, a second Snakemake tries the same directory."""
    workdir = tmp_path_factory.mktemp("kill") / "reference"
    workdir.mkdir()
    first = start_snakemake(workdir, configfile, *ARGS, log_name="first")
    wait_until(lambda: train_jobs(first.pid), TIMEOUT, "a training job", first)
    # freeze the first run while the second tries, so it cannot finish first on a slow machine
    os.killpg(first.pid, signal.SIGSTOP)
    try:
        second = run_snakemake(workdir, *ARGS, configfile=configfile, check=False, timeout=TIMEOUT)
        first_running = first.poll() is None
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    first_rc, first_output = finish(first, TIMEOUT)
    return SimpleNamespace(
        workdir=workdir, first_rc=first_rc, first_output=first_output, second=second,
        first_running_when_second_ended=first_running,
    )  # fmt: skip


def test_second_snakemake_on_a_running_directory_is_refused(reference, configfile, fault_ledger):
    name = fault_ledger.injected("concurrency: a second snakemake on a directory in use")
    second = reference.second.stdout + reference.second.stderr
    assert reference.first_running_when_second_ended, "the first run ended before the second was refused"
    assert reference.second.returncode != 0
    assert "LockException" in second and "cannot be locked" in second
    # the first run finished unharmed: exit 0, every target there, nothing left to do
    assert reference.first_rc == 0, reference.first_output[-4000:]
    missing = [t for t in TARGETS if not (reference.workdir / t).is_file()]
    missing += [
        m for m in MODEL_IDS if not (reference.workdir / f"results/models/default/{m}/model.pt").is_file()
    ]
    fault_ledger.files_lost(f"reference/{m}" for m in missing)
    assert not missing
    dry = run_snakemake(reference.workdir, "-n", *ARGS, configfile=configfile)
    assert "Nothing to be done" in dry.stdout + dry.stderr
    fault_ledger.survived(name)


def test_kill_9_of_a_training_job_then_the_same_command(reference, configfile, tmp_path, fault_ledger):
    point = kill_point(seed=20261129)
    workdir = tmp_path / "killed_job"
    workdir.mkdir()
    proc = start_snakemake(workdir, configfile, *ARGS)
    wait_for_kill_point(proc, workdir, point)
    pid = train_jobs(proc.pid)[point.model]
    os.kill(pid, signal.SIGKILL)
    kill = fault_ledger.injected(
        f"kill -9 of training job {point.model} after checkpoint {point.after_checkpoint} "
        f"+ {point.delay * 1000:.0f} ms"
    )
    rc, output = finish(proc, TIMEOUT)
    assert rc != 0 and "Error in rule train" in output

    # a kill during a checkpoint write: the next save's temp file is half there, and the
    # newest checkpoint is truncated (renamed before its data reached the disk)
    ckpt = checkpoint_dir(workdir, point.model)
    found = list_checkpoints(ckpt)
    (newest_step, newest), previous = found[0], (found[1][0] if len(found) > 1 else None)
    assert newest_step >= point.after_checkpoint
    data = newest.read_bytes()
    leftover = ckpt / f".checkpoint_step{newest_step + EVERY}.pt.tmp{pid}"
    leftover.write_bytes(data[: len(data) // 2])
    newest.write_bytes(data[: point.rng.randrange(1, len(data))])
    writes = [
        fault_ledger.injected(f"half-written checkpoint temp file beside {point.model}'s checkpoints"),
        fault_ledger.injected(f"truncated newest checkpoint (step {newest_step}) of {point.model}"),
    ]

    again = run_snakemake(workdir, *ARGS, configfile=configfile, check=False, timeout=TIMEOUT)
    assert again.returncode == 0, (again.stdout + again.stderr)[-4000:]
    log = (workdir / f"results/logs/train/default/{point.model}.log").read_text()
    assert f"WARNING: checkpoint {newest.relative_to(workdir)} is unreadable" in log
    assert "Traceback" not in log
    summary = json.loads((workdir / f"results/models/default/{point.model}/summary.json").read_text())
    assert summary["resumed_from_step"] == previous
    if previous is not None:
        assert f"resumed from checkpoint at step {previous}" in log
    assert_no_losses(reference.workdir, workdir, fault_ledger)
    for name in (kill, *writes):
        fault_ledger.survived(name)


def test_sigterm_of_a_training_job_then_the_same_command(reference, configfile, tmp_path, fault_ledger):
    point = kill_point(seed=1520)
    workdir = tmp_path / "sigterm_job"
    workdir.mkdir()
    proc = start_snakemake(workdir, configfile, *ARGS)
    wait_for_kill_point(proc, workdir, point)
    os.kill(train_jobs(proc.pid)[point.model], signal.SIGTERM)
    term = fault_ledger.injected(
        f"SIGTERM to training job {point.model} after checkpoint {point.after_checkpoint} "
        f"+ {point.delay * 1000:.0f} ms"
    )
    rc, output = finish(proc, TIMEOUT)
    assert rc != 0 and "Error in rule train" in output
    log_path = workdir / f"results/logs/train/default/{point.model}.log"
    stopped = re.search(
        r"SIGTERM received: stopped after step (\d+) of \d+ and saved checkpoint (\S+);", output
    )
    assert stopped, output[-4000:]
    step = int(stopped.group(1))
    assert step >= point.after_checkpoint and stopped.group(0) in log_path.read_text()
    assert list_checkpoints(checkpoint_dir(workdir, point.model))[0][0] == step
    assert f"ERROR: {stopped.group(0)}" in output  # the job's own line on the console
    assert f"exit status {SIGTERM_EXIT_STATUS}" in output, output[-4000:]

    again = run_snakemake(workdir, *ARGS, configfile=configfile, check=False, timeout=TIMEOUT)
    assert again.returncode == 0, (again.stdout + again.stderr)[-4000:]
    log = log_path.read_text()
    assert f"resumed from checkpoint at step {step}" in log and "Traceback" not in log
    summary = json.loads((workdir / f"results/models/default/{point.model}/summary.json").read_text())
    assert summary["resumed_from_step"] == step
    assert_no_losses(reference.workdir, workdir, fault_ledger)
    fault_ledger.survived(term)


def test_kill_9_of_snakemake_then_unlock_and_the_same_command(reference, configfile, tmp_path, fault_ledger):
    point = kill_point(seed=4242)
    workdir = tmp_path / "killed_snakemake"
    workdir.mkdir()
    proc = start_snakemake(workdir, configfile, *ARGS)
    wait_for_kill_point(proc, workdir, point)
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and every job it started
    kill = fault_ledger.injected(
        f"kill -9 of the snakemake process group while {point.model} trains "
        f"(after checkpoint {point.after_checkpoint} + {point.delay * 1000:.0f} ms)"
    )
    finish(proc, TIMEOUT)
    wait_until(lambda: not process_group_alive(proc.pid), 30, "the killed jobs to go")

    ckpt = checkpoint_dir(workdir, point.model)
    found = list_checkpoints(ckpt)
    (newest_step, newest), previous = found[0], (found[1][0] if len(found) > 1 else None)
    flip_a_tensor_byte(newest, point.rng)
    flip = fault_ledger.injected(
        f"one bit flipped in the newest checkpoint (step {newest_step}) of {point.model}"
    )

    before = {p: p.read_bytes() for p in (workdir / "results").rglob("*") if p.is_file()}
    refused = run_snakemake(workdir, *ARGS, configfile=configfile, check=False, timeout=TIMEOUT)
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0
    assert "cannot be locked" in output and "--unlock" in output  # the message names the fix
    gone = [p for p, data in before.items() if not p.is_file() or p.read_bytes() != data]
    fault_ledger.files_lost(str(p.relative_to(workdir)) for p in gone)
    assert not gone, "a refused run touched files"

    run_snakemake(workdir, "--unlock", configfile=configfile, timeout=TIMEOUT)
    again = run_snakemake(workdir, *ARGS, configfile=configfile, check=False, timeout=TIMEOUT)
    assert again.returncode == 0, (again.stdout + again.stderr)[-4000:]
    log = (workdir / f"results/logs/train/default/{point.model}.log").read_text()
    assert f"WARNING: checkpoint {newest.relative_to(workdir)} is unreadable" in log and "CRC-32" in log
    assert "Traceback" not in log
    summary = json.loads((workdir / f"results/models/default/{point.model}/summary.json").read_text())
    assert summary["resumed_from_step"] == previous
    assert_no_losses(reference.workdir, workdir, fault_ledger)
    fault_ledger.survived(kill)
    fault_ledger.survived(flip)
