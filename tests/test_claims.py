"""The claims ledger: selectors, rules and verdicts (unit), and the workflow's ledger
built from the smoke run's tables (a changed table changes the verdict)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, copy_tree, run_snakemake

from gatedrnn.claims import (
    KINDS,
    LEDGER_COLUMNS,
    VERDICTS,
    Claim,
    ClaimError,
    Comparison,
    NoMatch,
    Selector,
    build_ledger,
    check_questions,
    claim_tables,
    load_claims,
    parse_claims,
    passes,
    read,
    regime_tables,
    render_html,
    render_markdown,
    select_questions,
    summary_line,
)
from gatedrnn.claims.judge import evaluate, same_to_digits
from gatedrnn.claims.judge import judge as judge_claim
from gatedrnn.claims.load import flatten_groups

PUBLISHED = REPO / "workflow" / "resources" / "published.yaml"
NEW_FINDINGS = REPO / "workflow" / "resources" / "new_findings.yaml"

GATES = pd.DataFrame(
    {
        "model": ["lstm_w8", "lstm_w8", "lstm_w8", "lstm_w8"],
        "seed": [0, 0, 1, 1],
        "gate": ["input", "forget", "input", "forget"],
        "mean": [0.66, 0.50, 0.70, 0.40],
        "p5": [0.29, 0.08, 0.30, np.nan],
    }
)
CURVE = pd.DataFrame(
    {"model": ["m"] * 4, "seed": [0] * 4, "step": [0, 10, 20, 30], "val_loss": [3.0, 2.0, 1.9, 1.95]}
)
SEEDS = pd.DataFrame(
    {"model": ["a", "b"], "seed_0": [1.0, 2.0], "seed_1": [1.5, 2.5], "median": [1.25, 2.25]}
)
TABLES = {"gates.csv": GATES, "curve.csv": CURVE, "seeds.csv": SEEDS}


def sel(table="gates.csv", **keys) -> Selector:
    return Selector.from_dict({"table": table, **keys})


# --------------------------------------------------------------------------- selectors


def test_selector_picks_one_cell():
    assert read(sel(where={"seed": 0, "gate": "forget"}, column="mean"), GATES) == 0.50


def test_selector_list_values_and_aggregates():
    s = sel(where={"seed": [0, 1], "gate": "input"}, column="mean", agg="median")
    assert read(s, GATES) == pytest.approx(0.68)
    assert read(sel(where={"gate": "forget"}, column="mean", agg="min"), GATES) == 0.40
    assert read(sel(where={"gate": "forget"}, column="mean", agg="max"), GATES) == 0.50


def test_selector_column_pattern_spans_columns():
    s = Selector.from_dict({"table": "seeds.csv", "where": {"model": "b"}, "column": "seed_*", "agg": "max"})
    assert read(s, SEEDS) == 2.5


def test_selector_at_max_keeps_the_last_step():
    s = Selector.from_dict(
        {"table": "curve.csv", "where": {"seed": 0}, "at_max": "step", "column": "val_loss"}
    )
    assert read(s, CURVE) == 1.95


def test_selector_nan_as():
    s = sel(where={"seed": 1, "gate": "forget"}, column="p5", nan_as=float("inf"))
    assert read(s, GATES) == math.inf
    assert math.isnan(read(sel(where={"seed": 1, "gate": "forget"}, column="p5"), GATES))


def test_selector_unique():
    frame = pd.DataFrame({"k": [0, 1, 2], "half_life": [4.0, 4.0, 4.0], "other": [1, 2, 3]})
    assert read(Selector("t", "half_life", agg="unique"), frame) == 4.0
    with pytest.raises(ClaimError, match="not unique"):
        read(Selector("t", "other", agg="unique"), frame)


def test_selector_several_cells_without_agg_is_an_error():
    with pytest.raises(ClaimError, match="selects 2 cells"):
        read(sel(where={"gate": "forget"}, column="mean"), GATES)


def test_selector_unknown_where_column_is_an_error():
    with pytest.raises(ClaimError, match="no column 'cell'"):
        read(sel(where={"cell": "lstm"}, column="mean"), GATES)


def test_selector_without_a_row_or_column_is_no_match():
    with pytest.raises(NoMatch):
        read(sel(where={"seed": 7}, column="mean"), GATES)
    with pytest.raises(NoMatch):
        read(Selector.from_dict({"table": "seeds.csv", "where": {"model": "a"}, "column": "seed_2"}), SEEDS)


def test_selector_placeholders_are_filled_from_the_config():
    s = sel(where={"model": "{reference_lstm}", "seed": 0, "gate": "input"}, column="mean")
    assert read(s.fill({"reference_lstm": "lstm_w8"}), GATES) == 0.66
    with pytest.raises(ClaimError, match="unknown placeholder"):
        s.fill({"other": "x"})


def test_selector_matches_numbers_numerically_and_text_as_text():
    frame = pd.DataFrame({"forget_bias": [0.0, 3.0], "case": ["a", "b"], "v": [1, 2]})
    assert read(Selector("t", "v", {"forget_bias": 3}), frame) == 2
    assert read(Selector("t", "v", {"case": "a"}), frame) == 1


# --------------------------------------------------------------------------- rules


def test_same_to_digits():
    assert same_to_digits(0.623525, 0.62, 2)
    assert same_to_digits(7.10543e-15, 7.1e-15, 2)
    assert not same_to_digits(0.6149, 0.62, 2)
    assert same_to_digits(0.0, 0.0, 2)


@pytest.mark.parametrize(
    "rule, reproduced, published, tolerance, ok",
    [
        ("exact", 0.623525, 0.62, {"sig_digits": 2}, True),
        ("exact", 0.63, 0.62, {"sig_digits": 2}, False),
        ("exact", 301000, 301000, {"abs": 0}, True),
        ("exact", 301001, 301000, {"abs": 0}, False),
        ("exact", 3.0 + 1e-14, 3, {"rel": 1e-12}, True),
        ("exact", "agree", "agree", {}, True),
        ("exact", "differ", "agree", {}, False),
        ("within", 0.56, 0.495, {"abs": 0.1}, True),
        ("within", 0.60, 0.495, {"abs": 0.1}, False),
        ("within", 620000, 635835, {"rel": 0.02}, False),
        ("within", 630000, 635835, {"rel": 0.02}, True),
        ("within", 0.02, 0.0069, {"factor": 3}, True),
        ("within", 0.03, 0.0069, {"factor": 3}, False),
        ("within", 4.8e-06, 6.85e-07, {"range": [0, 1e-5]}, True),
        ("within", 2e-05, 6.85e-07, {"range": [0, 1e-5]}, False),
        ("within", float("nan"), 0.5, {"abs": 1}, False),
    ],
)
def test_passes(rule, reproduced, published, tolerance, ok):
    assert passes(rule, reproduced, published, tolerance) is ok


def comparison(op, right, scale=1.0, left=None):
    data = {
        "left": left or {"where": {"model": "a"}, "column": "median"},
        "op": op,
        "right": right,
        "scale": scale,
    }
    return Comparison.from_dict(data, "seeds.csv", "test")


@pytest.mark.parametrize(
    "op, right, scale, holds",
    [
        ("<", {"where": {"model": "b"}, "column": "median"}, 1.0, True),
        (">", {"where": {"model": "b"}, "column": "median"}, 1.0, False),
        ("<", {"where": {"model": "b"}, "column": "median"}, 0.5, False),  # 1.25 < 1.125?
        ("<=", 1.25, 1.0, True),
        (">=", 1.3, 1.0, False),
        ("between", [1.0, 1.5], 1.0, True),
        ("between", [1.3, 1.5], 1.0, False),
        ("between", [{"where": {"model": "a"}, "column": "seed_0"}, 2], 1.0, True),
    ],
)
def test_comparison(op, right, scale, holds):
    result, text = evaluate(comparison(op, right, scale), TABLES)
    assert result is holds
    assert "1.25" in text


def test_comparison_with_nan_does_not_hold():
    left = {"table": "gates.csv", "where": {"seed": 1, "gate": "forget"}, "column": "p5"}
    assert evaluate(comparison(">", 0, left=left), TABLES)[0] is False


def test_bad_comparisons_are_refused():
    with pytest.raises(ClaimError, match="op"):
        comparison("~", 1)
    with pytest.raises(ClaimError, match="between"):
        comparison("between", 1)


# --------------------------------------------------------------------------- claims


def claim(**keys) -> Claim:
    base = {"id": "x", "experiment": "C2", "description": "d", "published": 0.5, "rule": "within"}
    return Claim.from_dict({**base, **keys})


GATE_SELECTOR = {"table": "gates.csv", "where": {"model": "{reference_lstm}", "seed": 0}, "column": "mean"}
NAMES = {"reference_lstm": "lstm_w8"}


def judge(c: Claim) -> dict:
    return judge_claim(c.fill(NAMES), TABLES)


def test_each_verdict_kind():
    forget = {**GATE_SELECTOR, "where": {**GATE_SELECTOR["where"], "gate": "forget"}}
    exact = claim(rule="exact", published=0.5, tolerance={"sig_digits": 2}, **forget)
    within = claim(published=0.45, tolerance={"abs": 0.1}, **forget)
    differs = claim(published=0.9, tolerance={"abs": 0.1}, **forget)
    direction = claim(
        rule="direction",
        published="forget below input",
        table="gates.csv",
        compare={
            "left": {"where": {"seed": 0, "gate": "forget"}, "column": "mean"},
            "op": "<",
            "right": {"where": {"seed": 0, "gate": "input"}, "column": "mean"},
        },
    )
    fails = claim(
        rule="direction",
        published="forget above input",
        table="gates.csv",
        compare={
            "left": {"where": {"seed": 0, "gate": "forget"}, "column": "mean"},
            "op": ">",
            "right": {"where": {"seed": 0, "gate": "input"}, "column": "mean"},
        },
    )
    verdicts = [judge(c)["verdict"] for c in (exact, within, differs, direction, fails)]
    assert verdicts == ["exact", "reproduced", "differs", "holds", "fails"]
    assert [c.kind for c in (exact, within, direction)] == ["arithmetic", "value", "finding"]
    row = judge(direction)
    assert row["reproduced"] == "0.5 < 0.66"
    assert row["table"] == "gates.csv" and row["column"] == "mean"


def test_missing_row_differs_and_says_so():
    c = claim(
        tolerance={"abs": 1},
        **{**GATE_SELECTOR, "where": {"seed": 5, "gate": "forget"}},
    )
    row = judge(c)
    assert row["verdict"] == "differs"
    assert row["reproduced"].startswith("missing: no row")


def new_finding(**keys) -> Claim:
    base = {"id": "G9.x", "experiment": "G9", "description": "d", "rule": "new", "question": "q"}
    return Claim.from_dict({**base, **GATE_SELECTOR, "where": {"model": "{reference_lstm}", "seed": 0,
                            "gate": "forget"}, **keys})  # fmt: skip


def test_a_new_finding_reports_its_value_and_whether_the_stated_finding_holds():
    plain = judge(new_finding())
    assert (plain["verdict"], plain["reproduced"], plain["published"]) == ("new", "0.5", "")
    stated = new_finding(compare={"left": {"column": "mean"}, "op": "between", "right": [0.4, 0.45]})
    row = judge(stated)
    assert row["verdict"] == "new"
    # seed 0 alone: no seeds to resample, the point decides (and the text says so)
    point = "no seeds in its tables: the point decides"
    assert row["reproduced"] == f"0.5 (0.5 in [0.4, 0.45]; {point}: does not hold)"
    holds = judge(new_finding(compare={"left": {"column": "mean"}, "op": "<", "right": {"column": "mean",
                                       "where": {"gate": "input"}}}))  # fmt: skip
    assert holds["reproduced"] == f"0.5 (0.5 < 0.66; {point}: holds)"
    # a run this config does not have: still new (nothing to reproduce), and says so
    missing = judge(new_finding(where={"model": "{reference_lstm}", "seed": 7, "gate": "forget"}))
    assert missing["verdict"] == "new" and missing["reproduced"].startswith("missing: no row")


@pytest.mark.parametrize(
    "keys, message",
    [
        ({"published": 0.5}, "no `published` value"),
        ({"tolerance": {"abs": 1}}, "no `published` value"),
        ({"question": None, "column": None}, "needs `table`, `column` and `question`"),
    ],
)
def test_malformed_new_findings_are_refused(keys, message):
    data = {k: v for k, v in keys.items() if v is not None}
    drop = [k for k, v in keys.items() if v is None]
    base = {"id": "G9.x", "experiment": "G9", "description": "d", "rule": "new", "question": "q",
            **GATE_SELECTOR, **data}  # fmt: skip
    with pytest.raises(ClaimError, match=re.escape(message)):
        Claim.from_dict({k: v for k, v in base.items() if k not in drop})


def test_only_a_new_finding_names_a_question():
    with pytest.raises(ClaimError, match="only a new finding"):
        claim(question="reset_gate", tolerance={"abs": 0.1}, **GATE_SELECTOR)


def test_a_new_finding_may_not_reuse_a_published_id():
    published = claim(id="G1.x", tolerance={"abs": 0.1}, **GATE_SELECTOR)
    with pytest.raises(ClaimError, match=r"unique across the ledger; repeated: \['G1.x'\]"):
        build_ledger([published, new_finding(id="G1.x")], TABLES, NAMES)


def test_new_findings_follow_their_questions_switch():
    published = claim(tolerance={"abs": 0.1}, **GATE_SELECTOR)
    a, b = new_finding(id="G1.a", question="reset_gate"), new_finding(id="G6.b", question="long_memory")
    assert select_questions([published, a, b], ["long_memory"]) == [published, b]
    assert select_questions([published, a, b], []) == [published]
    check_questions([a, b], ["reset_gate", "long_memory", "cho_gru"])
    with pytest.raises(ClaimError, match=r"unknown questions \['long_memory'\]"):
        check_questions([a, b], ["reset_gate"])


def test_new_findings_yaml_answers_every_open_question():
    """Each open question of config.yaml has ledger rows, all `new`, all reading its own table."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    findings = load_claims(NEW_FINDINGS)
    questions = {c.question for c in findings}
    assert questions == set(config["open_questions"])
    check_questions(findings, config["open_questions"])
    assert {c.rule for c in findings} == {"new"} and all(c.published is None for c in findings)
    assert {c.experiment for c in findings} == {"G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8"}
    published_ids = {c.id for c in load_claims(PUBLISHED)}
    assert not published_ids & {c.id for c in findings}
    # the ledger is bit-identical run to run: no row may read a timing
    timings = {"seconds_per_step", "time_over_pytorch", "wall_seconds"}
    assert not {s.column for c in findings for s in c.selectors()} & timings


@pytest.mark.parametrize(
    "keys, message",
    [
        ({"rule": "roughly"}, "rule must be one of"),
        ({"colour": "red"}, "unknown keys"),
        ({"rule": "direction"}, "needs `compare`"),
        ({"tolerance": {}}, "tolerance keys"),
        ({"tolerance": {"sig_digits": 2}}, "tolerance keys"),
        ({"source": "memory"}, "source must be"),
        ({"published": "half"}, "numeric published"),
    ],
)
def test_malformed_claims_are_refused(keys, message):
    with pytest.raises(ClaimError, match=message):
        claim(**{**GATE_SELECTOR, "tolerance": {"abs": 0.1}, **keys})


def test_published_written_4e_07_is_a_number():
    # PyYAML reads 4e-07 (no dot) as a string; the claim still holds a number.
    data = yaml.safe_load("published: 4e-07")
    assert isinstance(data["published"], str)
    c = claim(rule="exact", tolerance={"sig_digits": 2}, published=data["published"], **GATE_SELECTOR)
    assert c.published == 4e-07


def test_groups_give_their_keys():
    entries = [
        {
            "group": "g",
            "experiment": "C2",
            "table": "gates.csv",
            "where": {"model": "{reference_lstm}", "seed": 0},
            "rule": "within",
            "tolerance": {"abs": 0.1},
            "claims": [
                {
                    "id": "a",
                    "description": "d",
                    "published": 0.5,
                    "where": {"gate": "forget"},
                    "column": "mean",
                },
                {
                    "id": "b",
                    "description": "d",
                    "published": "x",
                    "rule": "direction",
                    "compare": {
                        "left": {"column": "mean", "where": {"gate": "input"}},
                        "op": ">",
                        "right": 0.6,
                    },
                },
            ],
        }
    ]
    flat = flatten_groups(entries)
    assert flat[0]["where"] == {"model": "{reference_lstm}", "seed": 0, "gate": "forget"}
    assert flat[0]["tolerance"] == {"abs": 0.1}
    assert "tolerance" not in flat[1]  # a claim that changes the rule keeps none of the group's tolerance
    claims = parse_claims({"claims": entries})
    rows = [judge(c) for c in claims]
    assert [r["verdict"] for r in rows] == ["reproduced", "holds"]


def test_compare_sides_take_the_claims_where():
    c = claim(
        rule="direction",
        published="x",
        table="gates.csv",
        where={"seed": 0, "gate": "input"},
        compare={"left": {"column": "mean"}, "op": ">", "right": 0.6},
    )
    assert judge(c)["verdict"] == "holds"


def test_ids_must_be_unique():
    entry = {
        "id": "a",
        "experiment": "C2",
        "description": "d",
        "published": 1,
        "rule": "exact",
        **GATE_SELECTOR,
    }
    with pytest.raises(ClaimError, match="unique"):
        parse_claims({"claims": [entry, entry]})


def test_ledger_and_its_renderings():
    forget = {**GATE_SELECTOR, "where": {**GATE_SELECTOR["where"], "gate": "forget"}}
    claims = [
        claim(id="one", rule="exact", tolerance={"sig_digits": 1}, published=0.5, **forget),
        claim(id="two", tolerance={"abs": 0.01}, published=0.9, **forget),
    ]
    ledger = build_ledger(claims, TABLES, NAMES)
    assert list(ledger.columns) == LEDGER_COLUMNS
    assert list(ledger["selector"]) == ["model=lstm_w8, seed=0, gate=forget"] * 2
    line = (
        "2 claims: 0 values reproduced, 0 findings hold, 1 values differ, 0 findings fail, "
        "0 values inconclusive, 0 findings inconclusive; arithmetic and protocol: 1 agree, 0 differ; 0 new"
    )
    assert summary_line(ledger) == line
    md = render_markdown(ledger)
    assert f"**{line}**" in md
    assert md.count("\n| one |") == 1
    html = render_html(ledger)
    assert html.count('class="claim ') == 2 and 'data-claim-id="two"' in html
    with pytest.raises(ClaimError, match="not given"):
        build_ledger(claims, {}, NAMES)


# --------------------------------------------------------------------------- published.yaml


def test_published_yaml_parses_and_covers_every_experiment():
    claims = load_claims(PUBLISHED)
    assert len(claims) >= 150
    experiments = {c.experiment for c in claims}
    expected = {"A1", "A2", "A3", "A4", "A5", "B1", "C1", "C2", "C3", "C4", "C5"}
    expected |= {"D1", "D2", "D3", "D4", "D5", "E1", "E2", "E3"}
    assert expected <= experiments
    assert {c.rule for c in claims} == {"exact", "within", "direction"}
    # every published number the spec prints for D3 is there (the seeds as sets)
    d3 = set()
    for c in claims:
        if c.experiment == "D3" and c.rule == "within":
            d3 |= set(c.published) if isinstance(c.published, tuple) else {c.published}
    assert {1.6449, 1.6503, 1.6276, 1.6498, 1.6624, 1.6611, 1.6776, 1.6737, 1.6785} <= d3
    # closed-form rows are exact; trained rows never are, except the counts that fix the
    # model (D3's parameter counts, issue 27: no band)
    for c in claims:
        if c.experiment[0] in "CDE" and c.rule == "exact":
            assert c.selector.column in {"units", "values", "params"}, c.id
    counts = {
        c.id: c for c in claims if c.experiment == "D3" and c.selector and c.selector.column == "params"
    }
    assert len(counts) == 3 and all(c.rule == "exact" and not c.tolerance for c in counts.values())


def test_published_values_are_not_in_the_code():
    """The ledger's code knows no published number: they live in published.yaml only."""
    code = "".join(path.read_text() for path in sorted((REPO / "src" / "gatedrnn" / "claims").glob("*.py")))
    code += (REPO / "workflow" / "scripts" / "claims.py").read_text()
    for value in ("1.6449", "0.495", "6.85e-07", "0.0165", "0.711", "1331200"):
        assert value not in code


# --------------------------------------------------------------------------- the workflow


def read_ledger(workdir):
    return pd.read_csv(workdir / "results" / "claims.csv", keep_default_na=False)


@pytest.mark.workflow
def test_smoke_ledger_has_every_claim(smoke_run):
    ledger = read_ledger(smoke_run)
    claims = load_claims(PUBLISHED)
    findings = select_questions(load_claims(NEW_FINDINGS), smoke_questions())
    assert findings, "the smoke config answers the open questions"
    assert list(ledger.columns) == LEDGER_COLUMNS
    assert list(ledger["id"]) == [c.id for c in claims + findings]
    assert set(ledger["verdict"]) <= set(VERDICTS)
    new = ledger["id"].str.startswith("G")
    assert (ledger.loc[new, "verdict"] == "new").all() and (ledger.loc[~new, "verdict"] != "new").all()
    # Only rows the smoke config cannot have (a third seed; runs its questions leave out) are missing.
    missing = ledger[ledger["reproduced"].str.startswith("missing")]
    assert all("seed_2" in row.reproduced or row.verdict == "new" for row in missing.itertuples()), missing
    assert len(missing[missing["verdict"] == "new"]) < len(findings) / 2
    # Closed-form rows are exact whatever the config (A4's matched widths depend on the corpus).
    closed = ledger[ledger["experiment"].isin(["A1", "A2", "A3", "A5"])]
    assert (closed["verdict"] == "exact").all(), closed[closed["verdict"] != "exact"]
    assert set(ledger["kind"]) <= set(KINDS)
    md = (smoke_run / "results" / "claims.md").read_text()
    assert f"**{counted_summary(ledger)}**" in md


def counted_summary(ledger) -> str:
    """The summary line, counted here from the ledger's kind and verdict columns."""

    def n(kind, *verdicts):
        return int(((ledger["kind"] == kind) & ledger["verdict"].isin(verdicts)).sum())

    values = (n("value", "reproduced", "within"), n("value", "differs"), n("value", "inconclusive"))
    findings = (n("finding", "holds"), n("finding", "fails"), n("finding", "inconclusive"))
    agree = n("arithmetic", "exact", "within", "reproduced", "holds")
    return (
        f"{len(ledger)} claims: {values[0]} values reproduced, {findings[0]} findings hold, "
        f"{values[1]} values differ, {findings[1]} findings fail, {values[2]} values inconclusive, "
        f"{findings[2]} findings inconclusive; arithmetic and protocol: "
        f"{agree} agree, {n('arithmetic', 'differs', 'fails')} differ; "
        f"{n('new', 'new')} new"
    )


@pytest.mark.workflow
def test_smoke_ledger_values_are_read_from_the_tables(smoke_run):
    """Every reproduced number of an exact / within row, and the number of every new
    finding, is the table cell it names (aggregates over the seeds through numpy; a
    set of seeds as its range)."""
    ledger = read_ledger(smoke_run)
    claims = {c.id: c for c in load_claims(PUBLISHED) + load_claims(NEW_FINDINGS)}
    models = ledger_models(smoke_run)
    checked = new = 0
    for row in ledger.itertuples(index=False):
        c = claims[row.id]
        if row.reproduced.startswith("missing") or c.rule == "direction":
            continue
        table = pd.read_csv(smoke_run / c.selector.table)

        def cells_where(where, table=table, c=c):
            mask = pd.Series(True, index=table.index)
            for key, value in where.items():
                if isinstance(value, str):
                    mask &= table[key].astype(str) == value.format_map(models)
                else:
                    mask &= table[key] == value
            columns = [
                col for col in table.columns if re.fullmatch(c.selector.column.replace("*", ".*"), col)
            ]
            return table.loc[mask, columns].to_numpy().ravel()

        cells = cells_where(c.selector.where)
        if c.selector.minus is not None:  # a paired difference, seed by seed (columns in seed order)
            cells = cells.astype(float) - cells_where(c.selector.minus.where).astype(float)
            value = float(np.median(cells))
            # a new finding's number comes first, its comparison after it (G3)
            assert float(row.reproduced.split(" (")[0]) == pytest.approx(value, rel=1e-5), row.id
            checked += 1
            continue
        if c.tolerance.get("overlap"):
            low, high = (float(v) for v in row.reproduced.split(" (")[0].split(" .. "))
            assert (low, high) == pytest.approx((cells.min(), cells.max()), rel=1e-5), row.id
            checked += 1
            continue
        if c.selector.agg in (None, "unique"):
            value = cells[0]
        else:
            value = getattr(np, c.selector.agg)(cells.astype(float))
        reproduced = row.reproduced.split(" (")[0] if c.rule == "new" else row.reproduced
        if isinstance(value, str):
            assert reproduced == value
        else:
            assert float(reproduced) == pytest.approx(float(value), rel=1e-5), row.id
        checked += 1
        new += c.rule == "new"
    assert checked > 100 and new >= 10


def smoke_questions() -> list[str]:
    config = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    return [q for q, settings in config["open_questions"].items() if settings["enabled"]]


def ledger_models(workdir) -> dict:
    """The smoke config's model ids, from its matched-widths table."""
    models = pd.read_csv(workdir / "results" / "tables" / "matched_widths.csv")["model"]
    lstm = next(m for m in models if m.startswith("lstm_w"))
    width = lstm.removeprefix("lstm_w")
    return {
        "reference_lstm": lstm,
        "width_matched_gru": f"gru_w{width}",
        "budget_matched_gru": f"gru_budget{width}",
        "budget_matched_rnn": f"rnn_budget{width}",
    }


@pytest.mark.workflow
def test_changed_table_changes_the_verdict(smoke_run, tmp_path):
    work = copy_tree(smoke_run, tmp_path / "changed")
    before = read_ledger(work).set_index("id")["verdict"]
    assert before["A1.highway.tau47.forget0.99"] == "exact"
    # holds, or inconclusive where the smoke run's two seeds disagree (issue #47)
    assert before["D3.finding.gru_budget_beats_lstm"] in ("holds", "inconclusive")

    highway = work / "results" / "tables" / "highway.csv"
    table = pd.read_csv(highway)
    table.loc[table["distance"] == 47, "forget_0.99"] = 0.7
    table.to_csv(highway, index=False)
    vs = work / "results" / "tables" / "gru_vs_lstm.csv"
    table = pd.read_csv(vs)
    seeds = [column for column in table.columns if column.startswith("seed_")] + ["median"]
    table.loc[table["cell"] == "lstm", seeds] = 0.1  # the LSTM now "wins", at every seed
    table.to_csv(vs, index=False)

    run_snakemake(work, "--cores", "1", "results/claims.csv")
    after = read_ledger(work).set_index("id")
    assert after.loc["A1.highway.tau47.forget0.99", "verdict"] == "differs"
    assert after.loc["A1.highway.tau47.forget0.99", "reproduced"] == "0.7"
    assert after.loc["D3.finding.gru_budget_beats_lstm", "verdict"] == "fails"
    unchanged = [i for i in before.index if not i.startswith(("A1.highway.tau47.forget0.99", "D3", "D4"))]
    assert (after.loc[unchanged, "verdict"] == before[unchanged]).all()


def test_claims_target_pulls_exactly_the_tables_it_reads(tmp_path):
    proc = run_snakemake(tmp_path, "-n", "results/claims.csv")
    text = proc.stdout + proc.stderr
    block = text.split("rule claims:")[1].split("\n\n")[0]
    inputs = re.search(r"input: (.*)", block).group(1).split(", ")
    tables = sorted(i for i in inputs if i.startswith("results/"))
    claims = load_claims(PUBLISHED)
    findings = select_questions(load_claims(NEW_FINDINGS), smoke_questions())
    # the tables the claims and the enabled questions' findings read, and (the smoke
    # config runs the regime sweep) the regime-sensitivity table of the "across regimes" column
    assert tables == sorted(set(claim_tables(claims + findings)) | set(regime_tables(claims)))
    assert "_figure" not in text  # no figure is made for the ledger
