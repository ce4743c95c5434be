"""Intervals over seeds: a bootstrap over a run's seeds, with its own fixed seed.

A trained number is a draw from its seeds' spread; the ledger and the tables judge it
by an interval over the seeds, not by its point estimate alone. Choices fixed here
(``docs/ledger.md`` repeats them):

- The point estimate is the median over seeds (a statistic the claim names instead,
  such as the max of a check, where it names one).
- The interval is the percentile interval (``LEVEL``, 95 %) of the statistic over
  ``BOOTSTRAPS`` resamples of the seeds with replacement, drawn by a generator seeded
  with ``BOOTSTRAP_SEED``: the same seeds give the same bits on every run.
- Two models compared are resampled together (paired by seed: seed s of each shares
  its data order), so a difference is taken seed by seed before its median.
- With n seeds the percentile interval of a median cannot be wider than the seeds'
  range, so it covers the true median with probability at most 1 - 2 / 2**n (75 % at
  3 seeds, 99.8 % at 10): few seeds give intervals that are honest about their
  width but short of their nominal level (``tests/test_intervals.py`` measures it).
- A study that printed several seeds is one draw from its own spread: the run's and
  the study's statistics are resampled independently and their difference judged
  (the two spreads combined).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

BOOTSTRAP_SEED = 4747  # the bootstraps' own seed, apart from every training seed
BOOTSTRAPS = 2000
LEVEL = 0.95
# A finding holds where it holds in at least this share of the bootstraps, fails
# where it holds in at most 1 - HOLDS, and is inconclusive between.
HOLDS = 0.95


def resample_indices(n: int, bootstraps: int = BOOTSTRAPS, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """``(bootstraps, n)`` seed indices drawn with replacement (one generator, fixed seed)."""
    if n < 1:
        raise ValueError("a bootstrap needs at least one seed")
    return np.random.default_rng(seed).integers(0, n, size=(bootstraps, n))


def percentile_interval(samples, level: float = LEVEL) -> tuple[float, float]:
    """The central ``level`` interval of bootstrap ``samples`` (NaN where any is NaN)."""
    samples = np.asarray(samples, dtype=np.float64)
    if samples.size == 0 or np.isnan(samples).any():
        return (np.nan, np.nan)
    tail = (1 - level) / 2
    low, high = np.quantile(samples, [tail, 1 - tail])
    return float(low), float(high)


def bootstrap(
    values: Sequence[float],
    statistic: Callable = np.median,
    bootstraps: int = BOOTSTRAPS,
    seed=BOOTSTRAP_SEED,
) -> np.ndarray:
    """The statistic of each resample of ``values`` (one value per seed)."""
    values = np.asarray(values, dtype=np.float64)
    picks = values[resample_indices(len(values), bootstraps, seed)]
    return statistic(picks, axis=1)


def median_interval(values: Sequence[float], level: float = LEVEL, seed=BOOTSTRAP_SEED) -> tuple:
    """``(median, low, high)`` over seeds: the median and its bootstrap interval. One
    seed has no spread: its interval is NaN (an empty cell in a table), never the
    zero-width interval its one resample would give."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return (np.nan, np.nan, np.nan)
    if values.size == 1:
        return (float(values[0]), np.nan, np.nan)
    return (float(np.median(values)), *percentile_interval(bootstrap(values, seed=seed), level))


def paired_difference_interval(first, second, level: float = LEVEL, seed=BOOTSTRAP_SEED) -> tuple:
    """``(median, low, high)`` of ``first - second`` taken seed by seed (paired)."""
    first, second = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if first.shape != second.shape:
        raise ValueError(f"paired seeds: {first.size} values against {second.size}")
    return median_interval(first - second, level, seed)


def interval_verdict(low: float, high: float, band_low: float, band_high: float) -> str:
    """``reproduced`` (the interval inside the band), ``differs`` (wholly outside) or
    ``inconclusive`` (it crosses an edge); a NaN interval differs."""
    if np.isnan(low) or np.isnan(high):
        return "differs"
    if band_low <= low and high <= band_high:
        return "reproduced"
    if high < band_low or low > band_high:
        return "differs"
    return "inconclusive"


def share_verdict(share: float, holds: float = HOLDS) -> str:
    """``holds`` (the finding holds in at least ``holds`` of the bootstraps), ``fails``
    (in at most ``1 - holds``) or ``inconclusive``."""
    if share >= holds:
        return "holds"
    if share <= 1 - holds:
        return "fails"
    return "inconclusive"


def share_text(share: float, holds: float = HOLDS) -> str:
    """A finding's share of bootstraps, to two decimals unless rounding would carry it
    across a verdict's threshold (0.9494 is ``0.949``, not a ``0.95`` that reads as
    holding); a share of ``BOOTSTRAPS`` resamples is exact at four decimals."""
    for digits in (2, 3):
        text = f"{share:.{digits}f}"
        if share_verdict(float(text), holds) == share_verdict(share, holds):
            return text
    return f"{share:.4f}"


def coverage(
    draw: Callable[[np.random.Generator], np.ndarray], truth: float, runs: int, seed: int = 0, **kwargs
) -> float:
    """The share of ``runs`` simulated runs (``draw(rng)``: one run's seed values) whose
    median interval covers ``truth`` (the coverage test's measurement)."""
    rng = np.random.default_rng(seed)
    hits = 0
    for run in range(runs):
        _, low, high = median_interval(draw(rng), seed=BOOTSTRAP_SEED + run, **kwargs)
        hits += low <= truth <= high
    return hits / runs
