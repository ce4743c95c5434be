"""gatedrnn.compare: a run's tables beside the reference's, value by value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gatedrnn.compare import compare_runs, compare_tables, main, render

LONG = pd.DataFrame(
    {
        "model": ["lstm_w8"] * 3 + ["gru_w8"] * 3,
        "seed": [0, 1, 2] * 2,
        "mean": [0.50, 0.52, 0.55, 0.30, 0.31, 0.36],
    }
)
WIDE = pd.DataFrame({"model": ["lstm_w8", "gru_w8"], "seed_0": [1.60, 1.55], "seed_1": [1.64, 1.56],
                     "median": [1.62, 1.555]})  # fmt: skip
CLOSED = pd.DataFrame({"distance": [1, 10], "factor": [0.5, 0.5**10]})


def statuses(result):
    return dict(
        zip(result.details["row"] + "/" + result.details["column"], result.details["status"], strict=True)
    )


def test_identical_tables_are_identical_value_by_value():
    result = compare_tables("t.csv", LONG.copy(), LONG)
    assert result.status == "compared"
    assert result.counts == {"identical": 6, "within spread": 0, "beyond spread": 0, "no spread": 0}


def test_long_tables_use_the_spread_over_seeds_of_the_same_row_labels():
    run = LONG.copy()
    run.loc[0, "mean"] = 0.50 + 0.04  # lstm spread is 0.05: within
    run.loc[3, "mean"] = 0.30 + 0.07  # gru spread is 0.06: beyond
    got = statuses(compare_tables("t.csv", run, LONG))
    assert got["lstm_w8 0/mean"] == "within spread"
    assert got["gru_w8 0/mean"] == "beyond spread"
    assert got["lstm_w8 1/mean"] == "identical"


def test_wide_tables_use_the_spread_of_their_seed_columns():
    run = WIDE.copy()
    run.loc[0, "seed_0"] = 1.63  # lstm seeds span 0.04: within
    run.loc[1, "median"] = 1.58  # gru seeds span 0.01: beyond
    got = statuses(compare_tables("t.csv", run, WIDE))
    assert got["lstm_w8/seed_0"] == "within spread"
    assert got["gru_w8/median"] == "beyond spread"


def test_a_difference_without_seeds_is_unexplained_and_nan_matches_nan():
    run = CLOSED.copy()
    run.loc[1, "factor"] = np.nextafter(run.loc[1, "factor"], 1.0)  # one ulp
    got = statuses(compare_tables("t.csv", run, CLOSED))
    assert got["10/factor"] == "no spread" and got["1/factor"] == "identical"
    with_nan = LONG.copy()
    with_nan.loc[2, "mean"] = np.nan
    assert compare_tables("t.csv", with_nan.copy(), with_nan).counts["identical"] == 6


def test_a_count_that_differs_is_a_value_not_a_row_label():
    """Integer statistics (units below a half) move with the floats on another CPU;
    they are compared, while the integer labels that match rows (seed) stay labels."""
    reference = LONG.assign(units_below_half=[100, 110, 120, 50, 52, 57])
    run = reference.copy()
    run.loc[0, "units_below_half"] = 104  # lstm seeds span 20: within
    run.loc[3, "units_below_half"] = 60  # gru seeds span 7: beyond
    result = compare_tables("t.csv", run, reference)
    assert result.status == "compared"
    got = statuses(result)
    assert got["lstm_w8 0/units_below_half"] == "within spread"
    assert got["gru_w8 0/units_below_half"] == "beyond spread"
    assert got["lstm_w8 0/mean"] == "identical"
    assert compare_tables("t.csv", run.assign(seed=[0, 1, 3] * 2), reference).status.startswith(
        "not comparable"
    )


def test_a_count_that_agrees_still_leaves_the_seeds_together():
    """A per-seed count that happens to agree in both runs must not become a row
    label: it would split the seeds of a model into groups of one, without spread."""
    reference = LONG.assign(units_below_half=[100, 110, 120, 50, 52, 57])
    run = reference.copy()
    run.loc[0, "mean"] += 0.001
    result = compare_tables("t.csv", run, reference)
    got = statuses(result)
    assert got["lstm_w8 0/mean"] == "within spread"
    assert got["lstm_w8 0/units_below_half"] == "identical"
    # a design label that the text labels do not name stays a label
    sweep = pd.DataFrame({"forget_bias": [0, 0, 1, 1], "seed": [0, 1, 0, 1], "loss": [1.0, 1.2, 1.1, 1.3]})
    moved = sweep.assign(loss=[1.1, 1.2, 1.1, 1.3])
    assert statuses(compare_tables("s.csv", moved, sweep))["0 0/loss"] == "within spread"


def test_columns_the_reference_predates_are_left_out_and_named():
    """A table that gained columns after the reference was made (issue #47's intervals
    over seeds, appended after the old ones) is compared on the reference's columns."""
    run = WIDE.assign(seeds=2, median_low=[1.60, 1.55], median_high=[1.64, 1.56])
    result = compare_tables("gru_vs_lstm.csv", run, WIDE)
    assert (result.status, result.left_out) == ("compared", ("seeds", "median_low", "median_high"))
    assert result.counts["identical"] == 6 and set(result.details["column"]) == {"seed_0", "seed_1", "median"}
    assert "left out: seeds, median_low, median_high" in render([result])
    # a column inserted among the reference's, or one the run lacks: not comparable
    moved = WIDE.copy()
    moved.insert(1, "seeds", 2)
    assert compare_tables("t.csv", moved, WIDE).status == "not comparable: columns differ"
    assert compare_tables("t.csv", WIDE, run).status == "not comparable: columns differ"


@pytest.mark.parametrize(
    "run, why",
    [
        (LONG.iloc[:4], "rows differ"),
        (LONG.rename(columns={"mean": "average"}), "columns differ"),
        (LONG.assign(model=["lstm_w9"] * 3 + ["gru_w8"] * 3), "rows differ"),
    ],
)
def test_tables_from_another_config_are_not_comparable(run, why):
    result = compare_tables("t.csv", run, LONG)
    assert result.status.startswith("not comparable") and why in result.status
    assert sum(result.counts.values()) == 0


def test_the_command_reports_every_reference_table_and_strict_fails_on_a_difference(tmp_path, capsys):
    (tmp_path / "ref/tables").mkdir(parents=True)
    (tmp_path / "run/tables").mkdir(parents=True)
    LONG.to_csv(tmp_path / "ref/tables/long.csv", index=False)
    CLOSED.to_csv(tmp_path / "ref/tables/closed.csv", index=False)
    LONG.to_csv(tmp_path / "run/tables/long.csv", index=False)
    names = [c.table for c in compare_runs(tmp_path / "run", tmp_path / "ref")]
    assert names == ["closed.csv", "long.csv"]
    args = ["--run", str(tmp_path / "run"), "--reference", str(tmp_path / "ref")]
    assert main(args + ["--details", str(tmp_path / "d.csv")]) == 0
    out = capsys.readouterr().out
    assert "missing in run" in out and "long.csv" in out
    assert main(args + ["--strict"]) == 1  # closed.csv is missing
    CLOSED.to_csv(tmp_path / "run/tables/closed.csv", index=False)
    assert main(args + ["--strict"]) == 0
    assert main(["--run", str(tmp_path / "nowhere"), "--reference", str(tmp_path / "ref")]) == 2
