"""G7, what the normalisation changes: the study's model against the old one. The
question's table against numbers written out here, the verdicts on both sets of
tables against the ledger's own verdicts, and the sentence."""

from __future__ import annotations

import io
import math

import pandas as pd
import pytest

from gatedrnn.claims import build_ledger, parse_claims
from gatedrnn.claims.overlay import verdicts_on_both
from gatedrnn.questions.model_normalisation import (
    COLUMNS,
    model_normalisation_sentences,
    normalisation_table,
)


def gru_vs_lstm(lstm, budget, same):
    """D3's table: three seeds per model and their median."""
    rows = []
    for model, cell, losses in (
        ("lstm_w8", "lstm", lstm),
        ("gru_budget8", "gru", budget),
        ("gru_w8", "gru", same),
    ):
        row = {"model": model, "cell": cell, "width": 8, "params": 100}
        row |= {f"seed_{i}": v for i, v in enumerate(losses)}
        rows.append(row | {"median": sorted(losses)[1]})
    return pd.DataFrame(rows)


def split(structure, width):
    total = structure + width
    return pd.DataFrame(
        {
            "component": ["structure", "width", "total"],
            "comparison": ["a", "b", "c"],
            "loss_difference": [structure, width, total],
            "share_of_total": [structure / total, width / total, 1.0],
        }
    )


def gates(model, means):
    return pd.DataFrame(
        [
            {"model": model, "seed": s, "gate": g, "mean": m}
            for s, row in enumerate(means)
            for g, m in row.items()
        ]
    )


def tables(lstm_losses, forget, structure):
    return {
        "gru_vs_lstm.csv": gru_vs_lstm(lstm_losses, [1.5, 1.52, 1.51], [1.55, 1.56, 1.57]),
        "gru_advantage_split.csv": split(structure, 0.02),
        "lstm_gates.csv": gates("lstm_w8", [{"forget": f, "input": 0.8} for f in forget]),
        "gru_gates.csv": gates("gru_budget8", [{"update": 0.25}, {"update": 0.27}]),
    }


STUDY = tables([1.60, 1.64, 1.62], [0.60, 0.64], 0.06)
OLD = tables([1.70, 1.66, 1.68], [0.40, 0.44], 0.01)


def claims():
    return parse_claims(
        {
            "claims": [
                {
                    "id": "D3.lstm.median",
                    "experiment": "D3",
                    "description": "LSTM median",
                    "published": 1.63,
                    "table": "results/tables/gru_vs_lstm.csv",
                    "where": {"model": "{reference_lstm}"},
                    "column": "median",
                    "rule": "within",
                    "tolerance": {"abs": 0.03},
                },
                {
                    "id": "C2.forget.mean",
                    "experiment": "C2",
                    "description": "forget mean",
                    "published": 0.6,
                    "table": "results/tables/lstm_gates.csv",
                    "where": {"model": "{reference_lstm}", "gate": "forget"},
                    "column": "mean",
                    "agg": "mean",
                    "rule": "within",
                    "tolerance": {"abs": 0.05},
                },
                {
                    "id": "D4.structure_wins",
                    "experiment": "D4",
                    "description": "structure is most of the gap",
                    "published": "structure > width",
                    "rule": "direction",
                    "table": "results/tables/gru_advantage_split.csv",
                    "compare": {
                        "left": {"where": {"component": "structure"}, "column": "loss_difference"},
                        "op": ">",
                        "right": {"where": {"component": "width"}, "column": "loss_difference"},
                    },
                },
                {
                    "id": "E1.elsewhere",
                    "experiment": "E1",
                    "description": "a table the old model has no copy of",
                    "published": 1.0,
                    "table": "results/tables/elsewhere.csv",
                    "column": "x",
                    "rule": "within",
                    "tolerance": {"abs": 0.1},
                },
            ]
        }
    )


NAMES = {"reference_lstm": "lstm_w8", "budget_matched_gru": "gru_budget8", "width_matched_gru": "gru_w8"}


def by_path(named):
    return {f"results/tables/{name}": frame for name, frame in named.items()}


def test_values_are_both_models_numbers_and_their_difference():
    table = normalisation_table(STUDY, OLD, verdicts_on_both([], by_path(STUDY), by_path(OLD), NAMES))
    assert list(table.columns) == COLUMNS
    values = table[table["kind"] == "value"].set_index(["ledger_table", "quantity", "model"])
    lstm = values.loc[("gru_vs_lstm.csv", "median_best_val_loss", "lstm_w8")]
    assert (lstm["study_model"], lstm["old_model"]) == (1.62, 1.68)
    assert lstm["difference"] == pytest.approx(1.68 - 1.62)
    forget = values.loc[("lstm_gates.csv", "forget_mean", "lstm_w8")]
    assert forget["study_model"] == pytest.approx(0.62) and forget["old_model"] == pytest.approx(0.42)
    share = values.loc[("gru_advantage_split.csv", "structure_share_of_total", "")]
    assert share["study_model"] == pytest.approx(0.06 / 0.08) and share["old_model"] == pytest.approx(
        0.01 / 0.03
    )
    assert values.loc[("gru_gates.csv", "update_mean", "gru_budget8"), "difference"] == 0
    # every model of D3, every gate of both gate tables, every component of D4 (two columns each)
    assert len(values) == 3 + 2 + 1 + 3 * 2


def test_verdicts_on_both_are_the_ledgers_verdicts_on_either_set_of_tables():
    found = verdicts_on_both(claims(), by_path(STUDY), by_path(OLD), NAMES).set_index("id")
    # E1 reads a table only the study's set holds: its verdict cannot change, so it is not judged
    assert list(found.index) == ["D3.lstm.median", "C2.forget.mean", "D4.structure_wins"]
    judged = [c for c in claims() if c.id in found.index]
    for tables, column in ((STUDY, "study_verdict"), (OLD, "old_verdict")):
        ledger = build_ledger(judged, by_path(tables), NAMES).set_index("id")
        assert (found[column] == ledger.loc[found.index, "verdict"]).all()
    assert list(found["study_verdict"]) == ["reproduced", "reproduced", "holds"]
    assert list(found["old_verdict"]) == ["differs", "differs", "fails"]  # 1.68, 0.42, 0.01 < 0.02
    assert found.loc["D3.lstm.median", "old_value"] == 1.68
    assert math.isnan(found.loc["D4.structure_wins", "study_value"])  # a finding has no one number


def test_the_summary_counts_the_verdicts_that_change_and_the_sentence_names_them():
    verdicts = verdicts_on_both(claims(), by_path(STUDY), by_path(OLD), NAMES)
    table = normalisation_table(STUDY, OLD, verdicts)
    summary = table[table["kind"] == "summary"].iloc[0]
    assert (summary["quantity"], summary["study_model"], summary["old_model"]) == ("verdicts_changed", 3, 3)
    rows = table[table["kind"] == "verdict"]
    assert list(rows["changed"]) == [True, True, True]
    same = normalisation_table(
        STUDY, STUDY, verdicts_on_both(claims(), by_path(STUDY), by_path(STUDY), NAMES)
    )
    assert same.loc[same["kind"] == "summary", "old_model"].item() == 0
    # through a CSV, as the report reads it
    (sentence,) = model_normalisation_sentences(pd.read_csv(pd.io.common.StringIO(table.to_csv(index=False))))
    assert "lstm_w8 1.6200 / 1.6800 (+0.0600)" in sentence
    assert "LSTM forget mean 0.6200 / 0.4200 (-0.2000)" in sentence
    assert "3 change" in sentence and "D3.lstm.median reproduced -> differs" in sentence
    (unchanged,) = model_normalisation_sentences(same)
    assert "0 change" in unchanged and "(none)" in unchanged


# --------------------------------------------------------------------------- the plan


def plan_of(mutate=None, base="config.yaml"):
    import copy

    import yaml
    from conftest import REPO

    from gatedrnn.plan import Plan

    config = copy.deepcopy(yaml.safe_load((REPO / "config" / base).read_text()))
    if mutate is not None:
        mutate(config)
    return Plan.from_config(config)


def test_the_question_trains_the_comparison_under_the_old_model_at_the_grid_s_seeds():
    plan = plan_of()
    runs = plan.questions.model_normalisation
    assert {(r.regime, r.model) for r in runs} == {
        ("old_model", "lstm_w325"), ("old_model", "gru_w325"), ("old_model", "gru_budget325")
    }  # fmt: skip
    seeds = plan.config["grid"]["seeds"]
    assert sorted({r.seed for r in runs}) == sorted(seeds) and len(runs) == 3 * len(seeds)
    assert set(runs) <= set(plan.training_runs)
    # its gates: the LSTM's and the budget GRU's (C2, C3, C5, D1, D2, D5 of the old model)
    assert {("old_model", "lstm_w325"), ("old_model", "gru_budget325")} == {
        (r.regime, r.model) for r in plan.gate_runs if r.regime == "old_model"
    }
    assert plan.train_config("old_model") == plan.train_config("default") | {
        "readout_norm": "none", "vocabulary": "corpus"
    }  # fmt: skip
    assert "results/tables/model_normalisation.csv" in plan.targets["open_questions"]
    off = plan_of(lambda c: c["open_questions"]["model_normalisation"].update(enabled=False))
    assert not {r for r in off.training_runs if r.regime == "old_model"}
    assert "results/tables/model_normalisation.csv" not in off.targets["open_questions"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"readout_norm": "layernorm", "vocabulary": "printable"}, "it trains the same model"),
        ({"readout_norm": "none", "vocabulary": "corpus", "lr": 0.01}, "which also changes lr"),
    ],
)
def test_a_regime_that_does_not_change_only_the_model_is_refused(overrides, message):
    with pytest.raises(ValueError, match=message):
        plan_of(lambda c: c["regimes"].update(old_model=overrides))


def test_an_undefined_or_off_corpus_regime_is_refused():
    with pytest.raises(ValueError, match="names regime 'nowhere'"):
        plan_of(lambda c: c["open_questions"]["model_normalisation"].update(regime="nowhere"))
    with pytest.raises(ValueError, match="it must set dataset: default"):
        plan_of(lambda c: c["open_questions"]["model_normalisation"].update(regime="long_memory"))


# --------------------------------------------------------------------------- smoke run


def test_smoke_run_answers_the_question_with_both_models(smoke_run):
    import json

    from conftest import REPO

    from gatedrnn.claims import load_claims
    from gatedrnn.claims.select import read_tables

    table = pd.read_csv(smoke_run / "results/tables/model_normalisation.csv")
    assert list(table.columns) == COLUMNS
    old_dir = smoke_run / "results/model_normalisation/tables"
    study = read_tables([f"results/tables/{p.name}" for p in sorted(old_dir.glob("*.csv"))], base=smoke_run)
    old = {f"results/tables/{p.name}": pd.read_csv(p) for p in sorted(old_dir.glob("*.csv"))}
    # the rule wrote what the code gives on the two sets of tables
    names = plan_of(base="smoke.yaml").claim_models
    verdicts = verdicts_on_both(load_claims(REPO / "workflow/resources/published.yaml"), study, old, names)
    by_name = (
        {k.rsplit("/", 1)[1]: v for k, v in study.items()},
        {k.rsplit("/", 1)[1]: v for k, v in old.items()},
    )
    again = normalisation_table(*by_name, verdicts)
    again = pd.read_csv(io.StringIO(again.to_csv(index=False)))  # as written (an empty cell reads NaN)
    pd.testing.assert_frame_equal(table, again, check_dtype=False)
    assert len(verdicts) > 0 and (table["kind"] == "verdict").sum() == len(verdicts)
    # each side trained its own model: the old one without normalisation on the corpus's alphabet
    for regime, norm, vocabulary in (("default", "layernorm", "printable"), ("old_model", "none", "corpus")):
        summary = json.loads((smoke_run / f"results/models/{regime}/lstm_w24_s0/summary.json").read_text())
        assert (summary["train_config"]["readout_norm"], summary["train_config"]["vocabulary"]) == (
            norm,
            vocabulary,
        )
    losses = table[(table["kind"] == "value") & (table["ledger_table"] == "gru_vs_lstm.csv")]
    assert set(losses["model"]) == {"lstm_w24", "gru_w24", "gru_budget24"}
    # the ledger's G7 rows and the report's sentence
    ledger = pd.read_csv(smoke_run / "results/claims.csv").set_index("id")
    assert ledger.loc["G7.verdicts_changed", "verdict"] == "new"
    assert str(ledger.loc["G7.verdicts_changed", "reproduced"]).startswith(
        format(float(table.loc[table["quantity"] == "verdicts_changed", "old_model"].item()), "g")
    )
    report = (smoke_run / "results/open_questions.md").read_text()
    assert "**What the normalisation changes** (`model_normalisation.csv`)" in report


def test_the_published_claims_compare_on_the_reference_grid_tables_without_error():
    """Every published claim on the grid's tables is judged on both sets: a finding that
    inherits its group's selector (D4's ``seed_*`` column, no ``where``) has no one value
    (NaN), where it once crashed the rule on "selects 6 cells"."""
    from conftest import REPO

    from gatedrnn.claims import load_claims

    tables = {
        f"results/tables/{name}": pd.read_csv(REPO / "reference" / "tables" / name)
        for name in ("gru_vs_lstm.csv", "gru_advantage_split.csv")
    }
    names = {
        "reference_lstm": "lstm_w325",
        "width_matched_gru": "gru_w325",
        "budget_matched_gru": "gru_budget325",
        "budget_matched_rnn": "rnn_budget325",
    }
    claims = load_claims(REPO / "workflow" / "resources" / "published.yaml")
    both = verdicts_on_both(claims, tables, tables, names)
    finding = both[both["id"] == "D4.finding.about_half_and_half"]
    assert len(finding) == 1 and math.isnan(finding["study_value"].iloc[0])
    assert (both["study_verdict"] == both["old_verdict"]).all()
