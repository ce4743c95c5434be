"""Judging with the seeds' uncertainty (``docs/ledger.md``): a value by its bootstrap
interval over seeds against the claim's margin, a finding by the share of seed
bootstraps in which it holds.

- A value is ``reproduced`` when its interval lies inside the margin around the
  study's value (on the claim's scale), ``differs`` when wholly outside and
  ``inconclusive`` when it crosses an edge. Where the study printed several seeds,
  the run's median and the study's are resampled independently and their difference
  is judged against ±margin (the two spreads combined).
- A finding ``holds`` in at least 0.95 of the bootstraps, ``fails`` in at most 0.05,
  and is ``inconclusive`` between. A comparison of a ``per_row`` selector holds in a
  bootstrap where it holds at every row (two such sides compared row by row).
- One seed has no spread: a value or finding read from one seed is ``inconclusive``.
  A table without seeds (a closed form, a model at initialisation) has no
  uncertainty: its point decides.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gatedrnn.analysis.intervals import (
    BOOTSTRAP_SEED,
    bootstrap,
    interval_verdict,
    percentile_interval,
    share_text,
    share_verdict,
)
from gatedrnn.claims.bands import Band, floor_width, format_value, from_scale, scale_of, to_scale
from gatedrnn.claims.seeds import STATISTICS, resampled, seed_count, seed_values
from gatedrnn.claims.spec import COMPARISONS, Claim, ClaimError, Comparison, Selector

# The study's seeds are resampled with a seed of their own (independent of the run's).
STUDY_SEED = BOOTSTRAP_SEED + 1


@dataclass(frozen=True)
class Uncertain:
    """A value or finding judged over seeds: its verdict, point estimate, interval (a
    value, on its own units) or share (a finding), the seeds and the margin band."""

    verdict: str
    point: float
    low: float = math.nan
    high: float = math.nan
    share: float = math.nan
    seeds: int = 0
    band: Band | None = None
    text: str = ""  # a finding's comparisons at the point estimates

    def interval_text(self) -> str:
        """``[1.568, 1.574] over 3 seeds`` or ``holds in 0.74 of bootstraps over 3 seeds``."""
        over = f" over {self.seeds} seeds" if self.seeds > 1 else (" (one seed)" if self.seeds else "")
        if not math.isnan(self.share):
            if not self.seeds:
                return "no seeds in its tables: the point decides"
            return f"holds in {share_text(self.share)} of bootstraps{over}"
        if math.isnan(self.low):
            return "no seeds" if not self.seeds else ""
        return f"[{format_value(self.low)}, {format_value(self.high)}]{over}"


def _scaled(values, scale: str, after: float) -> np.ndarray:
    return np.asarray([to_scale(float(v), scale, after) for v in np.ravel(values)], dtype=np.float64)


def value_judgement(claim: Claim, tables: Mapping[str, pd.DataFrame]) -> Uncertain:
    """A ``within`` value (not ``overlap``) judged by its interval against its margin."""
    found = [seed_values(claim.selector, tables)]
    n = seed_count(found)
    point = found[0].point()
    samples = resampled(found)[0]
    if found[0].rows is not None:  # per_row: its agg over the rows, in each bootstrap
        samples = STATISTICS[found[0].rows](samples, axis=1)
    low, high = percentile_interval(samples) if n else (point, point)
    tolerance, published = claim.tolerance, claim.published
    if "range" in tolerance:
        band_low, band_high = (float(v) for v in tolerance["range"])
        band = Band(band_low, band_high)
        found_verdict = interval_verdict(low, high, band_low, band_high)
    else:
        scale, after = scale_of(tolerance), float(tolerance.get("after", 1.0))
        margin = floor_width(tolerance, _centre(published))
        if isinstance(published, tuple):  # the study's seeds: the two spreads combined
            study = bootstrap(_scaled(published, scale, after), seed=STUDY_SEED)
            difference = _scaled(samples, scale, after) - study
            d_low, d_high = percentile_interval(difference)
            found_verdict = _verdict(d_low, d_high, -margin, margin)
        else:
            s_low, s_high = (to_scale(low, scale, after), to_scale(high, scale, after))
            centre = to_scale(float(published), scale, after)
            found_verdict = _verdict(s_low, s_high, centre - margin, centre + margin)
        centre = to_scale(_centre(published), scale, after)
        band = Band(
            from_scale(centre - margin, scale, after),
            from_scale(centre + margin, scale, after),
            scale,
            margin,
            after,
        )
    if n == 1:
        found_verdict = "inconclusive"
    return Uncertain(found_verdict, point, low, high, seeds=n, band=band)


def _verdict(low: float, high: float, band_low: float, band_high: float) -> str:
    """:func:`interval_verdict` with the infinities of a scale's ends kept (no decay
    is an infinite half-life: outside every band)."""
    if math.isnan(low) or math.isnan(high):
        return "differs"
    return interval_verdict(low, high, band_low, band_high)


def _centre(published) -> float:
    """The study's value (its seeds' median where it printed several)."""
    return float(np.median(published)) if isinstance(published, tuple) else float(published)


def _holds(comparison: Comparison, left: np.ndarray, right: list) -> np.ndarray:
    """Whether ``comparison`` holds in each bootstrap (NaN never holds); a side over
    rows (``per_row``: ``(bootstraps, rows)``) holds where it holds at every row."""
    sides = [left, *(comparison.scale * r for r in right)]
    if any(side.ndim == 2 for side in sides):
        sides = [side if side.ndim == 2 else side[:, None] for side in sides]
        try:
            sides = np.broadcast_arrays(*sides)
        except ValueError:
            raise ClaimError(f"{comparison.describe()}: its sides have different rows") from None
    left, bounds = sides[0], sides[1:]
    if comparison.op == "between":
        holds = (bounds[0] <= left) & (left <= bounds[1])
    else:
        holds = COMPARISONS[comparison.op](left, bounds[0])
    holds = np.asarray(holds, dtype=bool) & ~np.isnan(left) & ~np.any(np.isnan(bounds), axis=0)
    return holds.all(axis=1) if holds.ndim == 2 else holds


def finding_judgement(compare: tuple[Comparison, ...], tables: Mapping[str, pd.DataFrame]) -> Uncertain:
    """A finding (every comparison must hold) by the share of seed bootstraps in which
    it holds, the seeds of all its selectors resampled together (paired)."""
    selectors = [s for c in compare for s in c.selectors()]
    found = [seed_values(s, tables) for s in selectors]
    n = seed_count(found)
    samples = iter(resampled(found))
    # at the point estimates: a per_row side shows its rows' medians
    points = iter([v.row_points() if v.rows is not None else v.point() for v in found])
    holds, texts = None, []
    for comparison in compare:
        left = next(samples)
        right = [
            next(samples) if isinstance(v, Selector) else np.full(left.shape, v) for v in comparison.right
        ]
        holds = _holds(comparison, left, right) if holds is None else holds & _holds(comparison, left, right)
        point = next(points)
        bounds = [
            comparison.scale * (next(points) if isinstance(v, Selector) else v) for v in comparison.right
        ]
        text = comparison_text(comparison.op, point, bounds)
        texts.append(f"{text} at every row" if any(s.per_row for s in comparison.selectors()) else text)
    share = float(holds.mean())
    verdict = share_verdict(share) if n != 1 else "inconclusive"
    return Uncertain(verdict, math.nan, share=share, seeds=n, text="; ".join(texts))


def comparison_text(op: str, left: float, bounds: list) -> str:
    """``1.568 < 1.574`` or ``0.5 in [0.4, 0.6]`` at the point estimates (rows:
    ``(0.01, 0.02) > 0``)."""
    if op == "between":
        return f"{_shown(left)} in [{_shown(bounds[0])}, {_shown(bounds[1])}]"
    return f"{_shown(left)} {op} {_shown(bounds[0])}"


def _shown(value) -> str:
    if isinstance(value, np.ndarray):
        return "(" + ", ".join(format_value(v) for v in value) + ")"
    return format_value(value)
