"""The claims ledger's rules (issue #16): bands on the quantity's scale and the
run's seed spread, seed sets compared as sets, findings of several comparisons,
values never rescued by their finding, counts that keep values, findings and
arithmetic apart; and the published entries that were holes (C1, D4, E2). Every
expected band edge is computed here by hand."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
from test_claims import CURVE, GATE_SELECTOR, NAMES, PUBLISHED, TABLES, claim, judge

from gatedrnn.claims import (
    ClaimError,
    Selector,
    build_ledger,
    load_claims,
    passes,
    read,
    render_markdown,
    summary_line,
)
from gatedrnn.claims.judge import judge as judge_claim

# --------------------------------------------------------------------------- bands, findings, counts


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


@pytest.mark.parametrize(
    "tolerance, published, cells, low, high",
    [
        # logit ±0.1 around 0.5: sigmoid(∓0.1)
        ({"scale": "logit", "abs": 0.1}, 0.5, [0.5], sigmoid(-0.1), sigmoid(0.1)),
        # near 0 the same logit band is narrow in value: 0.081 -> sigmoid(logit(0.081) ± 0.1)
        (
            {"scale": "logit", "abs": 0.1},
            0.081,
            [0.081],
            sigmoid(math.log(0.081 / 0.919) - 0.1),
            sigmoid(math.log(0.081 / 0.919) + 0.1),
        ),
        # the run's seed range, wider than the stated least width: 1.5 - 1.0
        ({"spread": True, "abs": 0.1}, 1.2, [1.0, 1.5], 0.7, 1.7),
        # one seed: the stated width
        ({"spread": True, "abs": 0.005}, 1.6449, [1.6], 1.6399, 1.6499),
        # a half-life, x/÷ 2
        ({"scale": "log", "factor": 2}, 0.98, [0.98], 0.49, 1.96),
        # a decay after 4 steps judged as its half-life (4 ln 0.5 / ln 0.337) x/÷ 2
        (
            {"scale": "half_life", "after": 4, "factor": 2},
            0.337,
            [0.337],
            0.5 ** (4 / (0.5 * 4 * math.log(0.5) / math.log(0.337))),
            0.5 ** (4 / (2 * 4 * math.log(0.5) / math.log(0.337))),
        ),
    ],
)
def test_bands_against_hand_computed_edges(tolerance, published, cells, low, high):
    assert passes("within", low * (1 + 1e-9) + 1e-12, published, tolerance, cells)
    assert passes("within", high * (1 - 1e-9) - 1e-12, published, tolerance, cells)
    assert not passes("within", low * (1 - 1e-6) - 1e-9, published, tolerance, cells)
    assert not passes("within", high * (1 + 1e-6) + 1e-9, published, tolerance, cells)


def test_no_decay_is_outside_every_decay_band():
    tolerance = {"scale": "half_life", "after": 1, "factor": 100}
    assert passes("within", 0.9, 0.711, tolerance)
    assert not passes("within", 1.0, 0.711, tolerance)


def seeds_claim(published, **keys):
    return claim(
        table="seeds.csv",
        where={"model": "a"},
        column="seed_*",
        published=published,
        tolerance={"overlap": True},
        **keys,
    )


def test_seed_sets_are_compared_by_their_ranges():
    # the run's seeds of model a: 1.0 and 1.5
    assert judge(seeds_claim([1.4, 1.6, 1.7]))["verdict"] == "within"
    row = judge(seeds_claim([1.6, 1.7]))
    assert (row["verdict"], row["reproduced"], row["published"]) == (
        "differs",
        "1 .. 1.5 (2 seeds, median 1.25)",
        "1.6 .. 1.7 (2 seeds, median 1.65)",
    )
    with pytest.raises(ClaimError, match="overlap"):
        seeds_claim(1.5)
    with pytest.raises(ClaimError, match="list of published values"):  # the study's seeds need a width
        claim(table="seeds.csv", column="median", published=[1.0, 2.0], tolerance={"range": [0, 1]})


def test_a_value_is_the_median_over_the_seeds_judged_by_its_interval_against_the_margin():
    # forget mean over seeds 0 and 1 of lstm_w8: 0.50 and 0.40 (median 0.45, interval [0.4, 0.5])
    forget = {
        "table": "gates.csv",
        "where": {"model": "{reference_lstm}", "gate": "forget"},
        "column": "mean",
    }
    row = judge(claim(published=0.45, agg="median", tolerance={"abs": 0.1}, **forget))
    assert (row["verdict"], row["reproduced"], row["band"]) == ("reproduced", "0.45", "±0.1")
    assert row["interval"] == "[0.4, 0.5] over 2 seeds"
    # the margin is the stated width, not the run's seed range (spread: a regime view's only)
    row = judge(claim(published=0.45, agg="median", tolerance={"spread": True, "abs": 0.01}, **forget))
    assert (row["verdict"], row["band"]) == ("inconclusive", "±0.01")
    row = judge(claim(published=0.56, agg="median", tolerance={"spread": True, "abs": 0.01}, **forget))
    assert row["verdict"] == "differs"


@pytest.mark.parametrize(
    "tolerance, message",
    [
        ({"scale": "logit", "rel": 0.1}, "logit scale the band's width"),
        ({"scale": "half_life", "factor": 2}, "after: k"),
        ({"factor": 0.5}, "factor must be >= 1"),
        ({"range": [0, 1], "abs": 1}, "stands alone"),
        ({"scale": "cubic", "abs": 1}, "scale must be one of"),
        ({"spread": "yes", "abs": 1}, "spread is true or false"),
    ],
)
def test_malformed_bands_are_refused(tolerance, message):
    with pytest.raises(ClaimError, match=message):
        claim(**GATE_SELECTOR, tolerance=tolerance)


def test_a_value_that_differs_is_not_rescued_by_its_finding():
    """The old within -> direction fallback is gone: the value differs, and the
    finding it names is reported beside it (and counted once, on its own row)."""
    forget = {**GATE_SELECTOR, "where": {**GATE_SELECTOR["where"], "gate": "forget"}}
    with pytest.raises(ClaimError, match="takes no `compare`"):
        claim(
            published=0.9, tolerance={"abs": 0.1}, compare={"left": forget, "op": ">", "right": 0}, **forget
        )
    finding = claim(
        id="f",
        rule="direction",
        published="forget below input",
        table="gates.csv",
        compare={
            "left": {"where": {"seed": 0, "gate": "forget"}, "column": "mean"},
            "op": "<",
            "right": {"where": {"seed": 0, "gate": "input"}, "column": "mean"},
        },
    )
    value = claim(id="v", published=0.9, tolerance={"abs": 0.1}, finding="f", **forget)
    ledger = build_ledger([value, finding], TABLES, NAMES)
    assert list(ledger["verdict"]) == ["differs", "holds"]
    assert list(ledger["finding"]) == ["holds", ""]
    assert "| **differs** (value 0.5 vs 0.9, band ±0.1); finding holds |" in render_markdown(ledger)
    assert summary_line(ledger).startswith(
        "2 claims: 0 values reproduced, 1 findings hold, 1 values differ, "
    )
    with pytest.raises(ClaimError, match="names no direction entry"):
        build_ledger(
            [claim(id="v", published=0.9, tolerance={"abs": 0.1}, finding="nope", **forget)], TABLES, NAMES
        )


def test_a_finding_of_several_comparisons_stops_at_the_first_that_fails():
    split = pd.DataFrame(
        {
            "component": ["structure", "width", "total"],
            "loss_difference": [0.03, -0.01, 0.02],
            "share_of_total": [1.5, -0.5, 1.0],
        }
    )
    c = claim(
        rule="direction",
        published="half and half",
        table="split.csv",
        compare=[
            {"left": {"where": {"component": "structure"}, "column": "loss_difference"}, "op": ">",
             "right": 0},
            {"left": {"where": {"component": "width"}, "column": "loss_difference"}, "op": ">", "right": 0},
            {"left": {"where": {"component": "structure"}, "column": "share_of_total"}, "op": "between",
             "right": [0.4, 0.6]},
        ],
    )  # fmt: skip
    row = judge_claim(c, {"split.csv": split})  # a table without seeds: its point decides
    assert (row["verdict"], row["interval"]) == ("fails", "no seeds in its tables: the point decides")
    assert row["reproduced"] == "0.03 > 0; -0.01 > 0; 1.5 in [0.4, 0.6]"
    split.loc[1, "loss_difference"], split["share_of_total"] = 0.03, [0.5, 0.5, 1.0]
    assert judge_claim(c, {"split.csv": split})["verdict"] == "holds"


def test_selector_at_min_keeps_the_best_row():
    s = Selector.from_dict(
        {"table": "curve.csv", "where": {"seed": 0}, "at_min": "val_loss", "column": "step"}
    )
    assert read(s, CURVE) == 20


def test_protocol_entries_are_counted_apart():
    c = claim(table="seeds.csv", where={"model": "a"}, column="seed_0", published=1.0, tolerance={"rel": 0.1},
              kind="protocol")  # fmt: skip
    assert c.kind == "arithmetic"
    ledger = build_ledger([c], TABLES, NAMES)
    assert summary_line(ledger).endswith("arithmetic and protocol: 1 agree, 0 differ; 0 new")
    with pytest.raises(ClaimError, match="one `kind` is protocol"):
        claim(**GATE_SELECTOR, tolerance={"abs": 0.1}, kind="trained")


# --------------------------------------------------------------------------- published.yaml


def published_by_id() -> dict:
    return {c.id: c for c in load_claims(PUBLISHED)}


def test_every_band_is_justified_and_no_seed_is_compared_with_its_namesake():
    for c in load_claims(PUBLISHED):
        if c.rule == "within":
            assert c.why and "\n" not in c.why and len(c.why) <= 200, c.id
            # the study's seed 0 is not this run's: a value is read over the run's seeds
            assert "seed" not in c.selector.where and not re.fullmatch(r"seed_\d+", c.selector.column), c.id
        if c.finding is not None:
            assert published_by_id()[c.finding].rule == "direction", c.id


def test_counts_the_protocol_fixes_are_not_trained_findings():
    for c in load_claims(PUBLISHED):
        columns = {s.column for s in c.selectors()}
        if columns <= {"params", "positions", "units", "values", "width"}:
            assert c.kind == "arithmetic", c.id


def test_c1_reads_the_hidden_state_difference():
    """The study's 6.85e-07 compares hidden states; the cell's final state (values up to
    ~35) differs by more and is not what it printed."""
    check = pd.DataFrame(
        {
            "model": ["lstm_w8", "lstm_w8"],
            "seed": [0, 1],
            "max_abs_diff": [1.9e-05, 2.0e-05],
            "max_abs_diff_hidden": [3.6e-06, 2.0e-06],
        }
    )
    c = published_by_id()["C1.manual_step_check.lstm"].fill(NAMES)
    row = judge_claim(c, {c.selector.table: check})
    assert (row["verdict"], row["reproduced"]) == ("reproduced", "3.6e-06")  # the max over seeds


def curve(losses, every=50, seeds=(0, 1, 2)):
    """The same validation curve at every seed."""
    return pd.concat(
        pd.DataFrame(
            {
                "model": "lstm_w8",
                "seed": seed,
                "step": [every * i for i in range(len(losses))],
                "val_loss": losses,
            }
        )
        for seed in seeds
    )


FALLING = [3.0 - 0.1 * i for i in range(15)]  # steps 0 .. 700, every 50


@pytest.mark.parametrize(
    "losses, verdict",
    [
        (FALLING + [1.55, 1.54], "fails"),  # still falling at step 800, the last
        (FALLING + [1.61, 1.62], "holds"),  # best at 700: two evaluations before the last
        (FALLING + [1.5, 1.51], "fails"),  # best at 750, one evaluation before: within noise
    ],
)
def test_e2_at_the_bottom_asks_whether_the_curve_has_turned(losses, verdict):
    c = published_by_id()["E2.finding.lstm_at_bottom"].fill(NAMES)
    assert judge_claim(c, {c.compare[0].left.table: curve(losses)})["verdict"] == verdict


def d4_losses(lstm, gru_w8, gru_budget) -> pd.DataFrame:
    """gru_vs_lstm.csv's shape: one column per seed."""
    models = {"lstm_w8": lstm, "gru_w8": gru_w8, "gru_budget9": gru_budget}
    return pd.DataFrame(
        [{"model": m, **{f"seed_{s}": v for s, v in enumerate(vs)}} for m, vs in models.items()]
    )


D4_NAMES = {**NAMES, "width_matched_gru": "gru_w8", "budget_matched_gru": "gru_budget9"}


def test_d4_reports_a_share_only_when_both_parts_are_positive():
    c = published_by_id()["D4.finding.about_half_and_half"].fill(D4_NAMES)
    table = c.compare[0].left.table
    # the LSTM beats both GRUs: structure's "share" of the total would still be 0.5
    row = judge_claim(c, {table: d4_losses([1.50] * 3, [1.51] * 3, [1.52] * 3)})
    assert (row["verdict"], row["interval"]) == ("fails", "holds in 0.00 of bootstraps over 3 seeds")
    assert row["reproduced"].startswith("-0.01 > 0; -0.01 > 0")
    # the study's parts, seed by seed: 0.0165 and 0.0162
    row = judge_claim(c, {table: d4_losses([1.6776] * 3, [1.6611] * 3, [1.6449] * 3)})
    assert row["verdict"] == "holds"
    structure = published_by_id()["D4.gru_advantage_split.structure"].fill(D4_NAMES)
    row = judge_claim(structure, {table: d4_losses([1.6776, 1.67, 1.68], [1.6611, 1.65, 1.665], [1.6] * 3)})
    assert (row["verdict"], row["reproduced"]) == ("reproduced", "0.0165")  # paired: 0.0165, 0.02, 0.015
