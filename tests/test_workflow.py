"""The workflow as a user runs it: dry runs, config validation, the smoke DAG."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
import yaml
from conftest import DEFAULT_CONFIG, SMOKE_CONFIG, copy_of_smoke_run, run_snakemake

from gatedrnn.core.data import Vocabulary
from gatedrnn.core.vocabularies import vocabulary_size
from gatedrnn.core.widths import matched_width
from gatedrnn.plan import Plan

# regime names of the regime sweep hold the learning rate: sgd_lr0.3_steps800
MODEL_OUTPUT = re.compile(r"results/models/([\w.-]+)/(\w+)/model\.pt")


def dry_run_outputs(tmp_path, *targets, configfile=DEFAULT_CONFIG):
    proc = run_snakemake(tmp_path, "-n", *targets, configfile=configfile)
    return proc.stdout + proc.stderr


def planned_models(text):
    return sorted({m.group(2) for m in MODEL_OUTPUT.finditer(text)})


def job_counts(text):
    table = text.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M)}


def grid_model_names(config):
    reference = config["grid"]["reference_width"]

    def token(width):
        return f"budget{reference}" if width == "budget" else f"w{width}"

    return sorted(
        f"{m['cell']}_{token(m['width'])}_s{seed}"
        for m in config["grid"]["models"]
        for seed in config["grid"]["seeds"]
    )


def test_grid_dry_run_lists_exactly_the_grid(tmp_path):
    """The grid's own target (E2's curves need every grid model) plans exactly its 40 jobs:
    four models at ten seeds."""
    text = dry_run_outputs(tmp_path, "results/tables/val_loss_curves.csv")
    expected = grid_model_names(yaml.safe_load(DEFAULT_CONFIG.read_text()))
    assert len(expected) == 4 * 10
    assert planned_models(text) == expected
    assert job_counts(text)["train"] == 40


def test_full_dry_run_trains_the_grid_and_the_declared_regimes(tmp_path):
    """`snakemake -n` on the default config: the grid under `default`, and every other
    training job under a regime the config declares (sweeps, open questions) or a
    point of the regime sweep."""
    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    text = dry_run_outputs(tmp_path)
    planned = {(m.group(1), m.group(2)) for m in MODEL_OUTPUT.finditer(text)}
    assert {("default", name) for name in grid_model_names(config)} <= planned
    from test_regime_sweep import sweep_names

    small = {point["regime"] for point in Plan.from_config(config).corpus_size_points}
    assert {regime for regime, _ in planned} <= set(config["regimes"]) | set(sweep_names(config)) | small
    assert job_counts(text)["train"] == len(planned)


def test_one_artifact_pulls_only_what_it_needs(tmp_path):
    text = dry_run_outputs(tmp_path, "results/tables/gru_vs_lstm.csv")
    counts = job_counts(text)
    assert counts == {"corpus": 1, "train": 3 * 10, "gru_vs_lstm": 1}  # three models, ten seeds
    assert not any(m.startswith("rnn_") for m in planned_models(text))


def test_closed_form_target_needs_no_corpus(tmp_path):
    counts = job_counts(dry_run_outputs(tmp_path, "results/tables/grad_reach_init.csv"))
    assert counts == {"grad_reach_init_table": 1}


BAD_CONFIGS = {
    "unknown cell": (lambda c: c["grid"]["models"].append({"cell": "transformer", "width": 8}), "cell"),
    "width 0": (lambda c: c["grid"]["models"][0].update(width=0), "width"),
    "seed not an integer": (lambda c: c["grid"].update(seeds=[0, "one"]), "seeds"),
    "missing key": (lambda c: c["train"].pop("lr"), "lr"),
    "unknown key": (lambda c: c["train"].update(learning_rate=0.1), "learning_rate"),
    "unknown corpus source": (lambda c: c["corpus"].update(source="ftp"), "source"),
}


@pytest.mark.parametrize("name", BAD_CONFIGS)
def test_bad_config_is_rejected_before_any_job(tmp_path, name):
    mutate, key = BAD_CONFIGS[name]
    config = yaml.safe_load(SMOKE_CONFIG.read_text())
    mutate(config)
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    proc = run_snakemake(tmp_path, "--cores", "1", configfile=bad, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "Error validating config file" in output
    assert key in output
    assert not (tmp_path / "data").exists() and not (tmp_path / "results").exists()


# --- the smoke DAG, run for real -------------------------------------------------------


def test_smoke_run_makes_every_target(smoke_run):
    for name in ["gru_vs_lstm", "gru_advantage_split", "matched_widths", "val_loss_curves"]:
        assert (smoke_run / "results/tables" / f"{name}.csv").stat().st_size > 0
    assert (smoke_run / "results/figures/val_loss_curves.png").stat().st_size > 0


def test_smoke_tables_agree_with_the_models(smoke_run):
    config = yaml.safe_load(SMOKE_CONFIG.read_text())
    text = (smoke_run / "data/corpus.txt").read_text()
    vocab = Vocabulary.from_text(text)
    provenance = json.loads((smoke_run / "data/corpus.json").read_text())
    assert provenance["vocab_size"] == len(vocab) and provenance["characters"] == len(text)

    table = pd.read_csv(smoke_run / "results/tables/gru_vs_lstm.csv")
    ref = config["grid"]["reference_width"]
    widths = dict(zip(table["model"], table["width"], strict=True))
    train = config["train"]  # the model's vocabulary (printable: 100), not the corpus's
    model_vocab = vocabulary_size(train["vocabulary"], len(vocab))
    assert widths[f"gru_budget{ref}"] == matched_width(
        "gru", ref, model_vocab, train["embed_dim"], train["layers"], train["readout_norm"]
    )
    assert widths[f"lstm_w{ref}"] == ref
    for _, row in table.iterrows():
        seeds = [row[f"seed_{s}"] for s in config["grid"]["seeds"]]
        for seed, loss in zip(config["grid"]["seeds"], seeds, strict=True):
            summary = json.loads(
                (smoke_run / f"results/models/default/{row['model']}_s{seed}/summary.json").read_text()
            )
            assert summary["best_val_loss"] == loss
            history = pd.read_csv(smoke_run / f"results/models/default/{row['model']}_s{seed}/history.csv")
            assert history["val_loss"].min() == loss
        assert row["median"] == pd.Series(seeds).median()
        # two seeds: the median's 95 % bootstrap interval is the seeds' range (issue #47)
        assert row["seeds"] == len(seeds) == 2
        assert (row["median_low"], row["median_high"]) == (min(seeds), max(seeds))
    lstm = table.set_index("model").loc[f"lstm_w{ref}", [f"seed_{s}" for s in config["grid"]["seeds"]]]
    gru = table.set_index("model").loc[f"gru_budget{ref}", lstm.index]
    gaps = (gru - lstm).to_numpy()  # seed by seed
    gap = table.set_index("model").loc[f"gru_budget{ref}"]
    assert (gap["paired_minus_lstm_low"], gap["paired_minus_lstm_high"]) == (gaps.min(), gaps.max())
    assert table.set_index("model").loc[f"lstm_w{ref}", ["paired_minus_lstm"]].isna().all()

    split = pd.read_csv(smoke_run / "results/tables/gru_advantage_split.csv").set_index("component")
    median = table.set_index("model")["median"]
    assert split.loc["structure", "loss_difference"] == median[f"lstm_w{ref}"] - median[f"gru_w{ref}"]
    assert split.loc["width", "loss_difference"] == median[f"gru_w{ref}"] - median[f"gru_budget{ref}"]
    assert list(split.columns[3:]) == ["seeds", "paired_median", "low", "high", "seed_0", "seed_1"]
    assert (split.loc["total", ["seed_0", "seed_1"]].to_numpy() == -gaps).all()

    curves = pd.read_csv(smoke_run / "results/tables/val_loss_curves.csv")
    n_models = len(config["grid"]["models"]) * len(config["grid"]["seeds"])
    steps = config["train"]["steps"] // config["train"]["eval_every"] + 1
    assert len(curves) == n_models * steps


def test_smoke_run_is_complete_and_idempotent(smoke_run, tmp_path):
    # a dry run writes .snakemake/: in a copy of the session's shared run (conftest)
    proc = run_snakemake(copy_of_smoke_run(smoke_run, tmp_path / "run"), "-n", "--cores", "1")
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_trained_weights_load_with_weights_only(smoke_run):
    from gatedrnn.train.loop import load_model

    model, summary = load_model(smoke_run / "results/models/default/lstm_w24_s0")
    assert model.hidden == summary["width"] == 24
    assert summary["versions"]["torch"]
