"""A claim's numbers seed by seed, and their bootstrap (``docs/ledger.md``).

A selector reads its cells seed by seed where its table has them: a ``seed_*``
column pattern (one column per seed), or a ``seed`` column its ``where`` does not pin
(each seed's rows located on their own, so ``at_max`` / ``at_min`` pick within a
seed). Each seed's cells give one value (the selector's ``agg``, or its one cell); the
selector's statistic over seeds is its ``agg`` (min, max, mean) or else the median. A
selector ``minus`` another is their difference seed by seed (paired). A table without
seeds (a closed form, a table of medians) gives one value, the same in every resample.

All the selectors of one claim are resampled together, on the seeds they share, so
two models compared are paired by seed.

A ``per_row`` selector keeps its rows apart (one quantity per row, e.g. per reference
width): each row's median over seeds, then its ``agg`` over the rows, in the point and
in every resample; its resamples are ``(bootstraps, rows)``, which a comparison judges
row by row (:mod:`.uncertain`). Without seeds each row is its one cell.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gatedrnn.analysis.intervals import BOOTSTRAP_SEED, BOOTSTRAPS, resample_indices
from gatedrnn.claims.select import _number_or_text, locate, read_cells
from gatedrnn.claims.spec import ClaimError, Selector

SEED_COLUMN = re.compile(r"^seed_(\d+)$")
STATISTICS = {"min": np.min, "max": np.max, "mean": np.mean, "median": np.median}


@dataclass(frozen=True)
class SeedValues:
    """One selector's value per seed (``seeds`` None: the table has no seeds)."""

    values: dict  # seed label -> float (per_row: an array, one value per row)
    statistic: str = "median"
    rows: str | None = None  # per_row: the statistic over the rows

    @property
    def seeded(self) -> bool:
        return None not in self.values

    def row_points(self) -> np.ndarray:
        """Per row, the median over seeds (per_row only)."""
        return np.median(np.asarray(list(self.values.values()), dtype=np.float64), axis=0)

    def point(self) -> float:
        if self.rows is not None:
            return float(STATISTICS[self.rows](self.row_points()))
        return float(STATISTICS[self.statistic](np.asarray(list(self.values.values()), dtype=np.float64)))


def _one(cells: list, selector: Selector) -> float:
    numbers = np.asarray([math.nan if isinstance(c, str) else c for c in cells], dtype=np.float64)
    if selector.agg in STATISTICS:
        return float(STATISTICS[selector.agg](numbers))
    if len(numbers) != 1:
        return math.nan  # several cells and no agg: not one number per seed
    return float(numbers[0])


def seed_cells(selector: Selector, frame: pd.DataFrame) -> dict:
    """``seed -> cells`` of one seed (key None: the selector reads no seeds)."""
    rows, columns = locate(selector, frame)
    seeds = [c for c in columns if SEED_COLUMN.match(str(c))]
    if seeds and len(seeds) == len(columns):  # seed_0, seed_1, ... one column each
        found = {}
        for column in seeds:
            cells = [_number_or_text(v) for v in frame.loc[rows, column]]
            if selector.nan_as is not None:
                cells = [selector.nan_as if isinstance(v, float) and math.isnan(v) else v for v in cells]
            found[int(SEED_COLUMN.match(str(column))[1])] = cells
        return found
    if "seed" in frame.columns and "seed" not in selector.where:
        # every seed's rows, before at_max / at_min (which then pick within each seed)
        every, _ = locate(dataclasses.replace(selector, at_max=None, at_min=None), frame)
        labels = [s for s in pd.unique(frame.loc[every, "seed"]) if _is_seed(s)]
        if labels:
            return {
                int(float(s)): read_cells(
                    selector.restricted({"seed": s.item() if hasattr(s, "item") else s}), frame
                )
                for s in labels
            }
    return {None: read_cells(selector, frame)}


def _is_seed(label) -> bool:
    try:
        return float(label) == int(float(label))
    except (TypeError, ValueError):
        return False  # a row of medians ("median") is no seed


def seed_values(selector: Selector, tables: Mapping[str, pd.DataFrame]) -> SeedValues:
    """The selector's value per seed (``minus``: its difference, seed by seed)."""
    cells = seed_cells(selector, tables[selector.table])
    if selector.per_row:
        rows = {seed: np.asarray([math.nan if isinstance(v, str) else v for v in c], dtype=np.float64)
                for seed, c in cells.items()}  # fmt: skip
        if len({r.size for r in rows.values()}) > 1:
            raise ClaimError(f"{selector.table} [{selector.describe()}]: the seeds have different rows")
        return SeedValues(rows, "median", selector.agg)
    values = {seed: _one(c, selector) for seed, c in cells.items()}
    statistic = selector.agg if selector.agg in STATISTICS else "median"
    if len(values) == 1 and None in values and selector.agg in STATISTICS:
        statistic = "median"  # the agg was taken within the one group already
    if selector.minus is not None:
        other = seed_values(selector.minus, tables)
        if other.seeded and len(values) == 1 and None in values:
            values = {seed: values[None] for seed in other.values}  # a constant, at every seed
        if not other.seeded:
            values = {seed: v - other.values[None] for seed, v in values.items()}
        else:
            shared = [s for s in values if s in other.values]
            values = {s: values[s] - other.values[s] for s in shared}
        statistic = "median"
    return SeedValues(values, statistic)


def shared_seeds(found: list[SeedValues]) -> list:
    """The seeds every seeded selector of a claim has (sorted)."""
    seeded = [set(v.values) for v in found if v.seeded]
    return sorted(set.intersection(*seeded)) if seeded else []


def resampled(found: list[SeedValues], bootstraps: int = BOOTSTRAPS, seed: int = BOOTSTRAP_SEED) -> list:
    """Each selector's statistic in every bootstrap (arrays of ``bootstraps``), the seeds
    resampled together; a selector without seeds is its one value throughout."""
    seeds = shared_seeds(found)
    picks = resample_indices(len(seeds), bootstraps, seed) if seeds else None
    out = []
    for v in found:
        if v.rows is not None:  # (bootstraps, rows): each row's median over the resampled seeds
            if not v.seeded or picks is None:
                out.append(np.tile(v.row_points(), (bootstraps, 1)))
                continue
            block = np.asarray([v.values[s] for s in seeds], dtype=np.float64)
            out.append(np.median(block[picks], axis=1))
            continue
        if not v.seeded or picks is None:
            out.append(np.full(bootstraps, v.point()))
            continue
        column = np.asarray([v.values[s] for s in seeds], dtype=np.float64)
        out.append(STATISTICS[v.statistic](column[picks], axis=1))
    return out


def seed_count(found: list[SeedValues]) -> int:
    """How many seeds the claim's selectors share (0: no selector reads seeds)."""
    return len(shared_seeds(found))
