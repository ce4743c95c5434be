"""Training faults: a divergent run and an unwritable results directory.

A run with an absurd learning rate stops at the step whose loss trips the check and is
recorded as a diverged result (its outputs marked, the step and the loss named, the job
succeeding so that one bad sweep point never stops the run); a results directory that
cannot be written gives one clear error naming the path and the fix, at the unit level
(the rule script's glue, gatedrnn.scripting.run_logged) and through the real ``snakemake``.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from types import SimpleNamespace

import pandas as pd
import pytest
import torch
from conftest import copy_tree, run_snakemake, snakemake_cmd
from faults.runs import smoke_config, write_config

from gatedrnn.io.corpus import CorpusSpec, write_corpus
from gatedrnn.scripting import UNWRITABLE_HINT, run_logged
from gatedrnn.train.loop import load_model
from gatedrnn.train.pipeline import train_one

torch.set_num_threads(1)

SMOKE = smoke_config()
TRAIN_KEYS = ("optimizer", "lr", "momentum", "batch_size", "seq_len", "steps", "clip_norm", "eval_every",
              "val_windows", "embed_dim", "layers", "forget_bias")  # fmt: skip
MODEL = f"lstm_w{SMOKE['grid']['reference_width']}_s0"
MODEL_PT = f"results/models/default/{MODEL}/model.pt"
DIVERGED = re.compile(r"training diverged at step (\d+): loss is (\S+) nats/char")


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("corpus")
    spec = CorpusSpec(source="synthetic", synthetic_chars=6000, synthetic_seed=0)
    write_corpus(spec, directory / "corpus.txt", directory / "corpus.json")
    return directory


def train_in(tmp_path, corpus_files, outputs_dir, checkpoint_dir, **train_overrides):
    cfg = {key: SMOKE["train"][key] for key in TRAIN_KEYS} | {"steps": 6, "eval_every": 3} | train_overrides
    outputs = SimpleNamespace(
        model=str(outputs_dir / "model.pt"),
        history=str(outputs_dir / "history.csv"),
        summary=str(outputs_dir / "summary.json"),
    )
    return lambda log: train_one(
        corpus_path=corpus_files / "corpus.txt", provenance_path=corpus_files / "corpus.json", cell="lstm",
        width_token="w8", seed=0, regime="default", train_config=cfg, train_fraction=0.9,
        checkpoint_dir=checkpoint_dir, checkpoint_every=2, device="cpu", threads=1, outputs=outputs, log=log,
    )  # fmt: skip


def run_rule_script(main, log_path, capfd) -> str:
    """What a rule script does (gatedrnn.scripting.run_logged); the console's stderr."""
    with pytest.raises(SystemExit) as exit_:
        run_logged(str(log_path), main)
    assert exit_.value.code == 1
    return capfd.readouterr().err


# --- divergence -------------------------------------------------------------------------


def assert_recorded_as_diverged(model_dir, log: str, checkpoint_dir=None) -> dict:
    """The run's three outputs, in diverged form; the log says so loudly. The summary."""
    summary = json.loads((model_dir / "summary.json").read_text())
    step, loss = DIVERGED.search(log).groups()
    assert summary["diverged"] is True and summary["diverged_at_step"] == int(step) >= 1
    assert summary["diverged_loss"] == pytest.approx(float(loss), rel=1e-5) and float(loss) > 0
    assert math.isnan(summary["best_val_loss"]) and math.isnan(summary["final_val_loss"])
    assert summary["best_step"] is None
    history = pd.read_csv(model_dir / "history.csv")
    assert list(history.columns) == ["step", "train_loss", "val_loss"]
    assert history["step"].iloc[0] == 0 and (history["step"] < int(step)).all()
    assert summary["last_val_step"] == history["step"].iloc[-1]
    assert f"WARNING: DIVERGED at step {step}" in log and "lower the learning rate" in log
    with pytest.raises(ValueError, match="is a diverged run"):
        load_model(model_dir)
    model, _ = load_model(model_dir, allow_diverged=True)  # the weights the tripping loss came from
    assert model.hidden == summary["width"]
    if checkpoint_dir is not None:  # no final state: a longer run must not start from a diverged one
        assert not checkpoint_dir.exists() or not any(checkpoint_dir.iterdir())
    return summary


def test_divergent_run_is_recorded_as_a_diverged_result(tmp_path, corpus_files, fault_ledger):
    name = fault_ledger.injected("unit: lr 1e6 with sgd (divergence)")
    outputs = tmp_path / "model"
    main = train_in(tmp_path, corpus_files, outputs, tmp_path / "ckpt", optimizer="sgd", lr=1e6)
    run_logged(str(tmp_path / "train.log"), main)  # the rule script's glue: no error, no exit
    log = (tmp_path / "train.log").read_text()
    assert "Traceback" not in log and "ERROR" not in log
    assert_recorded_as_diverged(outputs, log, tmp_path / "ckpt")
    fault_ledger.survived(name)


def test_divergence_after_some_validations_keeps_them(tmp_path, corpus_files):
    """lr 40: the loss climbs past 4 ln(V) after a validation or more (here at step 6).
    The model without a normalisation: the LayerNorm head diverges at the first validation."""
    outputs = tmp_path / "model"
    lines = []
    old_model = {"readout_norm": "none", "vocabulary": "corpus"}
    summary = train_in(tmp_path, corpus_files, outputs, tmp_path / "ckpt", optimizer="sgd", lr=40.0,
                       steps=12, eval_every=3, **old_model)(lines.append)  # fmt: skip
    log = "\n".join(lines)
    summary = assert_recorded_as_diverged(outputs, log, tmp_path / "ckpt")
    assert summary["last_val_step"] >= 3 and len(pd.read_csv(outputs / "history.csv")) >= 2


@pytest.fixture(scope="module")
def corpus_workdir(tmp_path_factory):
    """A working directory whose corpus is already made (copied by each test)."""
    workdir = tmp_path_factory.mktemp("train_faults") / "base"
    configfile = write_config(workdir.parent / "smoke.yaml")
    run_snakemake(workdir, "--cores", "1", "data/corpus.txt", configfile=configfile)
    return workdir, configfile


def test_divergent_run_through_snakemake(corpus_workdir, tmp_path, fault_ledger):
    """The job succeeds with its outputs in diverged form: one bad point never stops a run."""
    name = fault_ledger.injected("workflow: lr 1e6 with sgd (divergence)")
    base, _ = corpus_workdir
    workdir = copy_tree(base, tmp_path / "run")
    configfile = write_config(tmp_path / "diverge.yaml", {"train": {"optimizer": "sgd", "lr": 1e6}})
    proc = run_snakemake(workdir, "--cores", "1", MODEL_PT, configfile=configfile, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    assert f"results/models/default/{MODEL}/summary.json: training DIVERGED at step" in output  # loud
    log = (workdir / f"results/logs/train/default/{MODEL}.log").read_text()
    assert "Traceback" not in log
    assert_recorded_as_diverged(
        workdir / f"results/models/default/{MODEL}", log, workdir / f"results/checkpoints/default/{MODEL}"
    )
    assert (workdir / "data/corpus.txt").is_file()  # what was made before is kept
    dry = run_snakemake(workdir, "-n", MODEL_PT, configfile=configfile)
    assert "Nothing to be done" in dry.stdout + dry.stderr  # a result: not retrained on the next run
    fault_ledger.survived(name)


# --- an unwritable results directory ------------------------------------------------------


def test_output_directory_under_a_regular_file(tmp_path, corpus_files, capfd, fault_ledger):
    """The rule script's glue turns the OSError into one line naming the path and the fix."""
    name = fault_ledger.injected("unit: outputs under a regular file")
    blocker = tmp_path / "results"
    blocker.write_text("a file where a directory belongs\n")
    main = train_in(tmp_path, corpus_files, blocker / "models", tmp_path / "ckpt")
    console = run_rule_script(main, tmp_path / "train.log", capfd)
    assert console.startswith("ERROR: ") and str(blocker / "models") in console
    assert UNWRITABLE_HINT in console
    assert "Traceback" not in (tmp_path / "train.log").read_text()
    fault_ledger.survived(name)


def test_checkpoint_directory_under_a_regular_file_through_snakemake(corpus_workdir, tmp_path, fault_ledger):
    name = fault_ledger.injected("workflow: results/checkpoints is a regular file")
    base, configfile = corpus_workdir
    workdir = copy_tree(base, tmp_path / "run")
    (workdir / "results").mkdir(exist_ok=True)
    (workdir / "results/checkpoints").write_text("a file where a directory belongs\n")
    proc = run_snakemake(workdir, "--cores", "1", MODEL_PT, configfile=configfile, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    # refused before the first job (gatedrnn.plan.places, issue #53); the train script's own
    # refusal of an unwritable checkpoint folder is tested above, without Snakemake
    assert "results/checkpoints is a file, where the run writes a folder: move it away" in output
    assert not (workdir / f"results/logs/train/default/{MODEL}.log").exists()
    assert not (workdir / MODEL_PT).exists()
    fault_ledger.survived(name)


def can_mount() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /mnt"], capture_output=True
    )
    return probe.returncode == 0


needs_mount = pytest.mark.skipif(
    not can_mount(), reason="needs `unshare -m` and mount (root in a private namespace)"
)


def run_with_tmpfs(workdir, mountpoint, options, *args, configfile):
    """snakemake with a tmpfs mounted at ``mountpoint``, in a private mount namespace (the
    mount goes with the process); prints the files left in the tmpfs afterwards."""
    command = " ".join(f"'{a}'" for a in snakemake_cmd(workdir, *args, configfile=configfile))
    script = (f"mount -t tmpfs -o {options} tmpfs '{mountpoint}' && {{ {command}; rc=$?; "
              f"echo LEFT-IN-TMPFS: $(find '{mountpoint}' -type f); exit $rc; }}")  # fmt: skip
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=600)


@needs_mount
def test_read_only_results_directory(corpus_workdir, tmp_path, fault_ledger):
    name = fault_ledger.injected("workflow: results/ on a read-only file system")
    base, configfile = corpus_workdir
    workdir = copy_tree(base, tmp_path / "run")
    shutil.rmtree(workdir / "results")
    (workdir / "results").mkdir()
    proc = run_with_tmpfs(workdir, workdir / "results", "ro,size=64k", "--cores", "1", MODEL_PT,
                          configfile=configfile)  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    # refused before the first job, naming the folder and the fix (gatedrnn.plan.places, issue #53)
    assert "results/ is on a read-only file system, and the run writes into it" in output
    assert (workdir / "data/corpus.txt").is_file()
    fault_ledger.survived(name)


@needs_mount
def test_disk_full_while_writing_a_checkpoint(corpus_workdir, tmp_path, fault_ledger):
    name = fault_ledger.injected("workflow: disk full under results/checkpoints")
    base, configfile = corpus_workdir
    workdir = copy_tree(base, tmp_path / "run")
    (workdir / "results/checkpoints").mkdir(parents=True)
    proc = run_with_tmpfs(workdir, workdir / "results/checkpoints", "size=8k", "--cores", "1", MODEL_PT,
                          configfile=configfile)  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "No space left on device" in output and UNWRITABLE_HINT in output
    left = re.search(r"LEFT-IN-TMPFS:(.*)", output).group(1).split()
    assert left == [], f"a full disk left {left}"  # no half-written checkpoint or temp file
    assert not (workdir / MODEL_PT).exists()
    log = (workdir / f"results/logs/train/default/{MODEL}.log").read_text()
    assert "Traceback" not in log
    # space is back: the same command trains the model
    again = run_snakemake(workdir, "--cores", "1", MODEL_PT, configfile=configfile, check=False)
    assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]
    fault_ledger.survived(name)
