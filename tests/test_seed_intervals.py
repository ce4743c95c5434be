"""The intervals over seeds that D3's and D4's tables carry (issue #47): against a
bootstrap written out here with numpy (the same generator and seed, drawn by hand),
against the closed form at two seeds, against the ledger's own judgement of the same
seed columns (bit for bit: the table and the ledger must not disagree), empty at one
seed, and bit-identical from call to call."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gatedrnn.analysis.intervals import BOOTSTRAP_SEED, BOOTSTRAPS
from gatedrnn.claims import Claim, ClaimError, load_claims
from gatedrnn.claims.uncertain import finding_judgement, value_judgement
from gatedrnn.tables.study import advantage_split_intervals, gru_vs_lstm_intervals, gru_vs_lstm_table

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "workflow" / "resources" / "published.yaml"
TABLE = "results/tables/gru_vs_lstm.csv"
NAMES = {"reference_lstm": "lstm_w8", "width_matched_gru": "gru_w8", "budget_matched_gru": "gru_budget9"}

# Five seeds of three models: the GRUs' gaps to the LSTM of both signs.
LOSSES = {
    "lstm_w8": [1.612, 1.598, 1.634, 1.605, 1.621],
    "gru_budget9": [1.601, 1.603, 1.611, 1.590, 1.618],
    "gru_w8": [1.625, 1.609, 1.631, 1.617, 1.640],
}


def summaries(losses: dict[str, list[float]]) -> list[dict]:
    widths = {"lstm_w8": 8, "gru_budget9": 9, "gru_w8": 8}
    return [
        {
            "model": m,
            "cell": m.split("_")[0],
            "width": widths[m],
            "params": 100,
            "seed": s,
            "best_val_loss": v,
        }
        for m, vs in losses.items()
        for s, v in enumerate(vs)
    ]


def table(losses=LOSSES) -> pd.DataFrame:
    return gru_vs_lstm_intervals(gru_vs_lstm_table(summaries(losses)), "lstm_w8")


def by_hand(values) -> tuple[float, float]:
    """The 95 % percentile interval of the median over the ledger's resamples, written
    out: one generator seeded with the bootstrap's seed, indices drawn with replacement."""
    values = np.asarray(values, dtype=np.float64)
    picks = np.random.default_rng(BOOTSTRAP_SEED).integers(0, values.size, size=(BOOTSTRAPS, values.size))
    low, high = np.percentile(np.median(values[picks], axis=1), [2.5, 97.5])
    return float(low), float(high)


def test_d3_intervals_match_a_bootstrap_written_out_by_hand():
    found = table().set_index("model")
    lstm = np.asarray(LOSSES["lstm_w8"])
    for model, values in LOSSES.items():
        row = found.loc[model]
        assert row["seeds"] == 5
        assert (row["median_low"], row["median_high"]) == pytest.approx(by_hand(values), abs=1e-15)
        assert row["median_low"] <= row["median"] <= row["median_high"]
        if model == "lstm_w8":  # no gap to itself
            assert row[["paired_minus_lstm", "paired_minus_lstm_low", "paired_minus_lstm_high"]].isna().all()
            continue
        gaps = np.asarray(values) - lstm  # seed by seed
        assert row["paired_minus_lstm"] == pytest.approx(float(np.median(gaps)), abs=1e-15)
        interval = (row["paired_minus_lstm_low"], row["paired_minus_lstm_high"])
        assert interval == pytest.approx(by_hand(gaps), abs=1e-15)
    # the gap paired by seed is not the difference of medians (nor its interval that of two medians)
    budget = found.loc["gru_budget9"]
    assert budget["paired_minus_lstm"] != pytest.approx(budget["median"] - found.loc["lstm_w8", "median"])


def test_d3_keeps_its_columns_and_appends_the_intervals():
    plain = gru_vs_lstm_table(summaries(LOSSES))
    found = table()
    assert list(found.columns[: len(plain.columns)]) == list(plain.columns)
    pd.testing.assert_frame_equal(found[plain.columns], plain)
    assert list(found.columns[len(plain.columns) :]) == [
        "seeds",
        "median_low",
        "median_high",
        "paired_minus_lstm",
        "paired_minus_lstm_low",
        "paired_minus_lstm_high",
    ]


def test_two_seeds_give_the_seeds_range_and_one_seed_an_empty_interval():
    # two seeds: a resample's median is a, b or (a + b) / 2, and a and b each come a
    # quarter of the time, so the 2.5 % and 97.5 % points are the two seeds
    two = table({m: v[:2] for m, v in LOSSES.items()}).set_index("model")
    for model, values in LOSSES.items():
        interval = (two.loc[model, "median_low"], two.loc[model, "median_high"])
        assert interval == (min(values[:2]), max(values[:2]))
    gaps = np.asarray(LOSSES["gru_w8"][:2]) - np.asarray(LOSSES["lstm_w8"][:2])
    assert two.loc["gru_w8", "paired_minus_lstm_low"] == gaps.min()
    assert two.loc["gru_w8", "paired_minus_lstm_high"] == gaps.max()
    # one seed: no spread, so no interval (never a zero-width one)
    one = table({m: v[:1] for m, v in LOSSES.items()})
    assert (one["seeds"] == 1).all()
    empty = ["median_low", "median_high", "paired_minus_lstm_low", "paired_minus_lstm_high"]
    assert one[empty].isna().all().all()
    split = advantage_split_intervals(one, *NAMES.values())
    assert (split["seeds"] == 1).all() and split[["low", "high"]].isna().all().all()
    # a model without a loss at one seed: an empty interval, as the ledger judges it (NaN)
    gappy = table({**LOSSES, "gru_w8": [*LOSSES["gru_w8"][:4], float("nan")]}).set_index("model")
    assert gappy.loc["gru_w8", "seeds"] == 4
    assert gappy.loc["gru_w8", ["median_low", "median_high", "paired_minus_lstm_low"]].isna().all()


def test_d4_parts_are_paired_by_seed_with_the_columns_of_split_by_width():
    d3 = table()
    split = advantage_split_intervals(d3, *NAMES.values()).set_index("component")
    loss = {m: np.asarray(v) for m, v in LOSSES.items()}
    parts = {
        "structure": loss["lstm_w8"] - loss["gru_w8"],
        "width": loss["gru_w8"] - loss["gru_budget9"],
        "total": loss["lstm_w8"] - loss["gru_budget9"],
    }
    for component, per_seed in parts.items():
        row = split.loc[component]
        assert [row[f"seed_{s}"] for s in range(5)] == pytest.approx(list(per_seed), abs=1e-15)
        assert row["paired_median"] == pytest.approx(float(np.median(per_seed)), abs=1e-15)
        assert (row["low"], row["high"]) == pytest.approx(by_hand(per_seed), abs=1e-15)
        assert row["seeds"] == 5
    # D4's own columns are the difference of medians, unchanged
    medians = d3.set_index("model")["median"]
    assert split.loc["structure", "loss_difference"] == medians["lstm_w8"] - medians["gru_w8"]


def test_the_tables_intervals_are_the_ledgers_bit_for_bit():
    """The ledger judges D3's medians and D4's parts from the seed columns; the tables'
    intervals over the same columns are its intervals exactly (one bootstrap, not two)."""
    d3 = table()
    split = advantage_split_intervals(d3, *NAMES.values()).set_index("component")
    tables = {TABLE: d3}
    claims = {c.id: c.fill(NAMES) for c in load_claims(PUBLISHED) if c.id.startswith(("D3.", "D4."))}
    rows = d3.set_index("model")
    for claim_id, model in (
        ("D3.gru_vs_lstm.gru_budget.median", "gru_budget9"),
        ("D3.gru_vs_lstm.gru_w325.median", "gru_w8"),
        ("D3.gru_vs_lstm.lstm.median", "lstm_w8"),
    ):
        found = value_judgement(claims[claim_id], tables)
        expected = rows.loc[model, ["median", "median_low", "median_high"]]
        assert (found.point, found.low, found.high) == tuple(expected)
    for claim_id, component in (
        ("D4.gru_advantage_split.structure", "structure"),
        ("D4.gru_advantage_split.width", "width"),
    ):
        found = value_judgement(claims[claim_id], tables)
        expected = split.loc[component, ["paired_median", "low", "high"]]
        assert (found.point, found.low, found.high) == tuple(expected)
    # the gap to the LSTM, as a claim would state it (a minus selector, seed by seed)
    gap = Claim.from_dict(
        {
            "id": "X.gap",
            "experiment": "X",
            "description": "gap",
            "published": 0.0,
            "rule": "within",
            "table": TABLE,
            "where": {"model": "gru_budget9"},
            "column": "seed_*",
            "minus": {"where": {"model": "lstm_w8"}},
            "tolerance": {"abs": 0.01},
        }
    )
    found = value_judgement(gap, tables)
    gap_columns = ["paired_minus_lstm", "paired_minus_lstm_low", "paired_minus_lstm_high"]
    expected = rows.loc["gru_budget9", gap_columns]
    assert (found.point, found.low, found.high) == tuple(expected)


def test_the_tables_are_bit_identical_on_two_calls(tmp_path):
    written = []
    for k in range(2):
        d3 = table()
        split = advantage_split_intervals(d3, *NAMES.values())
        paths = (tmp_path / f"d3_{k}.csv", tmp_path / f"d4_{k}.csv")
        d3.to_csv(paths[0], index=False)
        split.to_csv(paths[1], index=False)
        written.append([p.read_bytes() for p in paths])
    assert written[0] == written[1]


# --------------------------------------------------------------------------- G2, per width

SPLIT = "results/tables/split_by_width.csv"
NEW_FINDINGS = REPO / "workflow" / "resources" / "new_findings.yaml"


def g2_claims() -> dict:
    return {c.id: c for c in load_claims(NEW_FINDINGS) if c.experiment == "G2"}


def split_summaries(gaps: dict[int, list[float]]) -> list[dict]:
    """Every seed of lstm_wR, gru_wR and gru_budgetR: the budget GRU at 1.6, the
    same-width GRU half the LSTM's gap above it (structure = width = gap / 2)."""
    rows = []
    for reference, per_seed in gaps.items():
        for seed, gap in enumerate(per_seed):
            for model, loss, width in (
                (f"lstm_w{reference}", 1.6 + gap, reference),
                (f"gru_w{reference}", 1.6 + gap / 2, reference),
                (f"gru_budget{reference}", 1.6, reference + 10),
            ):
                cell, token = model.split("_")
                rows.append({"model": model, "cell": cell, "width": width, "params": 100, "seed": seed,
                             "best_val_loss": loss, "width_token": token})  # fmt: skip
    return rows


def test_g2_is_judged_per_width_from_the_seeds_as_a_bootstrap_written_out_by_hand():
    from gatedrnn.questions.split_by_width import split_by_width_table

    # at width 256 one seed of five has the LSTM ahead: the GRU wins there in most bootstraps
    gaps = {128: [0.02, 0.018, 0.022, 0.019, 0.021], 256: [0.004, -0.003, 0.006, 0.005, 0.002]}
    table = split_by_width_table(split_summaries(gaps))
    claim = g2_claims()["G2.total_gap.min"]
    found = finding_judgement(claim.compare, {SPLIT: table})
    # by hand: per width the median over the resampled seeds of the total, positive at every width
    picks = np.random.default_rng(BOOTSTRAP_SEED).integers(0, 5, size=(BOOTSTRAPS, 5))
    totals = np.array([gaps[128], gaps[256]]).T  # (seeds, widths)
    medians = np.stack([np.median(totals[picks, w], axis=1) for w in range(2)], axis=1)
    assert found.share == float((medians > 0).all(axis=1).mean())
    assert 0.05 < found.share < 1 and found.seeds == 5
    assert found.text.startswith("(0.02, 0.004") and found.text.endswith("> 0 at every row")
    # the share findings, in D4's form at every width: here both parts are half the gap
    for claim_id in ("G2.structure_share.min", "G2.structure_share.max"):
        share = finding_judgement(g2_claims()[claim_id].compare, {SPLIT: table}).share
        assert share == float(((medians > 0).all(axis=1)).mean())  # 0.5 of the gap, when positive


def test_g2_falls_back_to_the_medians_in_a_table_without_seed_columns():
    """A split_by_width.csv made before the seed columns (the three-seed reference's):
    G2 reads its differences of medians, one per width, and the point decides."""
    from gatedrnn.claims.judge import judge

    table = pd.read_csv(REPO / "reference" / "tables" / "split_by_width.csv")
    later = ("seeds", "paired_median", "low", "high")  # what the seed columns came with
    table = table.drop(columns=[c for c in table.columns if c.startswith("seed_") or c in later])
    totals = table[table["component"] == "total"]["loss_difference"].tolist()
    for claim_id, claim in g2_claims().items():
        row = judge(claim, {SPLIT: table})
        assert row["verdict"] == "new" and row["interval"] == "no seeds in its tables: the point decides"
        holds = claim_id == "G2.total_gap.min" and min(totals) > 0
        assert row["reproduced"].endswith("does not hold)" if not holds else ": holds)"), row["reproduced"]
    row = judge(g2_claims()["G2.total_gap.min"], {SPLIT: table})
    assert row["reproduced"].startswith(f"{min(totals):.6g} (")


def test_per_row_needs_an_agg_over_the_rows():
    with pytest.raises(ClaimError, match="per_row"):
        Claim.from_dict({"id": "X", "experiment": "X", "description": "x", "rule": "new", "question": "q",
                         "table": SPLIT, "column": "seed_*", "per_row": True})  # fmt: skip


# --------------------------------------------------------------------------- G3 and G5

# Five seeds per model and layer count: each gap to the LSTM of both signs over the seeds.
TWO_LAYER_LOSSES = {
    (1, "lstm_w8"): [1.612, 1.598, 1.634, 1.605, 1.621],
    (1, "gru_budget9"): [1.601, 1.603, 1.611, 1.590, 1.618],
    (1, "gru_w8"): [1.625, 1.609, 1.631, 1.617, 1.640],
    (2, "lstm_w8"): [1.571, 1.580, 1.566, 1.592, 1.575],
    (2, "gru_budget9"): [1.569, 1.584, 1.560, 1.581, 1.579],
    (2, "gru_w8"): [1.588, 1.583, 1.579, 1.597, 1.586],
}
CHO_LOSSES = {"cho_gru_budget9": [1.596, 1.607, 1.603, 1.588, 1.620], "gru_budget9": LOSSES["gru_budget9"]}
CHO_PAIRS = {"cho_gru_budget9": "gru_budget9"}


def layered_summaries(losses: dict, seeds=None) -> list[dict]:
    rows = []
    for (layers, model), values in losses.items():
        for s, row in enumerate(summaries({model: values})):
            if seeds is None or s in seeds:
                rows.append(row | {"train_config": {"layers": layers}})
    return rows


def cho_summaries(losses: dict) -> list[dict]:
    widths = {"cho_gru_budget9": 9, "gru_budget9": 9}
    return [{"model": m, "cell": m.rsplit("_", 1)[0], "width": widths[m], "params": 100, "seed": s,
             "best_val_loss": v} for m, vs in losses.items() for s, v in enumerate(vs)]  # fmt: skip


def test_two_layers_intervals_match_a_bootstrap_written_out_by_hand():
    from gatedrnn.questions.two_layers import two_layers_tables

    models, split = two_layers_tables(layered_summaries(TWO_LAYER_LOSSES), *NAMES.values())
    old = [
        "layers",
        "model",
        "cell",
        "width",
        "params",
        *[f"seed_{s}" for s in range(5)],
        "median",
        "gap_to_lstm",
    ]
    new = ["seeds", "median_low", "median_high", "paired_gap_to_lstm", "paired_gap_to_lstm_low",
           "paired_gap_to_lstm_high"]  # fmt: skip
    assert list(models.columns) == old + new  # appended after the old columns, which keep their order
    for (layers, model), values in TWO_LAYER_LOSSES.items():
        row = models[(models["layers"] == layers) & (models["model"] == model)].iloc[0]
        assert row["seeds"] == 5
        assert (row["median_low"], row["median_high"]) == pytest.approx(by_hand(values), abs=1e-15)
        if model == "lstm_w8":
            assert row[new[3:]].isna().all() and row["gap_to_lstm"] == 0.0
            continue
        # paired with the LSTM of the same layer count; the sign of gap_to_lstm (LSTM minus this)
        gaps = np.asarray(TWO_LAYER_LOSSES[(layers, "lstm_w8")]) - np.asarray(values)
        assert row["paired_gap_to_lstm"] == pytest.approx(float(np.median(gaps)), abs=1e-15)
        interval = (row["paired_gap_to_lstm_low"], row["paired_gap_to_lstm_high"])
        assert interval == pytest.approx(by_hand(gaps), abs=1e-15)
    # one seed: no spread, so empty intervals (never zero-width ones), the medians kept
    one, _ = two_layers_tables(layered_summaries(TWO_LAYER_LOSSES, seeds={0}), *NAMES.values())
    assert (one["seeds"] == 1).all() and one[["median_low", "median_high", *new[4:]]].isna().all().all()
    assert one["paired_gap_to_lstm"].notna().sum() == 4 and one["gap_to_lstm"].notna().all()


G3_NEW = [c for c in load_claims(NEW_FINDINGS) if c.experiment == "G3"]
TWO_LAYERS = "results/tables/two_layers.csv"


def parts_by_hand(losses: dict, layers: int) -> dict[str, np.ndarray]:
    """D4's three parts at one layer count, seed by seed, from the losses themselves."""
    lstm, gru_w, gru_b = (np.asarray(losses[(layers, m)]) for m in NAMES.values())
    return {"structure": lstm - gru_w, "width": gru_w - gru_b, "total": lstm - gru_b}


def test_two_layers_split_is_d4s_with_its_intervals_at_each_layer_count():
    """two_layers_split.csv: D4's columns (gru_advantage_split.csv's names) after ``layers``,
    each part at each layer count seed by seed against the per-seed differences taken
    here, its interval against the bootstrap written out by hand."""
    from gatedrnn.questions.two_layers import two_layers_tables

    models, split = two_layers_tables(layered_summaries(TWO_LAYER_LOSSES), *NAMES.values())
    seeds = [f"seed_{s}" for s in range(5)]
    assert list(split.columns) == ["layers", "component", "comparison", "loss_difference", "share_of_total",
                                   "seeds", "paired_median", "low", "high", *seeds]  # fmt: skip
    d4 = advantage_split_intervals(table(), *NAMES.values())  # D4 on the same names: the same columns
    assert list(split.columns[1:]) == list(d4.columns)
    for layers in (1, 2):
        rows = split[split["layers"] == layers].set_index("component")
        assert list(rows.index) == ["structure", "width", "total"]
        medians = {m: float(np.median(TWO_LAYER_LOSSES[(layers, m)])) for m in NAMES.values()}
        lstm, gru_w, gru_b = (medians[m] for m in NAMES.values())
        of_medians = {"structure": lstm - gru_w, "width": gru_w - gru_b, "total": lstm - gru_b}
        for component, per_seed in parts_by_hand(TWO_LAYER_LOSSES, layers).items():
            row = rows.loc[component]
            assert row[seeds].to_numpy(float) == pytest.approx(per_seed, abs=1e-15)
            assert row["seeds"] == 5
            assert row["paired_median"] == pytest.approx(float(np.median(per_seed)), abs=1e-15)
            assert (row["low"], row["high"]) == pytest.approx(by_hand(per_seed), abs=1e-15)
            assert row["low"] <= row["paired_median"] <= row["high"]
            # D4's own columns: the differences of the medians, unchanged
            assert row["loss_difference"] == pytest.approx(of_medians[component], abs=1e-15)
            assert row["share_of_total"] == pytest.approx(of_medians[component] / of_medians["total"])
    # paired by seed: the median of the per-seed parts is not always the difference of medians
    assert (split["paired_median"] - split["loss_difference"]).abs().max() > 1e-3
    # one seed: the parts at that seed, no interval (never a zero-width one)
    _, one = two_layers_tables(layered_summaries(TWO_LAYER_LOSSES, seeds={0}), *NAMES.values())
    assert (one["seeds"] == 1).all() and one[["low", "high"]].isna().all().all()
    assert [c for c in one.columns if c.startswith("seed_")] == ["seed_0"]
    assert (one["paired_median"] == one["seed_0"]).all()


def test_g3s_ledger_reads_the_splits_intervals_and_judges_a_share_only_where_both_parts_are_positive():
    """The ledger judges G3 from two_layers.csv's seed columns; its two-layer gap and
    structure part are the split's total and structure rows (layers 2) bit for bit. The
    share (structure between 0.4 and 0.6 of the gap) holds only in a bootstrap where
    both parts are positive: both ways, against a bootstrap written out by hand."""
    from gatedrnn.analysis.intervals import percentile_interval
    from gatedrnn.claims.judge import judge
    from gatedrnn.claims.seeds import resampled, seed_values
    from gatedrnn.questions.two_layers import two_layers_tables

    claims = {c.id: c.fill(NAMES) for c in G3_NEW}
    picks = np.random.default_rng(BOOTSTRAP_SEED).integers(0, 5, size=(BOOTSTRAPS, 5))

    def share_by_hand(losses) -> float:
        medians = {k: np.median(v[picks], axis=1) for k, v in parts_by_hand(losses, 2).items()}
        structure, width, total = medians["structure"], medians["width"], medians["total"]
        holds = (structure > 0) & (width > 0) & (structure >= 0.4 * total) & (structure <= 0.6 * total)
        return float(holds.mean())

    # structure half the two-layer gap at every seed, both parts' intervals above zero
    base = np.asarray([1.569, 1.584, 1.560, 1.581, 1.579])
    gap = np.asarray([0.020, 0.016, 0.024, 0.018, 0.022])
    halved = {**TWO_LAYER_LOSSES, (2, "gru_budget9"): list(base), (2, "gru_w8"): list(base + gap / 2),
              (2, "lstm_w8"): list(base + gap + np.asarray([0.001, -0.001, 0.0, 0.002, -0.002]))}  # fmt: skip
    for losses, holds in ((halved, True), (TWO_LAYER_LOSSES, False)):
        models, split = two_layers_tables(layered_summaries(losses), *NAMES.values())
        tables = {TWO_LAYERS: models}
        rows = split[split["layers"] == 2].set_index("component")
        for claim_id, component in (("G3.two_layers.gru_advantage", "total"),
                                    ("G3.two_layers.structure_share", "structure")):  # fmt: skip
            found = seed_values(claims[claim_id].selector, tables)  # a new value: its point and interval
            judged = (found.point(), *percentile_interval(resampled([found])[0]))
            assert judged == tuple(rows.loc[component, ["paired_median", "low", "high"]])
        share = finding_judgement(claims["G3.two_layers.structure_share"].compare, tables).share
        assert share == share_by_hand(losses)
        row = judge(claims["G3.two_layers.structure_share"], tables)
        positive = rows.loc[["structure", "width"], "low"] > 0
        if holds:  # both parts' intervals above zero, structure about half: the share is judged, and holds
            assert positive.all() and share == 1.0
            assert row["reproduced"].endswith(": holds)"), row["reproduced"]
        else:  # the structure part's interval lies below zero: no share, and the ledger says so
            assert rows.loc["structure", "high"] < 0 and share == 0.0
            structure_text = f"{rows.loc['structure', 'paired_median']:.4g} > 0"
            assert row["reproduced"].split("(", 1)[1].startswith(structure_text), row["reproduced"]
            assert row["reproduced"].endswith("does not hold)"), row["reproduced"]


def test_cho_intervals_match_a_bootstrap_written_out_by_hand():
    from gatedrnn.questions.cho_gru import cho_vs_pytorch_table

    table = cho_vs_pytorch_table(cho_summaries(CHO_LOSSES), CHO_PAIRS)
    assert list(table.columns[-6:]) == ["seeds", "median_low", "median_high", "paired_minus_pytorch",
                                        "paired_minus_pytorch_low", "paired_minus_pytorch_high"]  # fmt: skip
    assert list(table.columns[-8:-6]) == ["placement", "median_minus_pytorch"]
    rows = table.set_index("model")
    for model, values in CHO_LOSSES.items():
        assert (rows.loc[model, "median_low"], rows.loc[model, "median_high"]) == pytest.approx(
            by_hand(values)
        )
    gaps = np.asarray(CHO_LOSSES["cho_gru_budget9"]) - np.asarray(
        CHO_LOSSES["gru_budget9"]
    )  # Cho minus PyTorch
    cho = rows.loc["cho_gru_budget9"]
    assert cho["paired_minus_pytorch"] == pytest.approx(float(np.median(gaps)), abs=1e-15)
    assert (cho["paired_minus_pytorch_low"], cho["paired_minus_pytorch_high"]) == pytest.approx(by_hand(gaps))
    assert rows.loc["gru_budget9", ["paired_minus_pytorch", "paired_minus_pytorch_low"]].isna().all()
    one = cho_vs_pytorch_table(cho_summaries({m: v[:1] for m, v in CHO_LOSSES.items()}), CHO_PAIRS)
    assert (one["seeds"] == 1).all()
    assert (
        one[["median_low", "median_high", "paired_minus_pytorch_low", "paired_minus_pytorch_high"]]
        .isna()
        .all()
        .all()
    )


def test_g5_is_judged_seed_by_seed_as_the_tables_interval():
    """G5 reads the seed columns paired by seed; its interval is the table's, bit for bit."""
    from gatedrnn.questions.cho_gru import cho_vs_pytorch_table

    table = cho_vs_pytorch_table(cho_summaries(CHO_LOSSES), CHO_PAIRS)
    from gatedrnn.analysis.intervals import percentile_interval
    from gatedrnn.claims.judge import judge
    from gatedrnn.claims.seeds import resampled, seed_values

    claim = next(c for c in load_claims(NEW_FINDINGS) if c.id == "G5.cho_minus_pytorch")
    tables = {claim.selector.table: table}
    found = [seed_values(claim.selector, tables)]
    cho = table.set_index("model").loc["cho_gru_budget9"]
    expected = cho[["paired_minus_pytorch", "paired_minus_pytorch_low", "paired_minus_pytorch_high"]]
    assert (found[0].point(), *percentile_interval(resampled(found)[0])) == tuple(expected)
    row = judge(claim, tables)
    assert (
        row["verdict"] == "new"
        and row["interval"].startswith("holds in ")
        and "over 5 seeds" in row["interval"]
    )


def run_rule_script(tmp_path, script: str, runs, losses, output, params) -> None:
    """The rule's script in process, as Snakemake runs it: the summaries the plan names."""
    import json
    import runpy
    from types import SimpleNamespace

    from gatedrnn.plan import model_file

    paths = []
    for run in runs:
        path = tmp_path / model_file(run, "summary.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps(losses(run) | {"regime": run.regime, "model": run.model, "seed": run.seed})
        )
        paths.append(str(path))
    snakemake = SimpleNamespace(input=SimpleNamespace(summaries=paths), output=output,
                                log=[str(tmp_path / "rule.log")], params=params)  # fmt: skip
    runpy.run_path(str(REPO / "workflow" / "scripts" / script), init_globals={"snakemake": snakemake})


def test_the_rules_write_the_intervals(tmp_path):
    """Rules two_layers and cho_vs_pytorch_gru, with the default config's plan and params."""
    import copy
    from types import SimpleNamespace

    import yaml

    from gatedrnn.plan import Plan

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    plan = Plan.from_config(copy.deepcopy(config))
    ids = plan.comparison_ids
    rng = np.random.default_rng(0)

    def loss(run) -> dict:
        cell, token = run.model.rsplit("_", 1)
        return {"cell": cell, "width_token": token, "width": 325, "params": 100,
                "best_val_loss": float(1.55 + rng.uniform(0, 0.05)),
                "train_config": {"layers": 2 if run.regime != "default" else 1}}  # fmt: skip

    out = SimpleNamespace(
        table=str(tmp_path / "two_layers.csv"), split=str(tmp_path / "two_layers_split.csv")
    )
    run_rule_script(tmp_path, "two_layers.py", plan.questions.two_layers, loss, out, SimpleNamespace(**ids))
    models = pd.read_csv(out.table)
    seeds = [f"seed_{s}" for s in config["open_questions"]["two_layers"]["seeds"]]
    for _, row in models.iterrows():
        assert row["seeds"] == len(seeds)
        assert (row["median_low"], row["median_high"]) == pytest.approx(by_hand(row[seeds].to_numpy(float)))
        lstm = models[(models["layers"] == row["layers"]) & (models["model"] == ids["reference_lstm"])].iloc[
            0
        ]
        gaps = lstm[seeds].to_numpy(float) - row[seeds].to_numpy(float)
        if row["model"] != ids["reference_lstm"]:
            assert (row["paired_gap_to_lstm_low"], row["paired_gap_to_lstm_high"]) == pytest.approx(
                by_hand(gaps)
            )
    split = pd.read_csv(out.split)
    lstm, gru_w, gru_b = (ids[k] for k in ("reference_lstm", "width_matched_gru", "budget_matched_gru"))
    for layers, rows in split.groupby("layers"):
        by_model = models[models["layers"] == layers].set_index("model")[seeds]
        rows = rows.set_index("component")
        for component, (first, second) in {"structure": (lstm, gru_w), "width": (gru_w, gru_b),
                                           "total": (lstm, gru_b)}.items():  # fmt: skip
            per_seed = by_model.loc[first].to_numpy(float) - by_model.loc[second].to_numpy(float)
            assert rows.loc[component, seeds].to_numpy(float) == pytest.approx(per_seed)
            assert rows.loc[component, "seeds"] == len(seeds)
            interval = (rows.loc[component, "low"], rows.loc[component, "high"])
            assert interval == pytest.approx(by_hand(per_seed))

    cho_out = [str(tmp_path / "cho_vs_pytorch_gru.csv")]
    params = SimpleNamespace(pytorch_models=plan.questions.cho_pairs)
    run_rule_script(tmp_path, "cho_vs_pytorch_gru.py", plan.questions.cho_gru, loss, cho_out, params)
    cho = pd.read_csv(cho_out[0]).set_index("model")
    seeds = [f"seed_{s}" for s in config["open_questions"]["cho_gru"]["seeds"]]
    for model, pytorch in plan.questions.cho_pairs.items():
        gaps = cho.loc[model, seeds].to_numpy(float) - cho.loc[pytorch, seeds].to_numpy(float)
        found = (cho.loc[model, "paired_minus_pytorch_low"], cho.loc[model, "paired_minus_pytorch_high"])
        assert found == pytest.approx(by_hand(gaps)) and cho.loc[model, "seeds"] == len(seeds)
