"""Every judged entry of workflow/resources/published.yaml and workflow/resources/new_findings.yaml can fail.

A mutation test of the ledger, generated from the entries alone (no line here names
an entry, so a new entry is covered without one). For each entry, and each
``across_regimes`` view, the test builds the smallest tables its selectors read,
fills them so that the entry passes, then:

- a value (``exact``, ``within``) is moved just outside its band, above and below
  (and, just inside, still passes): the verdict must be ``differs``;
- a finding (``direction``, and the stated finding of a new one) has each of its
  comparisons reversed in turn: the verdict must be ``fails`` (``does not hold``);
- a decay curve left undecayed (1.0), or a half-life that never halves (inf), differs.

Entries are judged as the ledger judges them, over seeds (every seed's cell is set
alike, so the interval is a point: ``reproduced`` for ``within``); a regime view by
its point judgement. A paired difference (``minus``) is written with its subtrahend
at 0; a finding of paired differences (D4's) is tested in test_claims_rules.py.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

from gatedrnn.claims import Claim, Selector, load_claims
from gatedrnn.claims.bands import from_scale, scale_of, to_scale
from gatedrnn.claims.judge import ledger_verdict
from gatedrnn.claims.judge import verdict as point_verdict
from gatedrnn.claims.select import locate, read

NAMES = {
    "reference_lstm": "lstm_w8",
    "width_matched_gru": "gru_w8",
    "budget_matched_gru": "gru_budget9",
    "budget_matched_rnn": "rnn_budget9",
}
SEEDS = (0, 1, 2)
CURVE = 5  # rows along an at_max / at_min column
MISSING = "~"  # a cell no selector asked for


def all_claims() -> list[Claim]:
    claims = load_claims(REPO / "workflow" / "resources" / "published.yaml") + load_claims(
        REPO / "workflow" / "resources" / "new_findings.yaml"
    )
    return [claim.fill(NAMES) for claim in claims]


def judged() -> list[tuple[str, Claim]]:
    """Every entry that is judged (all but a new finding without a stated finding),
    and every regime view, as (test id, claim)."""
    found = []
    for claim in all_claims():
        if claim.rule != "new" or claim.compare is not None:
            found.append((claim.id, claim))
        if claim.regime_view is not None:
            found.append((f"{claim.id}[across_regimes]", claim.regime_view))
    return found


JUDGED = judged()
REGIME_VIEWS = {id(claim) for name, claim in JUDGED if name.endswith("[across_regimes]")}


def verdict(claim: Claim, tables):
    """The ledger's judgement (``reproduced`` read as ``within``), a regime view's point one."""
    if id(claim) in REGIME_VIEWS:
        return point_verdict(claim, tables)
    found = ledger_verdict(claim, tables)
    return found if found.verdict != "reproduced" else type(found)("within", found.reproduced, found.band)


def with_minus(selectors: list[Selector]) -> list[Selector]:
    return [t for s in selectors for t in ([s] if s.minus is None else [s, s.minus])]


# --------------------------------------------------------------------------- tables from selectors


def concrete_columns(pattern: str) -> list[str]:
    """The columns a column name stands for (``seed_*``: one per seed)."""
    if not any(ch in pattern for ch in "*?["):
        return [pattern]
    return [pattern.replace("*", str(seed)) for seed in SEEDS]


def rows_of(selector: Selector) -> list[dict]:
    """Rows (key columns only) that ``selector`` matches: its ``where`` (a list: its
    first value), one row per seed where it aggregates over rows, and a curve along
    its ``at_max`` / ``at_min`` column."""
    base = {key: value[0] if isinstance(value, list) else value for key, value in selector.where.items()}
    rows = [base]
    spans_seeds = (
        selector.agg is not None and "seed" not in base and len(concrete_columns(selector.column)) == 1
    )
    if spans_seeds:
        rows = [{**row, "seed": seed} for row in rows for seed in SEEDS]
    for along in (selector.at_max, selector.at_min):
        if along is not None:
            rows = [{**row, along: float(j)} for row in rows for j in range(CURVE)]
    return rows


def build_tables(selectors: list[Selector]) -> dict[str, pd.DataFrame]:
    """The smallest tables ``selectors`` read: their rows, every value cell 1.0 (a
    curve's own column 0, 1, 2, ... so its rows differ)."""
    tables = {}
    for table in dict.fromkeys(s.table for s in selectors):
        mine = [s for s in selectors if s.table == table]
        keyed = {}
        for selector in mine:
            for row in rows_of(selector):
                keyed.setdefault(tuple(sorted((k, str(v)) for k, v in row.items())), row)
        frame = pd.DataFrame(list(keyed.values()))
        for column in frame.columns:  # a cell a row's selector did not ask for matches nothing
            numeric = pd.api.types.is_numeric_dtype(frame[column].dropna())
            frame[column] = frame[column].where(frame[column].notna(), np.nan if numeric else MISSING)
        for selector in mine:
            for column in concrete_columns(selector.column):
                if column not in frame.columns:
                    frame[column] = 1.0
        tables[table] = frame.reset_index(drop=True)
    return tables


def write(selector: Selector, tables: dict[str, pd.DataFrame], value) -> None:
    """Set every cell ``selector`` reads to ``value`` (a paired difference: its first
    side, the side it subtracts set to 0)."""
    if selector.minus is not None:
        write(selector.minus, tables, 0.0)
        selector = dataclasses.replace(selector, minus=None)
    frame = tables[selector.table]
    rows, columns = locate(selector, frame)
    for column in columns:
        if isinstance(value, str) and frame[column].dtype != object:
            frame[column] = frame[column].astype(object)
        frame.loc[rows, column] = value


def write_cells(claim: Claim, tables, value) -> None:
    write(claim.selector, tables, value)


def fresh(claim: Claim) -> dict[str, pd.DataFrame]:
    return build_tables(with_minus(claim.selectors()))


def copy(tables):
    return {name: frame.copy() for name, frame in tables.items()}


# --------------------------------------------------------------------------- findings


def bound(comparison, tables) -> list[float]:
    values = [read(v, tables[v.table]) if isinstance(v, Selector) else v for v in comparison.right]
    return [comparison.scale * float(v) for v in values]


def step(b: float) -> float:
    return 0.1 * abs(b) if b != 0 else 0.1


def satisfy(comparison, tables) -> None:
    b = bound(comparison, tables)
    if comparison.op == "between":
        target = (b[0] + b[1]) / 2
    else:
        target = b[0] - step(b[0]) if comparison.op in ("<", "<=") else b[0] + step(b[0])
    write(comparison.left, tables, target)


def violate(comparison, tables) -> None:
    b = bound(comparison, tables)
    if comparison.op == "between":
        target = b[1] + step(b[1])
    else:
        target = b[0] + step(b[0]) if comparison.op in ("<", "<=") else b[0] - step(b[0])
    write(comparison.left, tables, target)


def holds(claim: Claim, tables) -> bool:
    found = verdict(claim, tables)
    if claim.rule == "new":
        assert found.reproduced.endswith(("holds)", "does not hold)")), found.reproduced
        return found.reproduced.endswith(": holds)")
    assert found.verdict in ("holds", "fails"), found
    return found.verdict == "holds"


def settle(claim: Claim, tables, change) -> None:
    """Apply ``change`` until the tables stop moving (a side read by two comparisons)."""
    for _ in range(5):
        change(tables)


# --------------------------------------------------------------------------- the test


def just_outside(edge: float, scale: str, after: float, sign: int, inside: bool = False) -> float:
    """A value a hair beyond (or, ``inside``, a hair within) a band's edge, on its scale."""
    point = to_scale(edge, scale, after)
    hair = 1e-6 * max(1.0, abs(point)) * (-1 if inside else 1)
    return from_scale(point + sign * hair, scale, after)


@pytest.mark.parametrize("name, claim", JUDGED, ids=[name for name, _ in JUDGED])
def test_entry_passes_and_then_fails_on_its_mutated_tables(name, claim):
    tables = fresh(claim)
    if claim.rule == "exact":
        write_cells(claim, tables, claim.published)
        assert verdict(claim, tables).verdict == "exact"
        published = claim.published
        moved = (
            f"not {published}" if isinstance(published, str) else float(published) * 1.1 + (published == 0)
        )
        write_cells(claim, tables, moved)
        assert verdict(claim, tables).verdict == "differs", moved
        return
    if claim.rule == "within":
        if claim.tolerance.get("overlap"):
            rows, columns = locate(claim.selector, tables[claim.selector.table])
            for i, column in enumerate(columns):
                tables[claim.selector.table].loc[rows, column] = claim.published[i % len(claim.published)]
        elif isinstance(claim.published, tuple):  # the study's seeds: a spread of their own
            study = claim.published
            write_cells(claim, tables, float(np.median(study)))
            found = verdict(claim, tables)
            assert found.verdict != "differs", found
            reach = found.band.half_width + (max(study) - min(study))  # margin plus the study's spread
            for sign in (1, -1):
                write_cells(claim, tables, float(np.median(study)) + sign * reach * (1 + 1e-6))
                assert verdict(claim, tables).verdict == "differs", sign
            return
        else:
            write_cells(claim, tables, claim.published)
        found = verdict(claim, tables)
        assert found.verdict == "within", found
        band, scale, after = found.band, scale_of(claim.tolerance), float(claim.tolerance.get("after", 1))
        if claim.tolerance.get("overlap") or "range" in claim.tolerance:
            scale = "linear"
        for edge, sign in ((band.high, 1), (band.low, -1)):
            inside = edge if band.low == band.high else just_outside(edge, scale, after, sign, inside=True)
            write_cells(claim, tables, inside)
            assert verdict(claim, tables).verdict == "within", (edge, inside)
            outside = just_outside(edge, scale, after, sign)
            write_cells(claim, tables, outside)
            assert verdict(claim, tables).verdict == "differs", (edge, outside, verdict(claim, tables))
        return
    # a finding: make every comparison hold, then reverse each in turn
    if any(s.minus is not None for s in claim.selectors()):
        pytest.skip("a finding of paired differences: test_claims_rules.py judges D4's on built tables")
    settle(claim, tables, lambda t: [satisfy(c, t) for c in claim.compare])
    assert holds(claim, tables), verdict(claim, tables)
    for i, comparison in enumerate(claim.compare):
        reversed_ = copy(tables)
        settle(claim, reversed_, lambda t, c=comparison: violate(c, t))
        assert not holds(claim, reversed_), (i, verdict(claim, reversed_))


def test_every_entry_is_covered():
    claims = all_claims()
    covered = {name for name, _ in JUDGED}
    assert {c.id for c in claims if c.rule != "new"} <= covered
    # each new finding states a finding that can fail too
    assert {c.id for c in claims if c.rule == "new"} <= covered
    assert sum(c.regime_view is not None for c in claims) == sum(name.endswith("]") for name in covered)


DECAYS = [(c.id, c) for c in all_claims() if c.rule == "within" and scale_of(c.tolerance) == "half_life"]
HALF_LIVES = [
    (c.id, c)
    for c in all_claims()
    if c.rule == "within" and "half_life" in c.selector.column and scale_of(c.tolerance) == "log"
]


@pytest.mark.parametrize("name, claim", DECAYS + HALF_LIVES, ids=[n for n, _ in DECAYS + HALF_LIVES])
def test_no_decay_is_never_within(name, claim):
    """A curve that never decays (1.0 after k steps; a half-life of inf) differs."""
    tables = fresh(claim)
    write_cells(claim, tables, 1.0 if (name, claim) in DECAYS else math.inf)
    assert verdict(claim, tables).verdict == "differs"


def test_the_decay_and_half_life_entries_exist():
    assert len(DECAYS) >= 10 and len(HALF_LIVES) >= 6


FRACTIONS = [
    (c.id, c)
    for c in all_claims()
    if c.rule == "within"
    and not isinstance(c.published, tuple)
    and "range" not in c.tolerance
    and scale_of(c.tolerance) != "log"  # a half-life or a ratio: positive, not a fraction
    and 0 < float(c.published) < 1
]


@pytest.mark.parametrize("name, claim", FRACTIONS, ids=[n for n, _ in FRACTIONS])
def test_a_band_on_a_fraction_leaves_out_both_ends(name, claim):
    """A value in (0, 1) (a gate, a decay, a share, a small difference): its band, at
    its least width, leaves out 1 (no decay; a gate open for good) and 0 (a gate shut
    for good; no difference at all)."""
    tables = fresh(claim)
    write_cells(claim, tables, claim.published)
    band = verdict(claim, tables).band
    assert 0 < band.low <= band.high < 1, band


def test_materialised_tables_read_like_the_workflows():
    """The builder's tables: one row per seed where a selector aggregates, a curve
    along at_max, columns for a pattern, and cells no selector asked for match nothing."""
    a = Selector("t.csv", "mean", {"model": "m", "gate": "forget"}, agg="median")
    b = Selector("t.csv", "val_loss", {"model": "m", "seed": 0}, at_max="step")
    c = Selector("t.csv", "seed_*", {"model": "n"}, agg="max")
    frame = build_tables([a, b, c])["t.csv"]
    assert len(frame) == len(SEEDS) + CURVE + 1
    assert read(a, frame) == 1.0 and read(b, frame) == 1.0 and read(c, frame) == 1.0
    assert {"seed_0", "seed_1", "seed_2"} <= set(frame.columns)
    assert list(locate(b, frame)[0]) == [frame.index[frame["step"] == CURVE - 1][0]]
    assert fnmatch.filter(frame.columns, "seed_*") == ["seed_0", "seed_1", "seed_2"]
