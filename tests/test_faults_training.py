"""Training faults: a divergent run and an unwritable results directory.

A run with an absurd learning rate stops with TrainingDiverged naming the step and the
loss, and leaves no model file; a results directory that cannot be written gives one
clear error naming the path and the fix, at the unit level (the rule script's glue,
gatedrnn.scripting.run_logged) and through the real ``snakemake``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from types import SimpleNamespace

import pytest
import torch
from conftest import copy_tree, run_snakemake, snakemake_cmd
from faults.runs import smoke_config, write_config

from gatedrnn.io.corpus import CorpusSpec, write_corpus
from gatedrnn.scripting import UNWRITABLE_HINT, run_logged
from gatedrnn.train.loop import TrainingDiverged
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


def test_divergent_run_names_the_step_and_the_loss_and_leaves_no_model(tmp_path, corpus_files, capfd,
                                                                        fault_ledger):  # fmt: skip
    name = fault_ledger.injected("unit: lr 1e6 with sgd (divergence)")
    outputs = tmp_path / "model"
    main = train_in(tmp_path, corpus_files, outputs, tmp_path / "ckpt", optimizer="sgd", lr=1e6)
    with pytest.raises(TrainingDiverged, match=DIVERGED.pattern):
        main(lambda message: None)
    console = run_rule_script(main, tmp_path / "train.log", capfd)
    step, loss = DIVERGED.search(console).groups()
    assert int(step) >= 1 and float(loss) > 0
    assert "lower the learning rate" in console
    log = (tmp_path / "train.log").read_text()
    assert console.strip() in log and "Traceback" not in log
    assert not [p for p in outputs.rglob("*") if p.is_file()], "a diverged run left files"
    fault_ledger.survived(name)


@pytest.fixture(scope="module")
def corpus_workdir(tmp_path_factory):
    """A working directory whose corpus is already made (copied by each test)."""
    workdir = tmp_path_factory.mktemp("train_faults") / "base"
    configfile = write_config(workdir.parent / "smoke.yaml")
    run_snakemake(workdir, "--cores", "1", "data/corpus.txt", configfile=configfile)
    return workdir, configfile


def test_divergent_run_through_snakemake(corpus_workdir, tmp_path, fault_ledger):
    name = fault_ledger.injected("workflow: lr 1e6 with sgd (divergence)")
    base, _ = corpus_workdir
    workdir = copy_tree(base, tmp_path / "run")
    configfile = write_config(tmp_path / "diverge.yaml", {"train": {"optimizer": "sgd", "lr": 1e6}})
    proc = run_snakemake(workdir, "--cores", "1", MODEL_PT, configfile=configfile, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert DIVERGED.search(output) and "lower the learning rate" in output
    log = (workdir / f"results/logs/train/default/{MODEL}.log").read_text()
    assert DIVERGED.search(log) and "Traceback" not in log
    assert not (workdir / f"results/models/default/{MODEL}").exists() or not any(
        (workdir / f"results/models/default/{MODEL}").iterdir()
    )
    assert (workdir / "data/corpus.txt").is_file()  # what was made before is kept
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
    assert f"ERROR: [Errno 20] Not a directory: 'results/checkpoints/default/{MODEL}'" in output
    assert UNWRITABLE_HINT in output
    log = (workdir / f"results/logs/train/default/{MODEL}.log").read_text()
    assert UNWRITABLE_HINT in log and "Traceback" not in log
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
    assert "Failed to create output directory" in output and "Read-only file system" in output
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
