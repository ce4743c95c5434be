"""The results page's rows (issue #47): a finding the page explains further down links
the explanation, and a row that two claims read (C3's and D5's LSTM half-lives) is
printed once, the second section naming it."""

from __future__ import annotations

import pandas as pd
from conftest import REPO
from test_docs import anchors

from gatedrnn.report import published_view
from gatedrnn.report.protocol_page import render_protocol_section

COLUMNS = ["id", "experiment", "description", "published", "reproduced", "interval", "band", "verdict",
           "finding", "table", "rule"]  # fmt: skip


def row(claim_id, table, reproduced="0.43", interval="[0.41, 0.48] over 3 seeds", verdict="differs"):
    return [claim_id, claim_id.split(".")[0], f"{claim_id} described", "0.59", reproduced, interval,
            "[0.54, 0.65]", verdict, "", f"results/tables/{table}", "within"]  # fmt: skip


def test_a_row_shown_in_an_earlier_section_is_named_not_printed_again():
    ledger = pd.DataFrame(
        [
            row("C3.half_life_min", "lstm_forget_units.csv"),
            row("D5.lstm.min", "unit_half_lives.csv"),
            row("D5.gru.min", "unit_half_lives.csv", reproduced="0.31"),  # its own number
            row("D5.lstm.other", "unit_half_lives.csv", verdict="inconclusive"),  # another verdict
        ],
        columns=COLUMNS,
    )
    c3 = "\n".join(published_view.published_beside_ours(ledger, "lstm_forget_units.csv"))
    d5 = "\n".join(published_view.published_beside_ours(ledger, "unit_half_lives.csv"))
    assert "C3.half_life_min described" in c3 and "not repeated" not in c3
    assert "D5.lstm.min described" not in d5
    assert "D5.gru.min described" in d5 and "D5.lstm.other described" in d5
    assert "Shown in C3 above, the same numbers and verdicts, not repeated: `D5.lstm.min` (as " in d5
    # the later section's own rows are never taken for the earlier one's
    assert published_view.repeats(ledger, ledger[ledger["experiment"] == "C3"]) == {}


def test_the_reference_page_prints_c3_s_half_lives_once():
    ledger = pd.read_csv(REPO / "reference" / "claims.csv", dtype=str, keep_default_na=False)
    d5 = "\n".join(published_view.published_beside_ours(ledger, "unit_half_lives.csv"))
    for claim in ("D5.unit_half_lives.lstm.min", "D5.unit_half_lives.lstm.max"):
        assert f"`{claim}` (as `C3.lstm_forget_units.half_life_" in d5
    assert "per-unit half-life from the LSTM's f" not in d5
    assert "per-unit half-life from the GRU's z" in d5


def test_e3_s_failing_finding_links_the_check_of_its_inversion_further_down():
    link = published_view.explained("E3.finding.open_forget_gate_extends_state", "fails")
    assert link == "fails (why: [E3's inversion, checked](#e3s-inversion-checked), below)"
    assert published_view.explained("E3.finding.open_forget_gate_extends_state", "holds") == "holds"
    assert published_view.explained("D3.finding.x", "fails") == "fails"
    # the anchor is the id GitHub gives the heading the protocol section writes
    section = render_protocol_section(REPO / "reference", REPO)
    assert "e3s-inversion-checked" in anchors(section)
    page = (REPO / "docs" / "results.md").read_text()
    # its row on the first screen and in E3's section
    rows = [
        line for line in page.splitlines() if line.startswith("|") and "extends how long the state" in line
    ]
    assert len(rows) == 2 and all("(#e3s-inversion-checked)" in line for line in rows)
    assert page.index("](#e3s-inversion-checked)") < page.index("### E3's inversion, checked")
