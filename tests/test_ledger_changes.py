"""gatedrnn.report.ledger_changes and `python -m gatedrnn.reference changes`: two
ledgers' counts per family side by side, and the claims whose verdict changed."""

from __future__ import annotations

import pandas as pd
import pytest

from gatedrnn.reference.__main__ import main
from gatedrnn.report.ledger_changes import family_counts_beside, render_changes, verdict_changes


def ledger(rows):
    columns = ["id", "experiment", "kind", "description", "published", "reproduced", "verdict"]
    return pd.DataFrame(rows, columns=columns)


OLD = ledger([
    ("A1.x", "A1", "arithmetic", "closed form", "0.5", "0.5", "exact"),
    ("C2.mean", "C2", "value", "forget mean", "0.495", "0.40", "differs"),
    ("D3.finding", "D3", "finding", "GRU wins", "a < b", "1 < 2", "holds"),
    ("G1.new", "G1", "new", "a new answer", "", "0.1", "new"),
])  # fmt: skip
NEW = ledger([
    ("A1.x", "A1", "arithmetic", "closed form", "0.5", "0.5", "exact"),
    ("C2.mean", "C2", "value", "forget mean", "0.495", "0.49", "within"),
    ("D3.finding", "D3", "finding", "GRU wins", "a < b", "2 < 1", "fails"),
])  # fmt: skip


def test_counts_per_family_are_set_old_beside_new():
    table = family_counts_beside(OLD, NEW).set_index("family")
    assert table.loc["C. The trained LSTM's gates", "values differ"] == "1 → 0"
    assert table.loc["C. The trained LSTM's gates", "values reproduced"] == "0 → 1"
    assert table.loc["D. GRU against LSTM", "findings hold"] == "1 → 0"
    assert table.loc["D. GRU against LSTM", "findings fail"] == "0 → 1"
    assert table.loc["A. Closed-form tables", "arithmetic agree"] == "1 → 1"
    assert table.loc["all", "new"] == "1 → 0"


def test_only_changed_verdicts_are_listed_and_a_claim_in_one_ledger_only_shows_a_dash():
    changes = verdict_changes(OLD, NEW).set_index("id")
    assert list(changes.index) == ["C2.mean", "D3.finding", "G1.new"]
    assert changes.loc["C2.mean", ["verdict_old", "verdict_new"]].tolist() == ["differs", "within"]
    assert changes.loc["G1.new", ["reproduced_new", "verdict_new"]].tolist() == ["-", "-"]
    assert "3 verdicts changed" in render_changes(OLD, NEW)


def test_changes_refuses_a_csv_that_is_no_ledger(tmp_path, capsys):
    (tmp_path / "reference" / "tables").mkdir(parents=True)
    (tmp_path / "reference" / "manifest.json").write_text("{}")
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    assert main(["changes", "--old", str(other), "--reference", str(tmp_path / "reference")]) == 2
    assert "not a claims ledger" in capsys.readouterr().err


@pytest.mark.parametrize("missing", ["old", "reference"])
def test_changes_names_a_missing_input(tmp_path, capsys, missing):
    old = tmp_path / "claims.csv"
    OLD.to_csv(old, index=False)
    args = {"old": str(old), "reference": str(tmp_path)}
    args[missing] = str(tmp_path / "nowhere")
    assert main(["changes", "--old", args["old"], "--reference", args["reference"]]) == 2
    assert f"--{missing}" in capsys.readouterr().err
