"""Provenance measured, inputs checked against what they claim to be (issue 31).

- The corpus text is read as bytes decoded once (Windows line endings kept, so the
  vocabulary on record is the one trained) and its sha256 is measured against
  ``corpus.json``: a hand-edited ``data/corpus.txt`` is refused, naming both sums.
- A summary, a model's weights, a gates file or a gate check that is not the run its
  path names (copied from another model, width, seed or regime) is refused, naming
  the file; so is one trained on another corpus than the probe's.
- An empty or truncated intermediate file is named in the error, not left to a bare
  ``JSONDecodeError`` or ``EOFError``.
- Two training jobs of one model at once: the second is refused by the folder lock.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import shutil
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from conftest import copy_tree, run_snakemake
from faults.runs import smoke_config, write_config

from gatedrnn.analysis.gate_files import load_gates, save_gates
from gatedrnn.errors import CorpusError
from gatedrnn.io.corpus import CorpusSpec, write_corpus
from gatedrnn.io.files import FolderInUse, exclusive_folder_lock, read_json
from gatedrnn.io.reading import corpus_splits, load_corpus
from gatedrnn.io.records import read_gate_check, read_summaries, read_table
from gatedrnn.io.variants import write_prefix_corpus
from gatedrnn.tables.gates import load_probe_gates
from gatedrnn.tables.probe_gates import probe_set, write_probe_gates
from gatedrnn.train.loop import load_model
from gatedrnn.train.pipeline import train_one

torch.set_num_threads(1)

SMOKE = smoke_config()
TRAIN_KEYS = ("optimizer", "lr", "momentum", "batch_size", "seq_len", "steps", "clip_norm", "eval_every",
              "val_windows", "embed_dim", "layers", "forget_bias")  # fmt: skip
SHA256 = r"[0-9a-f]{64}"


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("provenance_corpus")
    spec = CorpusSpec(source="synthetic", synthetic_chars=6000, synthetic_seed=0)
    write_corpus(spec, directory / "corpus.txt", directory / "corpus.json")
    return directory


def train(corpus_dir, out_dir, cell="lstm", width_token="w8", seed=0, regime="default"):
    cfg = {key: SMOKE["train"][key] for key in TRAIN_KEYS} | {"steps": 4, "eval_every": 2}
    model_dir = out_dir / "results/models" / regime / f"{cell}_{width_token}_s{seed}"
    outputs = SimpleNamespace(
        model=str(model_dir / "model.pt"), history=str(model_dir / "history.csv"),
        summary=str(model_dir / "summary.json"),
    )  # fmt: skip
    train_one(
        corpus_path=corpus_dir / "corpus.txt", provenance_path=corpus_dir / "corpus.json", cell=cell,
        width_token=width_token, seed=seed, regime=regime, train_config=cfg, train_fraction=0.9,
        checkpoint_dir=out_dir / "results/checkpoints" / regime / model_dir.name, checkpoint_every=2,
        device="cpu", threads=1, outputs=outputs, log=lambda message: None,
    )  # fmt: skip
    return model_dir


@pytest.fixture(scope="module")
def two_models(tmp_path_factory, corpus_files):
    """Two trained models of different widths under one results/ tree."""
    root = tmp_path_factory.mktemp("provenance_models")
    return root, train(corpus_files, root, "gru", "w8"), train(corpus_files, root, "gru", "w12")


# --- the corpus: bytes as written, checksum measured ----------------------------------------


def test_windows_line_endings_are_trained_as_recorded(tmp_path, fault_ledger):
    """A corpus with \\r\\n: the record and the trained vocabulary are the same symbols."""
    name = fault_ledger.tried("corpus: a text file with Windows line endings")
    source = tmp_path / "crlf.txt"
    source.write_bytes(b"To be, or not to be:\r\nthat is the question.\r\n" * 200)
    provenance = write_corpus(
        CorpusSpec(source="file", path=str(source)), tmp_path / "c.txt", tmp_path / "c.json"
    )
    assert "\r" in provenance["vocabulary"]
    vocab, train_ids, val_ids, _ = corpus_splits(tmp_path / "c.txt", tmp_path / "c.json", 0.9, "corpus")
    assert len(vocab) == provenance["vocab_size"] and vocab.chars == provenance["vocabulary"]
    assert len(train_ids) + len(val_ids) == provenance["characters"]
    # the small corpus cut from it keeps them too
    small = write_prefix_corpus(
        tmp_path / "c.txt", tmp_path / "c.json", 500, tmp_path / "s.txt", tmp_path / "s.json"
    )
    assert b"\r\n" in (tmp_path / "s.txt").read_bytes() and "\r" in small["vocabulary"]
    assert (
        len(corpus_splits(tmp_path / "s.txt", tmp_path / "s.json", 0.9, "corpus")[0]) == small["vocab_size"]
    )
    fault_ledger.rejected(name)  # here: trained as recorded, which is the good outcome


def test_a_hand_edited_corpus_is_refused_naming_both_sums(tmp_path, corpus_files, fault_ledger):
    name = fault_ledger.tried("corpus: data/corpus.txt edited by hand after the corpus rule")
    corpus = copy_tree(corpus_files, tmp_path / "data")
    recorded = json.loads((corpus / "corpus.json").read_text())["corpus_sha256"]
    with open(corpus / "corpus.txt", "a", encoding="utf-8") as handle:
        handle.write("\nAn edit by hand.\n")
    with pytest.raises(CorpusError) as refusal:
        load_corpus(corpus / "corpus.txt", corpus / "corpus.json", "corpus")
    message = str(refusal.value)
    assert recorded in message and str(corpus / "corpus.txt") in message
    measured = [s for s in re.findall(SHA256, message) if s != recorded]
    assert len(measured) == 1 and "Delete both files and rerun" in message
    # and the training job refuses before it writes anything
    with pytest.raises(CorpusError, match=recorded):
        train(corpus, tmp_path / "run")
    assert not (tmp_path / "run/results/models").exists() or not any(
        (tmp_path / "run/results/models").rglob("*.*")
    )
    fault_ledger.rejected(name)


def test_an_empty_corpus_record_is_named(tmp_path, corpus_files, fault_ledger):
    name = fault_ledger.tried("corpus: data/corpus.json of zero bytes")
    corpus = copy_tree(corpus_files, tmp_path / "data")
    (corpus / "corpus.json").write_bytes(b"")
    with pytest.raises(ValueError, match=r"corpus provenance record .*corpus\.json is empty \(0 bytes\)"):
        load_corpus(corpus / "corpus.txt", corpus / "corpus.json", "corpus")
    fault_ledger.rejected(name)


# --- records that are not their path's run -------------------------------------------------


def test_a_summary_copied_from_another_model_is_refused(tmp_path, two_models, fault_ledger):
    name = fault_ledger.tried("inputs: summary.json copied from a model of another width")
    root, narrow, wide = two_models
    target = copy_tree(narrow, tmp_path / "results/models/default" / narrow.name)
    shutil.copy(wide / "summary.json", target / "summary.json")
    with pytest.raises(
        ValueError, match=r"training summary .*gru_w8_s0/summary\.json is not this run's.*gru_w12"
    ):
        load_model(target)
    with pytest.raises(ValueError, match="is not this run's"):
        read_summaries([target / "summary.json"])
    fault_ledger.rejected(name)


def test_weights_copied_from_another_width_are_refused(tmp_path, two_models, fault_ledger):
    name = fault_ledger.tried("inputs: model.pt copied from a model of another width")
    root, narrow, wide = two_models
    target = copy_tree(narrow, tmp_path / "results/models/default" / narrow.name)
    shutil.copy(wide / "model.pt", target / "model.pt")
    with pytest.raises(ValueError, match=r"model\.pt does not fit the gru of width 8"):
        load_model(target)
    fault_ledger.rejected(name)


@pytest.mark.parametrize("kind", ["empty", "truncated"])
def test_a_damaged_summary_or_history_is_named(tmp_path, two_models, kind, fault_ledger):
    name = fault_ledger.tried(f"inputs: a {kind} summary.json and history.csv")
    root, narrow, _ = two_models
    target = copy_tree(narrow, tmp_path / "results/models/default" / narrow.name)
    for file in ("summary.json", "history.csv"):
        data = (target / file).read_bytes()
        (target / file).write_bytes(b"" if kind == "empty" else data[: len(data) // 3])
    with pytest.raises(ValueError, match=r"training summary .*summary\.json (is empty|cannot be read)"):
        load_model(target)
    if kind == "empty":  # a third of a CSV still parses: only an empty one cannot
        with pytest.raises(ValueError, match=r"training history .*history\.csv is empty"):
            read_table(target / "history.csv", "training history")
    fault_ledger.rejected(name)


@pytest.fixture(scope="module")
def probe(corpus_files):
    return probe_set(corpus_files / "corpus.txt", corpus_files / "corpus.json", 0.9, 4, 32, "corpus")


def gates_of(model_dir, root, probe):
    gates = root / "results/gates/default" / f"{model_dir.name}.npz"
    gates.parent.mkdir(parents=True, exist_ok=True)
    write_probe_gates(model_dir, *probe, gates, gates.with_suffix(".check.json"), log=lambda m: None)
    return gates


def test_a_gates_file_copied_from_another_model_is_refused(tmp_path, two_models, probe, fault_ledger):
    """The issue's case: another model's gates under this model's name."""
    name = fault_ledger.tried("inputs: a gates file copied from a model of another width")
    root, narrow, wide = two_models
    ours, theirs = gates_of(narrow, tmp_path, probe), gates_of(wide, tmp_path, probe)
    assert load_probe_gates([ours])[0][2].gates["z"].shape[-1] == 8
    shutil.copy(theirs, ours)
    with pytest.raises(ValueError, match=r"gates file .*gru_w8_s0\.npz is not this run's: .*gru_w12"):
        load_probe_gates([ours])
    shutil.copy(theirs.with_suffix(".check.json"), ours.with_suffix(".check.json"))
    with pytest.raises(ValueError, match=r"gate check .*gru_w8_s0\.check\.json is not this run's"):
        read_gate_check(ours.with_suffix(".check.json"))
    fault_ledger.rejected(name)


def test_a_gates_file_without_its_identity_is_refused(tmp_path, probe, fault_ledger):
    name = fault_ledger.tried("inputs: a gates file that records no run")
    path = tmp_path / "results/gates/default/gru_w8_s0.npz"
    tokens, lines = probe
    save_gates(path, {"z": np.zeros((*tokens.shape, 8))}, tokens, lines, "gru")
    with pytest.raises(ValueError, match=r"gru_w8_s0\.npz is not this run's: it records regime None"):
        load_probe_gates([path])
    fault_ledger.rejected(name)


@pytest.mark.parametrize("kind", ["empty", "truncated"])
def test_a_damaged_gates_file_is_named(tmp_path, two_models, probe, kind, fault_ledger):
    name = fault_ledger.tried(f"inputs: a {kind} gates file")
    root, narrow, _ = two_models
    gates = gates_of(narrow, tmp_path, probe)
    data = gates.read_bytes()
    gates.write_bytes(b"" if kind == "empty" else data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"gates file .*gru_w8_s0\.npz cannot be read .*delete it and rerun"):
        load_gates(gates)
    check = gates.with_suffix(".check.json")
    check.write_bytes(b"" if kind == "empty" else check.read_bytes()[:20])
    with pytest.raises(ValueError, match=r"gate check .*check\.json (is empty|cannot be read)"):
        read_gate_check(check)
    fault_ledger.rejected(name)


def test_a_model_trained_on_another_corpus_is_refused_by_the_gates_rule(tmp_path, two_models, probe,
                                                                        fault_ledger):  # fmt: skip
    name = fault_ledger.tried("inputs: gates of a model trained on another corpus")
    root, narrow, _ = two_models
    gates = tmp_path / "results/gates/default/gru_w8_s0.npz"
    with pytest.raises(
        ValueError, match=rf"trained on the corpus with sha256 {SHA256}, but the probe .*0{{64}}"
    ):
        write_probe_gates(narrow, *probe, gates, gates.with_suffix(".check.json"), corpus_sha256="0" * 64)
    assert not gates.exists()
    fault_ledger.rejected(name)


def test_a_checkpoint_of_another_width_is_not_resumed(tmp_path, corpus_files, two_models, fault_ledger):
    """Already so before issue 31 (the checkpoint's config hash covers cell, width, seed
    and corpus): the file is named in a warning and the run trains from step 0, to the
    same bytes as a run that never saw it."""
    name = fault_ledger.tried("inputs: a checkpoint copied from a model of another width")
    root, narrow, wide = two_models
    foreign = root / "results/checkpoints/default" / wide.name / "final_state.pt"
    target = tmp_path / "results/checkpoints/default" / narrow.name / "checkpoint_step4.pt"
    target.parent.mkdir(parents=True)
    shutil.copy(foreign, target)
    with pytest.warns(UserWarning, match=r"checkpoint_step4\.pt belongs to another configuration"):
        model_dir = train(corpus_files, tmp_path, "gru", "w8")
    assert (model_dir / "model.pt").read_bytes() == (narrow / "model.pt").read_bytes()
    fault_ledger.rejected(name)


# --- two jobs of one model at once ---------------------------------------------------------


def _hold_lock(folder, ready, release):
    with exclusive_folder_lock(folder, "a test"):
        ready.set()
        release.wait(30)


def test_a_second_job_on_a_locked_model_folder_is_refused(tmp_path, fault_ledger):
    name = fault_ledger.tried("concurrency: a second training job of the same model")
    context = multiprocessing.get_context("fork")
    ready, release = context.Event(), context.Event()
    holder = context.Process(target=_hold_lock, args=(tmp_path / "model", ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        with pytest.raises(FolderInUse, match=r"model is locked by another process running"):
            with exclusive_folder_lock(tmp_path / "model", "a test"):
                pass
    finally:
        release.set()
        holder.join(30)
    with exclusive_folder_lock(tmp_path / "model", "a test"):  # free again once the holder is gone
        pass
    fault_ledger.rejected(name)


def test_read_json_names_a_truncated_file(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"a": [1, 2')
    with pytest.raises(ValueError, match=r"record .*x\.json cannot be read \(JSONDecodeError"):
        read_json(path, "record")


# --- through snakemake: the training job's lock ---------------------------------------------


@pytest.mark.workflow
def test_a_training_job_whose_folder_is_locked_is_refused_through_snakemake(tmp_path, fault_ledger):
    """What the second of two snakemake runs that passed Snakemake's own lock at the same
    instant meets: its training job is refused at once, naming the folder."""
    name = fault_ledger.tried("concurrency: snakemake's training job while another holds its folder")
    workdir = tmp_path / "run"
    configfile = write_config(tmp_path / "smoke.yaml")
    run_snakemake(workdir, "--cores", "1", "data/corpus.txt", configfile=configfile)
    model = f"lstm_w{SMOKE['grid']['reference_width']}_s0"
    folder = workdir / "results/models/default" / model
    context = multiprocessing.get_context("fork")
    ready, release = context.Event(), context.Event()
    holder = context.Process(target=_hold_lock, args=(folder, ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        target = f"results/models/default/{model}/model.pt"
        proc = run_snakemake(workdir, "--cores", "1", target, configfile=configfile, check=False)
    finally:
        release.set()
        holder.join(30)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert (
        f"ERROR: results/models/default/{model} is locked by another process running this training job"
        in output
    )
    assert not (folder / "model.pt").exists()
    fault_ledger.rejected(name)


@pytest.mark.workflow
def test_a_second_snakemake_run_past_snakemakes_lock_is_stopped_before_its_jobs(tmp_path, fault_ledger):
    """Two runs started at the same instant can both pass Snakemake's own lock; the
    second to reach its jobs finds the first's flock on .snakemake/ (common.smk's
    onstart) and stops before any job starts."""
    name = fault_ledger.tried("concurrency: a second snakemake run that passed Snakemake's lock")
    workdir = tmp_path / "run"
    (workdir / ".snakemake").mkdir(parents=True)
    configfile = write_config(tmp_path / "smoke.yaml")
    context = multiprocessing.get_context("fork")
    ready, release = context.Event(), context.Event()
    holder = context.Process(target=_hold_lock, args=(workdir / ".snakemake", ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        proc = run_snakemake(workdir, "--cores", "1", "data/corpus.txt", configfile=configfile, check=False)
    finally:
        release.set()
        holder.join(30)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "another snakemake run holds" in output and "Let the other run finish" in output
    assert not (workdir / "data/corpus.txt").exists()
    # and once the other run is gone, the same command runs
    run_snakemake(workdir, "--cores", "1", "data/corpus.txt", configfile=configfile)
    fault_ledger.rejected(name)


@pytest.mark.workflow
def test_an_empty_corpus_record_is_named_while_planning(tmp_path, fault_ledger):
    """A zero-byte data/corpus.json: the training job's resources read it while the DAG is
    planned; the error names the file and the fix, not a bare JSONDecodeError."""
    name = "an empty data/corpus.json, at planning"
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "corpus.txt").write_text("some text\n")
    (tmp_path / "data" / "corpus.json").write_bytes(b"")
    proc = run_snakemake(tmp_path, "-n", "results/models/default/lstm_w24_s0/summary.json", check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "data/corpus.json: the corpus record is empty or truncated" in output, output[-3000:]
    assert "JSONDecodeError" not in output
    fault_ledger.rejected(name)
