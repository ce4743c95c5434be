"""Judging claims: a value against its rule and band, a finding's comparisons against
the tables, and a claim's ledger row (its verdict, overall and per training regime).
The rules are specified in ``docs/claims-language.md``.

The ledger's verdicts (:func:`judge`) weigh the seeds' uncertainty
(:mod:`.uncertain`): a trained value is ``reproduced``, ``differs`` or
``inconclusive``, a finding ``holds``, ``fails`` or ``inconclusive``; an arithmetic
or protocol row is ``exact`` / ``within`` or ``differs``, ``holds`` or ``fails``;
``new``: nothing to reproduce. :func:`verdict` is the point judgement, one number
against its band, which a regime view (one seed per regime) is judged by. A value
that differs is never rescued by its finding: the finding is its own row, reported
beside the value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gatedrnn.claims.bands import Band, describe_tolerance, format_value, make_band, to_scale
from gatedrnn.claims.seeds import seed_values
from gatedrnn.claims.select import absent_columns, read, read_cells
from gatedrnn.claims.spec import (
    COMPARISONS,
    REGIME_COLUMN,
    Claim,
    ClaimError,
    Comparison,
    NoMatch,
    Selector,
    describe_compare,
)
from gatedrnn.claims.uncertain import comparison_text, finding_judgement, value_judgement


def same_to_digits(reproduced: float, published: float, digits: int) -> bool:
    """``reproduced`` rounded to ``digits`` significant digits equals ``published``."""
    if published == 0:
        return reproduced == 0
    return float(f"{reproduced:.{digits - 1}e}") == float(f"{published:.{digits - 1}e}")


def passes(rule: str, reproduced, published, tolerance: Mapping, cells=()) -> bool:
    """Whether a value passes an ``exact`` or ``within`` rule with its tolerance
    (``cells``: the values a ``spread`` band is measured on)."""
    if isinstance(published, str) or isinstance(reproduced, str):
        return str(reproduced) == str(published)
    reproduced = float(reproduced)
    if math.isnan(reproduced):
        return False
    if rule == "exact":
        published = float(published)
        if "sig_digits" in tolerance:
            return same_to_digits(reproduced, published, int(tolerance["sig_digits"]))
        allowed = float(tolerance.get("abs", 0.0)) + float(tolerance.get("rel", 0.0)) * abs(published)
        return abs(reproduced - published) <= allowed
    if rule == "within":
        return make_band(tolerance, published, cells or [reproduced]).holds(reproduced)
    raise ClaimError(f"rule {rule!r} has no tolerance")


def evaluate(comparison: Comparison, tables: Mapping[str, pd.DataFrame]) -> tuple[bool, str]:
    """(holds, the comparison with its numbers, e.g. ``1.62 < 1.68``)."""
    c = comparison
    left = _point(c.left, tables)
    bounds = [c.scale * (_point(v, tables) if isinstance(v, Selector) else v) for v in c.right]
    if c.op == "between":
        holds = (bounds[0] <= left) & (left <= bounds[1])
    else:
        holds = COMPARISONS[c.op](left, bounds[0])
    text = comparison_text(c.op, left, bounds)
    if any(s.per_row for s in c.selectors()):  # every row's medians
        text += " at every row"
    holds = bool(np.all(holds)) and not any(np.isnan(v).any() for v in (left, *bounds))
    return holds, text


def _point(selector: Selector, tables):
    """A side's value: a number, or a per_row side's row medians (an array)."""
    if selector.per_row:
        return seed_values(selector, tables).row_points()
    return float(read(selector, tables[selector.table]))


def evaluate_all(compare: tuple[Comparison, ...], tables: Mapping[str, pd.DataFrame]) -> tuple[bool, str]:
    """Every comparison in order; the first that fails ends the judgement, and the
    text names what was therefore not judged (e.g. a share whose parts are not both
    positive)."""
    texts = []
    for i, comparison in enumerate(compare):
        holds, text = evaluate(comparison, tables)
        texts.append(text)
        if not holds:
            rest = compare[i + 1 :]
            if rest:
                texts[-1] += " fails; not judged: " + ", ".join(c.left.column for c in rest)
            return False, "; ".join(texts)
    return True, "; ".join(texts)


@dataclass(frozen=True)
class Judgement:
    """What judging a claim gives: the verdict, the reproduced value as the ledger
    writes it, and (``within``) the band it was judged by."""

    verdict: str
    reproduced: str
    band: Band | None = None
    interval: str = ""  # over seeds: a value's interval, a finding's share of bootstraps


def _read_value(claim: Claim, tables) -> tuple[object, list]:
    """(the claim's value, the cells it was read from)."""
    frame = tables[claim.selector.table]
    cells = read_cells(claim.selector, frame)
    if claim.tolerance.get("overlap"):
        return None, cells
    return read(claim.selector, frame), cells


def verdict(claim: Claim, tables: Mapping[str, pd.DataFrame], half_width: float | None = None) -> Judgement:
    """The claim's verdict. ``half_width``: judge a ``within`` value by this band width
    (on its scale) instead of its own (a regime view, judged with its claim's band)."""
    if claim.rule == "new":  # nothing to reproduce: the value, and whether the stated finding holds
        text = format_value(read(claim.selector, tables[claim.selector.table]), digits=6)
        if claim.compare is not None:
            holds, comparison = evaluate_all(claim.compare, tables)
            text += f" ({comparison}: {'holds' if holds else 'does not hold'})"
        return Judgement("new", text)
    if claim.rule == "direction":
        holds, text = evaluate_all(claim.compare, tables)
        return Judgement("holds" if holds else "fails", text)
    value, cells = _read_value(claim, tables)
    if claim.rule == "exact":
        found = "exact" if passes("exact", value, claim.published, claim.tolerance) else "differs"
        return Judgement(found, format_value(value, digits=6))
    numbers = [float(v) for v in cells]
    band = make_band(claim.tolerance, claim.published, numbers, half_width)
    if claim.tolerance.get("overlap"):
        low, high = min(numbers), max(numbers)
        inside = not (math.isnan(low) or math.isnan(high)) and low <= band.high and band.low <= high
        return Judgement("within" if inside else "differs", format_value(tuple(numbers), digits=6), band)
    return Judgement("within" if band.holds(float(value)) else "differs", format_value(value, digits=6), band)


def ledger_verdict(claim: Claim, tables: Mapping[str, pd.DataFrame]) -> Judgement:
    """The claim's verdict over seeds (:mod:`.uncertain`); arithmetic and protocol rows,
    and seed sets compared as sets, keep their point judgement."""
    if claim.rule == "exact" or claim.protocol or claim.tolerance.get("overlap"):
        return verdict(claim, tables)
    if claim.rule == "new":
        text = format_value(read(claim.selector, tables[claim.selector.table]), digits=6)
        interval = ""
        if claim.compare is not None:
            found = finding_judgement(claim.compare, tables)
            interval = found.interval_text()
            word = {"holds": "holds", "fails": "does not hold"}.get(found.verdict, found.verdict)
            text += f" ({found.text}; {interval}: {word})"
        return Judgement("new", text, interval=interval)
    if claim.rule == "direction":
        found = finding_judgement(claim.compare, tables)
        return Judgement(found.verdict, found.text, interval=found.interval_text())
    found = value_judgement(claim, tables)
    return Judgement(found.verdict, format_value(found.point, digits=6), found.band, found.interval_text())


def judge(claim: Claim, tables: Mapping[str, pd.DataFrame]) -> dict:
    """The claim's ledger row: what was read, and the verdict (``finding``, the verdict
    of the finding the claim names, is filled in by the ledger)."""
    tol_text = describe_tolerance(claim.rule, claim.tolerance)
    if claim.compare is not None:
        tol_text = (
            f"{tol_text}; {describe_compare(claim.compare)}" if tol_text else describe_compare(claim.compare)
        )
    main = claim.selector if claim.selector is not None else claim.compare[0].left
    row = {
        "id": claim.id,
        "experiment": claim.experiment,
        "kind": claim.kind,
        "description": claim.description,
        "published": format_value(claim.published, digits=6),
        "table": "; ".join(claim.tables()),
        "column": main.column,
        "selector": main.describe(),
        "rule": claim.rule,
        "tolerance": tol_text,
        "band": "",
        "interval": "",
        "finding": "",
    }
    try:
        found = ledger_verdict(claim, tables)
    except NoMatch as missing:  # a new finding whose run is not in this config stays new
        found = Judgement("new" if claim.rule == "new" else "differs", f"missing: {missing}")
    row["reproduced"] = found.reproduced
    row["verdict"] = found.verdict
    row["interval"] = found.interval
    if found.band is not None:
        row["band"] = found.band.text()
    return row


# A regime view's finding judged on one seed: inconclusive, and what that seed showed.
ONE_SEED = "inconclusive:"


def judge_across_regimes(
    claim: Claim, table: pd.DataFrame, regimes: list[str], tables: Mapping[str, pd.DataFrame] | None = None
) -> dict[str, str]:
    """The verdict of the claim's regime view under each regime (``missing`` where
    the regime lacks the row, e.g. a cell that did not run). A ``within`` view is
    judged by the band of the claim itself, read from ``tables`` (one regime has one
    seed: its own spread would be none). A finding whose rows under a regime hold one
    seed is inconclusive there, never ``holds`` / ``fails``: a comparison needs the
    seeds' spread (as in the ledger's own verdicts); its verdict says what the one seed
    showed (``inconclusive:holds``, ``inconclusive:fails``: :data:`ONE_SEED`)."""
    found = {
        regime: found.verdict for regime, found in regime_judgements(claim, table, regimes, tables).items()
    }
    view = claim.regime_view
    if view is not None and view.rule == "direction":
        for regime, verdict in found.items():
            if verdict in ("holds", "fails") and regime_seeds(table, regime, view) < 2:
                found[regime] = f"{ONE_SEED}{verdict}"
    return found


def regime_seeds(table: pd.DataFrame, regime: str, view: Claim) -> float:
    """The fewest seeds behind the rows ``view`` reads under ``regime`` (the regime
    table's ``seeds`` column; infinite where the table does not say)."""
    if "seeds" not in table.columns:
        return math.inf
    fewest = math.inf
    for selector in view.selectors():  # each side of a comparison reads its own rows
        rows = table[table[REGIME_COLUMN] == regime]
        for key, value in selector.where.items():
            if key in rows.columns and isinstance(value, str | int | float) and key != REGIME_COLUMN:
                rows = rows[rows[key] == value]
        if len(rows):
            fewest = min(fewest, float(rows["seeds"].min()))
    return fewest


@dataclass(frozen=True)
class RegimeJudgement:
    """A claim's regime view judged under one regime: the verdict (``diverged`` and
    ``missing`` included), and for a value its number and the band it was judged by."""

    verdict: str
    value: float = math.nan
    band: Band | None = None

    def band_distance(self, published) -> float:
        """How far the value sits from the published one in units of the band's
        half-width, on the band's scale (1: at the band's edge); NaN where there is no
        number or no symmetric band (a range, a finding)."""
        band = self.band
        if band is None or band.half_width is None or math.isnan(self.value) or isinstance(published, str):
            return math.nan
        if isinstance(published, tuple):  # the study's seeds: their median
            published = float(np.median(published))
        centre = to_scale(float(published), band.scale, band.after)
        if band.half_width == 0:
            return 0.0 if self.value == float(published) else math.inf
        return abs(to_scale(self.value, band.scale, band.after) - centre) / band.half_width


def regime_judgements(
    claim: Claim, table: pd.DataFrame, regimes: list[str], tables: Mapping[str, pd.DataFrame] | None = None
) -> dict[str, RegimeJudgement]:
    """:func:`judge_across_regimes` with the numbers: each regime's
    :class:`RegimeJudgement` (the claims' scoreboard of regimes measures distances on it)."""
    view = claim.regime_view
    if view is None:
        return {}
    for selector in view.selectors():
        absent = absent_columns(selector, table)
        if absent:  # a typo, not a regime that did not run
            raise ClaimError(
                f"claim {claim.id}: across_regimes names {absent}, which the regime table lacks; "
                f"it has {list(table.columns)}"
            )
    half_width = None
    if view.rule == "within" and view.tolerance.get("spread") and tables is not None:
        try:
            half_width = verdict(claim, tables).band.half_width
        except NoMatch:
            half_width = None  # the claim's own cells are missing: the stated width
    views = {s.table: table for s in view.selectors()}
    found = {}
    for regime in regimes:
        if any(diverged_under(table, regime, s.where) for s in view.selectors()):
            found[regime] = RegimeJudgement("diverged")
            continue
        restricted = view.restricted({REGIME_COLUMN: regime})
        try:
            judgement = verdict(restricted, views, half_width)
            value = math.nan
            if restricted.selector is not None and judgement.band is not None:
                value = float(read(restricted.selector, views[restricted.selector.table]))
            found[regime] = RegimeJudgement(judgement.verdict, value, judgement.band)
        except NoMatch:
            found[regime] = RegimeJudgement("missing")
    return found


def diverged_under(table: pd.DataFrame, regime: str, where: Mapping) -> bool:
    """Whether every seed of the rows a view reads under ``regime`` diverged in training
    (the regime table's ``diverged_seeds`` and ``seeds`` columns): then there is no
    value to judge, and the ledger says so instead of judging a NaN."""
    if "diverged_seeds" not in table.columns:
        return False
    rows = table[table[REGIME_COLUMN] == regime]
    for key, value in where.items():
        if key in rows.columns and isinstance(value, str | int | float) and key != REGIME_COLUMN:
            rows = rows[rows[key] == value]
    return bool(len(rows)) and bool(((rows["seeds"] == 0) & (rows["diverged_seeds"] > 0)).any())
