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


def test_a_table_with_its_intervals_shows_its_seed_count_and_medians_with_intervals():
    """Issue #47: where a table has `seeds` and interval columns, its section shows the seed
    count and `median [low, high]` (at ten seeds a column per seed does not fit); a table
    made before them (the committed three-seed reference's) keeps its seed columns."""
    from gatedrnn.report.markdown import markdown_table, shown_columns
    from gatedrnn.report.results_page import SECTIONS

    d3 = next(s for s in SECTIONS if s.table == "gru_vs_lstm.csv")
    seeds = {f"seed_{s}": [1.57 + s / 1000, 1.56 + s / 1000] for s in range(10)}
    nan = float("nan")
    table = pd.DataFrame({"model": ["lstm_w325", "gru_budget325"], "cell": ["lstm", "gru"],
                          "width": [325, 381], "params": [637550, 635835], **seeds,
                          "median": [1.5745, 1.5645],
                          "seeds": [10, 1], "median_low": [1.572, nan], "median_high": [1.577, nan],
                          "paired_minus_lstm": [nan, -0.01], "paired_minus_lstm_low": [nan, -0.012],
                          "paired_minus_lstm_high": [nan, -0.008]})  # fmt: skip
    shown = shown_columns(table, [c for c in d3.columns if c in table.columns])
    assert list(shown.columns) == ["model", "cell", "width", "params", "seeds", "median [low, high]",
                                   "paired_minus_lstm [low, high]"]  # fmt: skip
    text = markdown_table(shown)
    assert "| lstm_w325 | lstm | 325 | 637,550 | 10 | 1.575 [1.572, 1.577] | – |" in text
    # one seed: no interval, the median alone
    assert "| gru_budget325 | gru | 381 | 635,835 | 1 | 1.565 | -0.01 [-0.012, -0.008] |" in text
    # the committed reference's table predates the columns: its seeds as before
    old = table[["model", "cell", "width", "params", "seed_0", "seed_1", "seed_2", "median"]]
    assert list(shown_columns(old, [c for c in d3.columns if c in old.columns]).columns) == list(old.columns)
    for name in ("two_layers.csv", "cho_vs_pytorch_gru.csv"):  # G3's and G5's sections name their gaps
        section = next(s for s in SECTIONS if s.table == name)
        assert {"median", "seed_0"} <= set(section.columns) and any(
            c.startswith("paired_") for c in section.columns
        )


def test_g3_s_split_shows_d4_s_intervals_and_the_reference_s_table_as_before():
    """Issue #47: G3's split section lists D4's interval columns; a table with them shows
    each part as ``paired_median [low, high]``, the committed reference's (made before
    them) its columns as before."""
    from gatedrnn.report.markdown import markdown_table, shown_columns
    from gatedrnn.report.results_page import SECTIONS

    d4, g3 = (next(s for s in SECTIONS if s.table == name) for name in ("gru_advantage_split.csv",
                                                                        "two_layers_split.csv"))  # fmt: skip
    assert g3.columns == ("layers", *d4.columns)
    before = ["layers", "component", "comparison", "loss_difference", "share_of_total"]
    # the table as it was made before the interval columns (the three-seed reference's)
    committed = pd.read_csv(REPO / "reference" / "tables" / "two_layers_split.csv")[before]
    old = shown_columns(committed, [c for c in g3.columns if c in committed.columns])
    assert list(old.columns) == before
    nan, half = float("nan"), len(committed) // 2  # intervals on the first half's rows only
    table = committed.assign(seeds=[3] * half + [1] * (len(committed) - half),
                             paired_median=committed["loss_difference"] + 0.001,
                             low=([-0.02, 0.001, -0.01] * half)[:half] + [nan] * (len(committed) - half),
                             high=([0.01, 0.02, 0.03] * half)[:half] + [nan] * (len(committed) - half),
                             seed_0=committed["loss_difference"])  # fmt: skip
    shown = shown_columns(table, [c for c in g3.columns if c in table.columns])
    assert list(shown.columns) == [*old.columns, "paired_median [low, high]"]
    text = markdown_table(shown)
    structure = committed.iloc[0]["loss_difference"] + 0.001
    assert "| 1 | structure | lstm_w325 - gru_w325 | " in text and f"{structure:.4g} [-0.02, 0.01] |" in text
    one_seed = committed.iloc[-1]["loss_difference"] + 0.001  # no interval: the median alone
    assert text.splitlines()[-1].endswith(f"| {one_seed:.4g} |")


def test_a_share_of_the_total_is_shown_only_where_both_parts_are_positive():
    from gatedrnn.report.markdown import shares_judged

    def split(width, structure, structure_low, width_part, width_low):
        total = structure + width_part
        rows = [
            ("structure", structure, structure_low),
            ("width", width_part, width_low),
            ("total", total, 0.0),
        ]
        return [
            {"reference_width": width, "component": c, "loss_difference": v, "share_of_total": v / total,
             "paired_median": v, "low": low, "high": v + 0.01}
            for c, v, low in rows
        ]  # fmt: skip

    # at 325 both parts' intervals lie above zero; at 512 the structure part's crosses it
    table = pd.DataFrame(split(325, 0.01, 0.004, 0.02, 0.01) + split(512, 0.01, -0.002, 0.02, 0.01))
    judged, left_out = shares_judged(table)
    shares = judged.set_index(["reference_width", "component"])["share_of_total"]
    assert shares[(325, "structure")] == 0.01 / 0.03 and shares[(325, "total")] == 1.0
    assert shares.loc[512].isna().all()
    assert left_out == ["reference_width 512: structure 0.01 [-0.002, 0.02]"]
    # a table without intervals (one seed, or made before them) is judged on the parts themselves
    old = table.drop(columns=["paired_median", "low", "high"]).assign(low=float("nan"))
    old.loc[old["component"].eq("width") & old["reference_width"].eq(325), "loss_difference"] = -0.001
    judged, left_out = shares_judged(old)
    assert left_out == ["reference_width 325: width -0.001"]
    assert judged["share_of_total"].notna().sum() == 3  # 512's parts are both positive
    # a table with no split is left as it is
    plain = pd.DataFrame({"model": ["lstm_w325"], "median": [1.57]})
    assert shares_judged(plain)[0] is plain and shares_judged(plain)[1] == []
