"""G8, does tying the gates cost the LSTM anything (issue #49): the tied-gate LSTM (cifg,
i = 1 - f) at the LSTM's width and budget beside the LSTM and the budget GRU. Its table
is checked against a recomputation from the models' own summaries and gate files, at
smoke size from an overlay (tests/data/smoke_coupled_gates.yaml), and its plan, switch,
sentence and ledger rows."""

from __future__ import annotations

import copy
import json
import math
import statistics

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import DEFAULT_CONFIG, REPO, SMOKE_CONFIG, run_snakemake

from gatedrnn.claims import load_claims
from gatedrnn.plan import Plan
from gatedrnn.questions.coupled_gates import coupled_gates_sentences
from gatedrnn.questions.report import open_questions_report

OVERLAY = REPO / "tests" / "data" / "smoke_coupled_gates.yaml"
TABLE = "results/tables/coupled_gates.csv"
DEFAULT = yaml.safe_load(DEFAULT_CONFIG.read_text())
MODELS = {  # at smoke size: reference width 24
    "lstm": "lstm_w24",
    "cifg_same_width": "cifg_w24",
    "cifg_same_budget": "cifg_budget24",
    "gru_same_budget": "gru_budget24",
}


def plan_of(mutate=None) -> Plan:
    config = copy.deepcopy(DEFAULT)
    if mutate is not None:
        mutate(config)
    return Plan.from_config(config)


@pytest.fixture(scope="module")
def coupled_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("smoke_coupled_gates")
    configs = ["--configfile", str(SMOKE_CONFIG), str(OVERLAY)]
    run_snakemake(workdir, TABLE, "--cores", "2", *configs, configfile=None)
    return workdir


def half_lives(gates_file, gate: str) -> np.ndarray:
    """Per-unit half-lives from the file's keep gate, by the closed form ln 0.5 / ln a."""
    with np.load(gates_file) as saved:
        means = saved[f"gate_{gate}"].astype(np.float64).reshape(-1, saved[f"gate_{gate}"].shape[-1]).mean(0)
    return np.array([math.log(0.5) / math.log(a) if a < 1 else math.inf for a in means])


def test_the_table_is_the_models_summaries_and_gates(coupled_run):
    table = pd.read_csv(coupled_run / TABLE, dtype={"seed": str})
    models = table[table["kind"] == "model"]
    assert models["model"].drop_duplicates().tolist() == list(MODELS.values())
    median_loss = {}
    for role, model in MODELS.items():
        summary = json.loads((coupled_run / f"results/models/default/{model}_s0/summary.json").read_text())
        row = models[(models["model"] == model) & (models["seed"] == "0")].iloc[0]
        assert row["role"] == role and row["params"] == summary["params"] and row["width"] == summary["width"]
        assert row["best_val_loss"] == pytest.approx(summary["best_val_loss"], abs=1e-12)
        keep = "z" if model.startswith("gru") else "f"
        lives = half_lives(coupled_run / f"results/gates/default/{model}_s0.npz", keep)
        assert row["half_life_median"] == pytest.approx(statistics.median(lives), rel=1e-6)
        assert row["half_life_max"] == pytest.approx(max(lives), rel=1e-6)
        median = models[(models["model"] == model) & (models["seed"] == "median")].iloc[0]
        median_loss[role] = statistics.median(
            json.loads((coupled_run / f"results/models/default/{model}_s{s}/summary.json").read_text())[
                "best_val_loss"
            ]
            for s in (0,)
        )
        assert median["best_val_loss"] == pytest.approx(median_loss[role], abs=1e-12)
    # the tied LSTM has three gate blocks to the LSTM's four: fewer parameters at the
    # same width, a wider model on the same budget
    params = models.drop_duplicates("model").set_index("role")
    assert params.loc["cifg_same_width", "params"] < params.loc["lstm", "params"]
    assert params.loc["cifg_same_budget", "params"] <= params.loc["lstm", "params"]
    assert params.loc["cifg_same_budget", "width"] > 24
    split = table[table["kind"] == "split"].set_index("component")["loss_difference"]
    assert split["tie"] == pytest.approx(median_loss["cifg_same_width"] - median_loss["lstm"], abs=1e-12)
    assert split["width"] == pytest.approx(
        median_loss["cifg_same_budget"] - median_loss["cifg_same_width"], abs=1e-12
    )
    assert split["tie"] + split["width"] == pytest.approx(split["total"], abs=1e-12)
    assert split["gru_against_cifg"] == pytest.approx(
        median_loss["gru_same_budget"] - median_loss["cifg_same_budget"], abs=1e-12
    )
    # the sentence the report makes of it names every model
    report = open_questions_report({"coupled_gates": table})
    assert "**Does tying the gates cost the LSTM anything?** (`coupled_gates.csv`)" in report
    assert all(model in report for model in MODELS.values())


def test_the_sentence_reads_the_split(tmp_path):
    rows = []
    for role, model, loss, life in [
        ("lstm", "lstm_w8", 1.50, 3.0),
        ("cifg_same_width", "cifg_w8", 1.52, 4.0),
        ("cifg_same_budget", "cifg_budget8", 1.49, 5.0),
        ("gru_same_budget", "gru_budget8", 1.47, 6.0),
    ]:
        rows.append({"kind": "model", "role": role, "model": model, "width": 8, "params": 100, "seed": "0",
                     "best_val_loss": loss, "half_life_median": life})  # fmt: skip
        rows.append({**rows[-1], "seed": "median"})
    for component, difference in [("tie", 0.02), ("width", -0.03), ("total", -0.01),
                                  ("gru_against_lstm", -0.03), ("gru_against_cifg", -0.02)]:  # fmt: skip
        rows.append({"kind": "split", "seed": "median", "component": component,
                     "loss_difference": difference})  # fmt: skip
    (sentence,) = coupled_gates_sentences(pd.DataFrame(rows))
    assert "the tie's cost +0.0200" in sentence and "width -0.0300" in sentence
    assert "-0.0200 against the budget CIFG" in sentence and "medians of 1 seed(s)" in sentence
    assert "cifg_budget8 5.00" in sentence


def test_the_question_trains_only_the_tied_lstms():
    plan = plan_of()  # on by default
    runs = plan.questions.coupled_gates
    assert {(r.model, r.seed) for r in plan.questions.coupled_gates_cifg} == {
        (m, s) for m in ("cifg_w325", "cifg_budget325") for s in plan.config["grid"]["seeds"]
    }
    # the LSTM and the budget GRU are the grid's own runs, not trained again
    assert set(runs) - set(plan.questions.coupled_gates_cifg) <= set(plan.runs(plan.grid))
    assert set(runs) <= set(plan.training_runs) and set(runs) <= set(plan.gate_runs)
    assert TABLE in plan.targets["open_questions"] and TABLE in plan.open_question_tables


def test_switched_off_it_is_no_target_and_trains_nothing():
    off = plan_of(lambda c: c["open_questions"]["coupled_gates"].update(enabled=False))
    assert TABLE not in off.targets["open_questions"]
    assert not any(run.model.startswith("cifg") for run in off.training_runs)
    assert not {c.experiment for c in off_claims(off)} & {"G8"}


def off_claims(plan):
    from gatedrnn.claims import ledger_claims

    resources = REPO / "workflow" / "resources"
    return ledger_claims(
        resources / "published.yaml",
        resources / "new_findings.yaml",
        enabled=plan.enabled_questions,
        known=list(plan.config["open_questions"]),
    )


def test_the_ledger_rows_read_the_table():
    findings = [c for c in load_claims(REPO / "workflow/resources/new_findings.yaml") if c.experiment == "G8"]
    assert findings and {c.question for c in findings} == {"coupled_gates"}
    assert {table for c in findings for table in c.tables()} == {TABLE}


def test_the_ledger_rows_take_the_seeds_paired():
    """At the grid's ten seeds G8's rows read its model rows seed by seed (the tie's cost is
    the median of cifg_w - lstm at each seed, paired, with its share of seed bootstraps),
    never the difference of the medians alone; the table's median row is no seed."""
    from gatedrnn.claims.judge import judge

    rng = np.random.default_rng(7)
    losses = {"lstm": 1.575, "cifg_same_width": 1.582, "cifg_same_budget": 1.566, "gru_same_budget": 1.5662}
    rows = []
    for role, centre in losses.items():
        seeds = centre + rng.normal(0, 0.004, size=10)
        rows += [{"kind": "model", "role": role, "seed": str(s), "best_val_loss": seeds[s],
                  "half_life_median": 0.7 + 0.01 * s} for s in range(10)]  # fmt: skip
        # the table's median row: the seeds' median (a loss of 9 would show if read as a seed)
        rows.append({"kind": "model", "role": role, "seed": "median", "best_val_loss": 9.0,
                     "half_life_median": statistics.median(0.7 + 0.01 * s for s in range(10))})  # fmt: skip
    table = pd.DataFrame(rows)
    by_seed = table[table.seed != "median"].pivot(index="seed", columns="role", values="best_val_loss")
    findings = {
        c.id: c for c in load_claims(REPO / "workflow/resources/new_findings.yaml") if c.experiment == "G8"
    }
    expected = {
        "G8.tie.loss_difference": (by_seed.cifg_same_width - by_seed.lstm).median(),
        "G8.width.loss_difference": (by_seed.cifg_same_budget - by_seed.cifg_same_width).median(),
        "G8.gru_against_tied_lstm.loss_difference": (
            by_seed.gru_same_budget - by_seed.cifg_same_budget
        ).median(),
        "G8.tied_lstm_budget.half_life_median": statistics.median(0.7 + 0.01 * s for s in range(10)),
    }
    for claim_id, value in expected.items():
        row = judge(findings[claim_id], {TABLE: table})
        assert row["verdict"] == "new" and "over 10 seeds" in row["reproduced"], row["reproduced"]
        assert math.isclose(float(row["reproduced"].split(" ")[0]), value, rel_tol=1e-5), (claim_id, row)
