"""Judging claims: a value against its rule and tolerance, a comparison against the
tables, and a claim's ledger row (its verdict, overall and per training regime). The
rules are specified in ``docs/claims-language.md``."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from gatedrnn.claims.select import absent_columns, read
from gatedrnn.claims.spec import (
    COMPARISONS,
    REGIME_COLUMN,
    Claim,
    ClaimError,
    Comparison,
    NoMatch,
    Selector,
    format_value,
)


def same_to_digits(reproduced: float, published: float, digits: int) -> bool:
    """``reproduced`` rounded to ``digits`` significant digits equals ``published``."""
    if published == 0:
        return reproduced == 0
    return float(f"{reproduced:.{digits - 1}e}") == float(f"{published:.{digits - 1}e}")


def passes(rule: str, reproduced, published, tolerance: Mapping) -> bool:
    """Whether a value passes an ``exact`` or ``within`` rule with its tolerance."""
    if isinstance(published, str) or isinstance(reproduced, str):
        return str(reproduced) == str(published)
    reproduced, published = float(reproduced), float(published)
    if math.isnan(reproduced):
        return False
    if rule == "exact":
        if "sig_digits" in tolerance:
            return same_to_digits(reproduced, published, int(tolerance["sig_digits"]))
        allowed = float(tolerance.get("abs", 0.0)) + float(tolerance.get("rel", 0.0)) * abs(published)
        return abs(reproduced - published) <= allowed
    if rule == "within":
        if "range" in tolerance:
            low, high = (float(v) for v in tolerance["range"])
            return low <= reproduced <= high
        if "factor" in tolerance:
            factor = float(tolerance["factor"])
            low, high = sorted((published / factor, published * factor))
            return low <= reproduced <= high
        allowed = float(tolerance.get("abs", 0.0)) + float(tolerance.get("rel", 0.0)) * abs(published)
        return abs(reproduced - published) <= allowed
    raise ClaimError(f"rule {rule!r} has no tolerance")


def describe_tolerance(rule: str, tolerance: Mapping) -> str:
    """The tolerance in words for the ledger (``2 significant digits``, ``+/- 0.1`` ...)."""
    parts = []
    if "sig_digits" in tolerance:
        parts.append(f"{tolerance['sig_digits']} significant digits")
    if "abs" in tolerance:
        parts.append(f"+/- {format_value(float(tolerance['abs']))}")
    if "rel" in tolerance:
        parts.append(f"+/- {format_value(100 * float(tolerance['rel']))} %")
    if "factor" in tolerance:
        parts.append(f"x/÷ {format_value(float(tolerance['factor']))}")
    if "range" in tolerance:
        low, high = tolerance["range"]
        parts.append(f"in [{format_value(float(low))}, {format_value(float(high))}]")
    if rule == "exact" and not parts:
        parts.append("equal")
    return "; ".join(parts)


def evaluate(comparison: Comparison, tables: Mapping[str, pd.DataFrame]) -> tuple[bool, str]:
    """(holds, the comparison with its numbers, e.g. ``1.62 < 1.68``)."""
    c = comparison
    left = float(read(c.left, tables[c.left.table]))
    right = [float(read(v, tables[v.table])) if isinstance(v, Selector) else v for v in c.right]
    bounds = [c.scale * v for v in right]
    if c.op == "between":
        holds = bounds[0] <= left <= bounds[1]
        text = f"{format_value(left)} in [{format_value(bounds[0])}, {format_value(bounds[1])}]"
    else:
        holds = bool(COMPARISONS[c.op](left, bounds[0]))
        text = f"{format_value(left)} {c.op} {format_value(bounds[0])}"
    if math.isnan(left) or any(math.isnan(b) for b in bounds):
        holds = False
    return holds, text


def verdict(claim: Claim, tables: Mapping[str, pd.DataFrame]) -> tuple[str, str]:
    """(the claim's verdict, the reproduced value as the ledger shows it)."""
    if claim.rule == "new":  # nothing to reproduce: the value, and whether the stated finding holds
        text = format_value(read(claim.selector, tables[claim.selector.table]), digits=6)
        if claim.compare is not None:
            holds, comparison = evaluate(claim.compare, tables)
            text += f" ({comparison}: {'holds' if holds else 'does not hold'})"
        return "new", text
    if claim.rule == "direction":
        holds, text = evaluate(claim.compare, tables)
        return ("direction" if holds else "differs"), text
    value = read(claim.selector, tables[claim.selector.table])
    if passes(claim.rule, value, claim.published, claim.tolerance):
        return claim.rule, format_value(value, digits=6)
    if claim.compare is not None:
        holds, text = evaluate(claim.compare, tables)
        if holds:
            return "direction", f"{format_value(value, digits=6)} ({text})"
    return "differs", format_value(value, digits=6)


def judge(claim: Claim, tables: Mapping[str, pd.DataFrame]) -> dict:
    """The claim's ledger row: what was read, and the verdict."""
    tol_text = describe_tolerance(claim.rule, claim.tolerance)
    if claim.compare is not None:
        fallback = ("else " if claim.rule == "within" else "") + claim.compare.describe()
        tol_text = f"{tol_text}; {fallback}" if tol_text else fallback
    main = claim.selector if claim.selector is not None else claim.compare.left
    row = {
        "id": claim.id,
        "experiment": claim.experiment,
        "description": claim.description,
        "published": format_value(claim.published, digits=6),
        "table": "; ".join(claim.tables()),
        "column": main.column,
        "selector": main.describe(),
        "rule": claim.rule,
        "tolerance": tol_text,
    }
    try:
        found, reproduced = verdict(claim, tables)
    except NoMatch as missing:  # a new finding whose run is not in this config stays new
        found, reproduced = ("new" if claim.rule == "new" else "differs"), f"missing: {missing}"
    row["reproduced"] = reproduced
    row["verdict"] = found
    return row


def judge_across_regimes(claim: Claim, table: pd.DataFrame, regimes: list[str]) -> dict[str, str]:
    """The verdict of the claim's regime view under each regime (``missing`` where
    the regime lacks the row, e.g. a cell that did not run)."""
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
    tables = {s.table: table for s in view.selectors()}
    verdicts = {}
    for regime in regimes:
        try:
            verdicts[regime], _ = verdict(view.restricted({REGIME_COLUMN: regime}), tables)
        except NoMatch:
            verdicts[regime] = "missing"
    return verdicts
