"""A training job estimated above the memory it can have is refused before it starts
(issue 31: a job estimated at 72.6 GB on a 24 GB machine was planned, started, and died
in a torch allocator traceback; Snakemake caps a job's ``mem_mb`` to ``--resources``
silently). The limit is ``--resources mem_mb``, else, run locally, the machine's."""

from __future__ import annotations

import pytest
from conftest import run_snakemake
from faults.runs import write_config

from gatedrnn.plan.resources import machine_memory_mb, refuse_above_limit, train_mem_mb

MODEL_PT = "results/models/default/lstm_w24_s0/model.pt"
PROVENANCE = {"characters": 60000, "vocab_size": 52}
TRAIN = {
    "embed_dim": 16,
    "layers": 1,
    "readout_norm": "none",
    "vocabulary": "corpus",
    "batch_size": 8,
    "seq_len": 32,
    "val_windows": 16,
    "optimizer": "adam",
}


def test_an_estimate_above_the_limit_is_refused_naming_both():
    with pytest.raises(ValueError, match=r"peak at 341 MB, above --resources mem_mb \(300 MB\)"):
        train_mem_mb(None, "lstm", "w24", TRAIN, PROVENANCE, (300, "--resources mem_mb"))
    assert train_mem_mb(None, "lstm", "w24", TRAIN, PROVENANCE, (400, "--resources mem_mb")) == 409
    assert train_mem_mb(None, "lstm", "w24", TRAIN, PROVENANCE) == 409  # no limit: a cluster's own
    refuse_above_limit(100.0, None, "a job")


def test_the_machine_memory_is_positive_and_at_most_the_physical_total():
    total = machine_memory_mb()
    assert total is None or 0 < total <= 1 << 30


@pytest.fixture(scope="module")
def corpus_workdir(tmp_path_factory):
    """A working directory with the smoke corpus made (the estimate needs its size)."""
    workdir = tmp_path_factory.mktemp("memory_limit")
    configfile = write_config(workdir.parent / f"{workdir.name}.yaml")
    run_snakemake(workdir, "--cores", "1", "data/corpus.txt", configfile=configfile)
    return workdir, configfile


def test_a_job_above_resources_mem_mb_is_refused_before_it_starts(corpus_workdir, fault_ledger):
    workdir, configfile = corpus_workdir
    name = fault_ledger.tried("memory: a training job estimated above --resources mem_mb")
    proc = run_snakemake(workdir, "--cores", "1", MODEL_PT, "--resources", "mem_mb=200",
                         configfile=configfile, check=False)  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "is estimated to peak at 341 MB, above --resources mem_mb (200 MB)" in output, output[-3000:]
    assert not (workdir / MODEL_PT).exists() and not (workdir / "results/logs/train").exists()
    fault_ledger.rejected(name)
    enough = run_snakemake(workdir, "-n", MODEL_PT, "--resources", "mem_mb=1000", configfile=configfile)
    assert "train" in enough.stdout


def test_a_job_above_the_machine_memory_is_refused_before_it_starts(corpus_workdir, tmp_path, fault_ledger):
    if machine_memory_mb() is None:
        pytest.skip("this system does not say how much memory it has")
    workdir, _ = corpus_workdir
    name = fault_ledger.tried("memory: a training job estimated above the machine's memory")
    # about 6 TB by the estimate: beyond any machine this runs on
    configfile = write_config(tmp_path / "huge.yaml", {"train": {"batch_size": 100_000_000}})
    proc = run_snakemake(workdir, "--cores", "1", MODEL_PT, configfile=configfile, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"above this machine's memory ({machine_memory_mb()} MB)" in output, output[-3000:]
    assert not (workdir / MODEL_PT).exists()
    fault_ledger.rejected(name)
