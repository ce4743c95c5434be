"""A cell outside the package, named only in a config overlay (tests/data/smoke_cells.yaml),
through the smoke DAG: trained at its budget width, its gates extracted and checked against
its own forward (C1), and every analysis read through its declared gates
(results/tables/cell_analyses.csv); cifg and mingru beside it (issue #49)."""

import os

import pandas as pd
import pytest
from conftest import REPO, SMOKE_CONFIG, run_snakemake

OVERLAY = REPO / "tests" / "data" / "smoke_cells.yaml"
TABLES = ("cell_analyses.csv", "manual_step_check.csv", "matched_widths.csv")
# tests.cells is imported by module path from the repository root
ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


@pytest.fixture(scope="module")
def cells_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("smoke_cells")
    targets = [f"results/tables/{name}" for name in TABLES]
    run_snakemake(workdir, *targets, "--cores", "2", "--configfile", str(SMOKE_CONFIG), str(OVERLAY),
                  configfile=None, env=ENV)  # fmt: skip
    return workdir


def test_every_analysis_table_has_the_plugin_cell(cells_run):
    tables = cells_run / "results" / "tables"
    widths = pd.read_csv(tables / "matched_widths.csv").set_index("model")
    assert widths.loc["janet_budget24", "params"] <= widths.loc["lstm_w24", "params"]
    assert widths.loc["janet_budget24", "width"] > 24  # two gate blocks to the LSTM's four
    checks = pd.read_csv(tables / "manual_step_check.csv")
    assert set(checks["cell"]) == {"lstm", "rnn", "janet", "cifg", "mingru"}
    assert (checks["max_rel_diff"] < 1e-5).all()
    table = pd.read_csv(tables / "cell_analyses.csv", keep_default_na=False, na_values=[""])
    janet = table[table["model"] == "janet_budget24"]
    assert set(janet["analysis"]) == {"C1", "C2", "C3/D5", "D2", "E1", "B1"}
    assert set(janet.loc[janet["analysis"] == "C2", "gate"]) == {"f", "n"}
    keep = janet[(janet["analysis"] == "C3/D5") & (janet["quantity"] == "half_life_median")]
    assert keep["gate"].tolist() == ["f"] and keep["value"].iloc[0] > 0
    # what a cell cannot support is a row that says why, with no value
    skipped = table[table["note"].str.startswith("skipped", na=False)]
    assert skipped["value"].isna().all()
    assert set(zip(skipped["cell"], skipped["analysis"], strict=True)) == {
        ("janet", "D2"), ("cifg", "D2"), ("mingru", "D2"), ("rnn", "C2"), ("rnn", "C3/D5"), ("rnn", "D2"),
    }  # fmt: skip
    lstm = table[(table["cell"] == "lstm") & (table["analysis"] == "D2")]
    assert lstm["quantity"].tolist() == ["corr_i_one_minus_f", "mean_i_plus_f"]
    for _, rows in table[~table["note"].str.startswith("skipped", na=False)].groupby("model"):
        assert rows["value"].notna().all() or rows["quantity"].eq("half_distance").any()


def test_a_cell_that_does_not_resolve_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text('grid:\n  models:\n    - {cell: "tests.cells:NotACell", width: budget}\n')
    args = ["results/tables/matched_widths.csv", "-n", "--configfile", str(SMOKE_CONFIG), str(bad)]
    proc = run_snakemake(tmp_path, *args, configfile=None, check=False, env=ENV)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "grid.models[0].cell: cell 'tests.cells:NotACell': NotACell is not a cell" in output
    assert "Traceback" not in output
