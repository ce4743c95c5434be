"""The study's values on the figures (gatedrnn.report.published_marks): read from
workflow/resources/published.yaml, never typed into the code, and drawn by the figure
functions as artists labelled as the study's. The expected numbers below are read from
the YAML file itself, so an edit of published.yaml moves them with it."""

from __future__ import annotations

import matplotlib.text
import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from gatedrnn.claims.load import flatten_groups
from gatedrnn.report import gates, questions, study
from gatedrnn.report.published_marks import STUDY, Published, StudyValue, study_label

PUBLISHED = REPO / "workflow" / "resources" / "published.yaml"
MODELS = {
    "reference_lstm": "lstm_w325",
    "width_matched_gru": "gru_w325",
    "budget_matched_gru": "gru_budget325",
    "budget_matched_rnn": "rnn_budget325",
}


@pytest.fixture(scope="module")
def published() -> Published:
    return Published.load(PUBLISHED, MODELS)


@pytest.fixture(scope="module")
def yaml_values() -> dict[str, object]:
    """``id -> published`` straight from the YAML (groups flattened), not via the loader."""
    entries = flatten_groups(yaml.safe_load(PUBLISHED.read_text())["claims"])
    return {entry["id"]: entry["published"] for entry in entries}


def number(published_value) -> float:
    """A published number; for the study's seeds (a list), their median, as its table prints."""
    if isinstance(published_value, list):
        return float(np.median(published_value))
    return float(published_value)


def drawn(monkeypatch, module):
    """Capture the figure a plotting function saves (instead of writing it)."""
    figures = []
    monkeypatch.setattr(module, "save_figure", lambda fig, path: figures.append(fig))
    return figures


def study_lines(fig):
    """Every line artist of the figure that draws a study value (``gid`` "study")."""
    return [line for ax in fig.axes for line in ax.get_lines() if line.get_gid() == STUDY]


def legend_texts(fig) -> list[str]:
    texts = []
    for ax in fig.axes:
        if (legend := ax.get_legend()) is not None:
            texts += [legend.get_title().get_text(), *(t.get_text() for t in legend.get_texts())]
    return texts


# --------------------------------------------------------------------------- the helper


@pytest.mark.parametrize(
    "claim_id",
    [
        "A1.highway.tau10.forget0.9",
        "D3.gru_vs_lstm.lstm.median",
        "D4.gru_advantage_split.structure",
        "D5.unit_half_lives.gru.median",
        "E1.hidden_perturbation_decay.rnn.half_life",
    ],
)
def test_the_helper_returns_published_yaml_s_value_for_a_claim_id(published, yaml_values, claim_id):
    assert published.get(claim_id).number == pytest.approx(number(yaml_values[claim_id]), rel=1e-12)


def test_a_value_is_found_by_the_cell_it_is_judged_on(published, yaml_values):
    value = published.one("gru_vs_lstm.csv", "seed_*", agg="median", model="gru_budget325")
    assert value.claim_id == "D3.gru_vs_lstm.gru_budget.median"  # placeholders filled
    # the median claim carries the study's three seeds (issue #47): its number is their median
    assert value.seeds == tuple(yaml_values["D3.gru_vs_lstm.gru_budget.median"])
    assert value.number == pytest.approx(float(np.median(yaml_values["D3.gru_vs_lstm.gru_budget.median"])))
    highway = published.find("highway.csv", "forget_0.99")
    assert [v.where["distance"] for v in highway] == [10, 47, 100, 500]
    assert (
        published.one("highway.csv", "forget_0.99", distance=47.0).claim_id == "A1.highway.tau47.forget0.99"
    )
    with pytest.raises(ValueError, match="published values"):
        published.one("highway.csv", "forget_0.99")  # four: the figure would have to choose


def test_findings_and_texts_are_not_values(published):
    assert published.get("E3.finding.open_forget_gate_hurts_loss") is None  # a direction: no number
    assert published.get("A5.gru_reset_placement_check.condition_holds") is None  # text
    assert published.find("forget_bias_sweep.csv", "best_val_loss") == []
    assert len(Published()) == 0


def test_a_label_names_the_experiment_and_the_formula():
    formula = StudyValue("X.a", "A1", 0.5, "", "t.csv", "c", source="formula")
    spec = StudyValue("D3.b", "D3", 1.5, "", "t.csv", "c")
    assert study_label(formula) == "study (A1; spec's formula)"
    assert study_label([spec, spec], "loss", "median of 3 seeds") == "study (D3; median of 3 seeds): loss"


# --------------------------------------------------------------------------- the figures


def curves(models=("lstm_w325", "gru_budget325", "gru_w325", "rnn_budget325")):
    rows = []
    for k, model in enumerate(models):
        for seed in (0, 1):
            for step in range(0, 850, 50):
                rows.append((model, model[:3], 325 + k, seed, step, 2.4 - step / 1000 - 0.01 * k))
    return pd.DataFrame(rows, columns=["model", "cell", "width", "seed", "step", "val_loss"])


def test_the_validation_curves_mark_the_study_s_best_losses(monkeypatch, published, yaml_values):
    figures = drawn(monkeypatch, study)
    marked = study.plot_val_loss_curves(curves(), "unused.png", published)
    assert set(marked) == {
        "D3.gru_vs_lstm.lstm.median",
        "D3.gru_vs_lstm.gru_budget.median",
        "D3.gru_vs_lstm.gru_w325.median",
    }
    lines = study_lines(figures[0])
    levels = sorted(float(line.get_ydata()[0]) for line in lines)
    assert levels == sorted(number(yaml_values[i]) for i in marked)
    assert "study (D3; median of 3 seeds): best val. loss" in legend_texts(figures[0])
    # without published values nothing is marked
    assert study.plot_val_loss_curves(curves(), "unused.png") == []
    assert study_lines(figures[1]) == []


def test_the_highway_marks_every_formula_value(monkeypatch, published, yaml_values):
    figures = drawn(monkeypatch, study)
    distances = [1, 10, 47, 100, 500]
    highway = pd.DataFrame({"distance": distances, "forget_0.9": [0.9**d for d in distances]})
    biases = pd.DataFrame({"forget_bias": [0], "sigmoid": [0.5], "after_10": [0.5**10]})
    marked = study.plot_highway(highway, biases, "unused.png", published)
    assert marked == [
        "A1.highway.tau10.forget0.9",
        "A1.highway.tau47.forget0.9",
        "A1.highway.tau100.forget0.9",
        "A1.highway.tau500.forget0.9",
        "A2.forget_bias_init.b0.sigmoid",
        "A2.forget_bias_init.b0.after_10",
    ]
    assert "study (A1; spec's formula)" in legend_texts(figures[0])
    left = study_lines(figures[0])[0]
    assert list(left.get_xdata()) == [10, 47, 100, 500]
    assert list(left.get_ydata()) == [number(yaml_values[i]) for i in marked[:4]]


def test_the_forget_bias_sweep_marks_the_default_initialisation_only(monkeypatch, published, yaml_values):
    figures = drawn(monkeypatch, gates)
    sweep = pd.DataFrame(
        {
            "model": "lstm_w325",
            "forget_bias": [0.0, 0.0, 3.0, 3.0],
            "seed": [0, 1, 0, 1],
            "init": ["pytorch_default"] * 2 + ["forget_bias"] * 2,
            "best_val_loss": [1.6, 1.7, 1.8, 1.9],
            "state_half_life": [2.0, 2.5, 1.5, float("nan")],
            "grad_half_distance": [1.0, 1.2, 3.0, 20.0],
        }
    )
    marked = gates.plot_forget_bias_sweep(sweep, "unused.png", published)
    assert marked == ["D3.gru_vs_lstm.lstm.median", "E1.hidden_perturbation_decay.lstm.half_life"]
    points = study_lines(figures[0])
    assert any(text.startswith("study (D3") for text in legend_texts(figures[0]))
    assert [(list(p.get_xdata()), list(p.get_ydata())) for p in points] == [
        ([0.0], [number(yaml_values[marked[0]])]),
        ([0.0], [number(yaml_values[marked[1]])]),
    ]


def split_table(paired: bool = True) -> pd.DataFrame:
    """G2 at two widths, parts of opposite signs at 325 (their shares pass 100 %)."""
    rows = []
    for width, parts in ((128, (0.05, 0.03)), (325, (-0.02, 0.03))):
        for component, value in zip(("structure", "width", "total"), (*parts, sum(parts)), strict=True):
            row = {"reference_width": width, "component": component, "loss_difference": value,
                   "share_of_total": value / sum(parts), "seeds": 3}  # fmt: skip
            if paired:
                row.update(paired_median=value + 0.001, low=value - 0.004, high=value + 0.006)
            rows.append(row)
    return pd.DataFrame(rows)


def test_the_split_by_width_marks_the_study_at_the_reference_width_with_intervals_and_no_shares(
    monkeypatch, published, yaml_values
):
    figures = drawn(monkeypatch, questions)
    table = split_table()
    marked = questions.plot_split_by_width(table, "unused.png", published, reference_width=325)
    assert marked == ["D4.gru_advantage_split.structure", "D4.gru_advantage_split.width"]
    ax = figures[0].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["128", "325"]  # no slot of its own
    points = study_lines(figures[0])
    # the study's structure and width parts on the structure and width bars at 325 (tick 1)
    assert [float(p.get_xdata()[0]) for p in points] == pytest.approx([1 - questions.SPLIT_STEP, 1.0])
    assert [float(p.get_ydata()[0]) for p in points] == [number(yaml_values[i]) for i in marked]
    # bars at the medians of the seed-by-seed parts, each with its interval; no shares
    heights = sorted(round(p.get_height(), 6) for p in ax.patches)
    assert heights == sorted(round(v, 6) for v in table["paired_median"])
    caps = [c for c in ax.collections if c.get_segments()]
    spans = sorted(round(float(seg[1][1] - seg[0][1]), 6) for c in caps for seg in c.get_segments())
    assert spans == [0.01] * len(table)
    assert not any("%" in t.get_text() for t in ax.texts)
    assert questions.plot_split_by_width(table, "unused.png", published, reference_width=24) == []


def test_the_split_by_width_of_a_table_without_per_seed_parts_draws_no_intervals(monkeypatch, published):
    figures = drawn(monkeypatch, questions)
    table = split_table(paired=False)
    questions.plot_split_by_width(table, "unused.png", published, reference_width=325)
    ax = figures[0].axes[0]
    assert sorted(round(p.get_height(), 6) for p in ax.patches) == sorted(
        round(v, 6) for v in table["loss_difference"]
    )
    assert not [c for c in ax.collections if c.get_segments()]
    assert "no interval" in ax.get_title()


def test_longer_training_marks_the_gate_means_half_lives_and_losses(monkeypatch, published, yaml_values):
    figures = drawn(monkeypatch, questions)
    runs = [("lstm_w325", "lstm", "forget"), ("gru_budget325", "gru", "update")]
    table = pd.DataFrame(
        [(m, c, g, steps, 800, 0.5, 1.0) for m, c, g in runs for steps in (800, 3200)],
        columns=["model", "cell", "keep_gate", "steps", "base_steps", "keep_gate_mean", "half_life_median"],
    )
    long_curves = curves([m for m, _, _ in runs]).assign(regime_steps=3200)
    marked = questions.plot_longer_training(long_curves, table, "unused.png", published)
    assert marked == [
        "D3.gru_vs_lstm.lstm.median",
        "D3.gru_vs_lstm.gru_budget.median",
        "C2.lstm_gates.forget.mean",
        "D5.unit_half_lives.lstm.median",
        "D1.gru_gates.update.mean",
        "D5.unit_half_lives.gru.median",
    ]
    levels = [float(line.get_ydata()[0]) for line in study_lines(figures[0])]
    assert sorted(levels) == sorted(number(yaml_values[i]) for i in marked)
    legend = figures[0].legends[0]
    assert any(t.get_text().startswith("study (C2, D1, D3, D5)") for t in legend.get_texts())


def test_a_marked_figure_is_byte_stable(tmp_path, published):
    paths = [tmp_path / "a.png", tmp_path / "b.png"]
    for path in paths:
        study.plot_val_loss_curves(curves(), path, published)
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_the_regime_figure_draws_the_study_s_gru_lstm_gap_and_no_text_below_9_points(
    monkeypatch, published, yaml_values
):
    from gatedrnn.report import regimes

    figures = drawn(monkeypatch, regimes)
    rows = []
    for k, (optimizer, lr) in enumerate((("adam", 0.002), ("adam", 0.005), ("sgd", 1.0))):
        for cell, model in (("lstm", "lstm_w325"), ("gru", "gru_budget325")):
            point = {"cell": cell, "model": model, "regime": f"r{k}", "optimizer": optimizer, "lr": lr}
            stats = {"steps": 800, "best_val_loss": 1.6 + k / 100, "gate_mean": 0.4, "half_life_max": 5.0,
                     "units_below_half": 200, "corr_i_one_minus_f": 0.1, "gru_minus_lstm": -0.01}  # fmt: skip
            rows.append({**point, **stats})
    table = pd.DataFrame(rows)
    gap = regimes.study_gap(published, table)
    ids = ["D3.gru_vs_lstm.gru_budget.median", "D3.gru_vs_lstm.lstm.median"]
    assert [v.claim_id for v in gap[1]] == ids
    assert gap[0] == pytest.approx(number(yaml_values[ids[0]]) - number(yaml_values[ids[1]]), abs=1e-12)
    regimes.plot_regime_sensitivity(table, {}, "unused.png", gap)
    fig = figures[0]
    gap_panels = [ax for ax in fig.axes if "loss minus the LSTM's" in ax.get_title()]
    assert len(gap_panels) == 1
    levels = [float(line.get_ydata()[0]) for line in study_lines(fig)]
    assert levels == [pytest.approx(gap[0])]
    assert any(t.startswith("study (D3)") for t in (t.get_text() for t in fig.legends[0].get_texts()))
    texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text().strip()]
    assert texts and min(t.get_fontsize() for t in texts) >= 9
    # a table whose models the study did not publish: no gap
    assert regimes.study_gap(published, table.assign(model="lstm_w7")) is None
