"""The model's vocabulary and read-out (issue 27): `train.vocabulary` (printable | corpus)
and `train.readout_norm` (layernorm | none). A corpus character outside a fixed
vocabulary is refused before training, naming the characters and the fix, with nothing
written; every combination trains; a regime may train the old model beside the new."""

from __future__ import annotations

import json
import string
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from conftest import run_snakemake
from faults.runs import write_config

from gatedrnn.core.data import Vocabulary
from gatedrnn.core.vocabularies import vocabulary_coverage_problem, vocabulary_size
from gatedrnn.io.corpus import CorpusSpec, write_corpus
from gatedrnn.io.reading import corpus_splits
from gatedrnn.io.synthetic import synthetic_prose
from gatedrnn.train.checks import check_before_training
from gatedrnn.train.config import TrainConfig
from gatedrnn.train.loop import load_model
from gatedrnn.train.pipeline import train_one

torch.set_num_threads(1)

# a text the printable vocabulary cannot read: an accented letter and a no-break space
OUTSIDE = ("é", "\u00a0")


def text_with_outside_characters(chars: int) -> str:
    text = list(synthetic_prose(chars, seed=3))
    for k, c in enumerate(OUTSIDE):
        text[chars // 2 + 7 * k] = c
    return "".join(text)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    """Two corpora made by the corpus rule's code: synthetic prose (printable) and a file
    holding OUTSIDE."""
    directory = tmp_path_factory.mktemp("vocabulary")
    write_corpus(CorpusSpec(source="synthetic", synthetic_chars=6000, synthetic_seed=0),
                 directory / "plain.txt", directory / "plain.json")  # fmt: skip
    (directory / "source.txt").write_text(text_with_outside_characters(6000), encoding="utf-8")
    spec = CorpusSpec.from_config({"source": "file", "path": str(directory / "source.txt")})
    write_corpus(spec, directory / "accented.txt", directory / "accented.json")
    return directory


def test_printable_is_pythons_string_printable_in_that_order():
    vocab = Vocabulary.named("printable", "any text")
    assert vocab.chars == string.printable and len(vocab) == 100 == vocabulary_size("printable", 84)
    assert vocab.encode("a0 \n").tolist() == [string.printable.index(c) for c in "a0 \n"]
    corpus = Vocabulary.named("corpus", "hello, world")
    assert corpus.chars == "".join(sorted(set("hello, world"))) and vocabulary_size("corpus", 84) == 84
    with pytest.raises(ValueError, match="unknown vocabulary 'ascii'; choose one of printable, corpus"):
        Vocabulary.named("ascii", "x")


def test_a_character_outside_the_vocabulary_is_named_with_the_fix():
    problem = vocabulary_coverage_problem("printable", "abé\u00a0", "data/corpus.txt")
    assert (
        "data/corpus.txt has 2 character(s) outside the 'printable' vocabulary (train.vocabulary)" in problem
    )
    assert "'é' (U+00E9)" in problem and "'\\xa0' (U+00A0)" in problem
    assert "set train.vocabulary to 'corpus'" in problem
    assert vocabulary_coverage_problem("corpus", "abé") is None
    assert vocabulary_coverage_problem("printable", string.printable) is None


def test_bad_settings_are_refused_before_a_model_exists():
    with pytest.raises(ValueError, match="unknown vocabulary 'unicode'"):
        TrainConfig(vocabulary="unicode")
    with pytest.raises(ValueError, match="unknown readout_norm 'batchnorm'; choose one of layernorm, none"):
        TrainConfig(readout_norm="batchnorm")


def test_the_training_job_refuses_the_corpus_before_it_trains(corpora, tmp_path):
    settings = {"train_config": {"seq_len": 32, "val_windows": 16, "vocabulary": "printable"},
                "train_fraction": 0.9, "device": "cpu", "probe_length": 128}  # fmt: skip
    corpus, provenance = corpora / "accented.txt", corpora / "accented.json"
    with pytest.raises(ValueError, match=r"outside the 'printable' vocabulary \(train.vocabulary\)") as err:
        check_before_training(corpus, provenance, regime="default", **settings)
    assert "'é' (U+00E9)" in str(err.value) and "'corpus'" in str(err.value)
    # a regime that sets the vocabulary is named as that regime's key
    with pytest.raises(ValueError, match=r"regimes.printable_model.vocabulary"):
        check_before_training(corpus, provenance, regime="printable_model",
                              overrides={"vocabulary": "printable"}, **settings)  # fmt: skip
    own = settings | {"train_config": settings["train_config"] | {"vocabulary": "corpus"}}
    check_before_training(corpus, provenance, regime="default", **own)
    # the loader refuses it too, whoever calls it
    with pytest.raises(ValueError, match="outside the 'printable' vocabulary"):
        corpus_splits(corpus, provenance, 0.9, "printable")


def outputs_in(directory):
    return SimpleNamespace(model=str(directory / "model.pt"), history=str(directory / "history.csv"),
                           summary=str(directory / "summary.json"))  # fmt: skip


@pytest.mark.parametrize("readout_norm", ["layernorm", "none"])
@pytest.mark.parametrize("vocabulary", ["printable", "corpus"])
def test_every_combination_trains_and_loads_back(corpora, tmp_path, readout_norm, vocabulary):
    cfg = {"batch_size": 4, "seq_len": 16, "steps": 4, "eval_every": 2, "val_windows": 4, "embed_dim": 8,
           "readout_norm": readout_norm, "vocabulary": vocabulary}  # fmt: skip
    corpus = "plain" if vocabulary == "printable" else "accented"
    summary = train_one(
        corpus_path=corpora / f"{corpus}.txt", provenance_path=corpora / f"{corpus}.json", cell="gru",
        width_token="budget6", seed=0, regime="default", train_config=cfg, train_fraction=0.9,
        checkpoint_dir=tmp_path / "ckpt", checkpoint_every=2, device="cpu", threads=1,
        outputs=outputs_in(tmp_path), log=lambda _: None,
    )  # fmt: skip
    provenance = json.loads((corpora / f"{corpus}.json").read_text())
    expected_vocab = 100 if vocabulary == "printable" else provenance["vocab_size"]
    assert summary["vocab_size"] == expected_vocab and np.isfinite(summary["best_val_loss"])
    assert summary["train_config"]["readout_norm"] == readout_norm
    model, _ = load_model(tmp_path)
    assert (model.vocab_size, model.readout_norm) == (expected_vocab, readout_norm)
    assert any(name.startswith("norm.") for name in model.state_dict()) == (readout_norm == "layernorm")


@pytest.mark.workflow
def test_the_workflow_refuses_then_trains_the_old_model_on_the_same_corpus(corpora, tmp_path):
    """A corpus with characters outside `printable`: the default model's training job fails
    naming them and the fix, and leaves no model; a regime {readout_norm: none,
    vocabulary: corpus} (the workflow's model before issue 27) trains on it, and its gates
    pass the manual step check."""
    source = tmp_path / "source.txt"
    source.write_text(text_with_outside_characters(20000), encoding="utf-8")
    overrides = {"corpus": {"source": "file", "path": str(source)},
                 "regimes": {"old_model": {"readout_norm": "none", "vocabulary": "corpus"}}}  # fmt: skip
    configfile = write_config(tmp_path / "config.yaml", overrides)
    workdir = tmp_path / "run"
    refused = run_snakemake(workdir, "--cores", "1", "results/models/default/lstm_w24_s0/model.pt",
                            configfile=configfile, check=False)  # fmt: skip
    output = refused.stdout + refused.stderr
    log = (workdir / "results/logs/train/default/lstm_w24_s0.log").read_text()
    assert refused.returncode != 0
    assert "outside the 'printable' vocabulary (train.vocabulary)" in log and "'é' (U+00E9)" in log
    assert "set train.vocabulary to 'corpus'" in log, output[-3000:]
    assert not (workdir / "results/models/default/lstm_w24_s0").exists()  # nothing half-written
    assert not (workdir / "results/checkpoints/default/lstm_w24_s0").exists()
    run_snakemake(workdir, "--cores", "1", "results/gates/old_model/lstm_w24_s0.npz", configfile=configfile)
    summary = json.loads((workdir / "results/models/old_model/lstm_w24_s0/summary.json").read_text())
    provenance = json.loads((workdir / "data/corpus.json").read_text())
    assert summary["vocab_size"] == provenance["vocab_size"] and "é" in provenance["vocabulary"]
    assert summary["train_config"]["readout_norm"] == "none"
    check = json.loads((workdir / "results/gates/old_model/lstm_w24_s0.check.json").read_text())
    assert check["max_rel_diff"] < 1e-5
