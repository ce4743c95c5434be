"""Reading the cells a :class:`~gatedrnn.claims.spec.Selector` names out of a table
(``where``, ``column`` pattern, ``at_max`` / ``at_min``, ``agg``, ``nan_as``; see
``docs/claims-language.md``)."""

from __future__ import annotations

import fnmatch
import math
from pathlib import Path

import numpy as np
import pandas as pd

from gatedrnn.claims.spec import ClaimError, NoMatch, Selector
from gatedrnn.io.records import read_table


def _matches(series: pd.Series, value) -> pd.Series:
    """Rows of ``series`` equal to ``value`` (numerically for numbers, else as text)."""
    if isinstance(value, list):
        mask = pd.Series(False, index=series.index)
        for v in value:
            mask |= _matches(series, v)
        return mask
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if pd.api.types.is_numeric_dtype(series):
            return series == value
    return series.astype(str) == str(value)


def _number_or_text(value):
    """A cell as a float where it is numeric, else as a string."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def locate(selector: Selector, frame: pd.DataFrame) -> tuple[pd.Index, list[str]]:
    """The rows (index labels) and columns of ``frame`` whose cells ``selector`` reads
    (before ``agg``); raises NoMatch if there are none."""
    s = selector
    columns = matching_columns(s.column, frame)
    if not columns:  # e.g. seed_2 under a config with two seeds
        raise NoMatch(f"{s.table} has no column {s.column!r}")
    mask = pd.Series(True, index=frame.index)
    for key, value in s.where.items():
        if key not in frame.columns:
            raise ClaimError(f"{s.table} has no column {key!r} to select on; it has {list(frame.columns)}")
        mask &= _matches(frame[key], value)
    rows = frame[mask]
    for key, pick in ((s.at_max, "max"), (s.at_min, "min")):
        if key is not None and len(rows):
            if key not in frame.columns:
                raise ClaimError(f"{s.table} has no column {key!r} (at_{pick})")
            rows = rows[rows[key] == getattr(rows[key], pick)()]
    if not len(rows):
        raise NoMatch(f"no row of {s.table} where {s.describe() or 'any'}")
    return rows.index, columns


def matching_columns(column: str, frame: pd.DataFrame) -> list:
    """The columns of ``frame`` that ``column`` names: a name or pattern, or alternatives
    ``a|b`` of which the first the table has wins (``seed_*|loss_difference``: the seeds
    where a table has them, else its difference of medians)."""
    for pattern in column.split("|"):
        found = [c for c in frame.columns if fnmatch.fnmatchcase(str(c), pattern.strip())]
        if found:
            return found
    return []


def read_cells(selector: Selector, frame: pd.DataFrame) -> list:
    """Every cell ``selector`` reads (floats, or str for text), ``nan_as`` applied."""
    rows, columns = locate(selector, frame)
    values = [_number_or_text(v) for v in frame.loc[rows, columns].to_numpy().ravel()]
    if selector.nan_as is not None:
        values = [selector.nan_as if isinstance(v, float) and math.isnan(v) else v for v in values]
    return values


def read(selector: Selector, frame: pd.DataFrame):
    """The selected value (float, or str for a text cell); raises NoMatch if no row."""
    s = selector
    if s.minus is not None or s.per_row:  # seed by seed: the median of its per-seed values
        from gatedrnn.claims.seeds import seed_values  # (seeds reads cells through this module)

        return seed_values(s, {s.table: frame}).point()
    values = read_cells(s, frame)
    if s.agg is None:
        if len(values) != 1:
            raise ClaimError(
                f"{s.table} [{s.describe()}] column {s.column!r} selects {len(values)} "
                "cells; narrow `where` or give `agg`"
            )
        return values[0]
    if s.agg == "unique":
        distinct = set(values)
        if len(distinct) != 1 and not all(isinstance(v, float) and math.isnan(v) for v in values):
            raise ClaimError(f"{s.table} [{s.describe()}] is not unique: {sorted(map(str, distinct))}")
        return values[0]
    numbers = np.asarray(values, dtype=np.float64)
    return float(getattr(np, s.agg)(numbers))  # min, max, mean or median


def absent_columns(selector: Selector, frame: pd.DataFrame) -> list[str]:
    """The columns ``selector`` names (``column``, ``where`` keys, ``at_max``) that ``frame`` lacks."""
    wanted = [selector.column, *selector.where, *[k for k in (selector.at_max, selector.at_min) if k]]
    return [c for c in wanted if not matching_columns(c, frame)]


def read_tables(paths, base: str | Path = ".", rows=None) -> dict[str, pd.DataFrame]:
    """The CSV tables, keyed by the path the claims name them by; a damaged one, or one
    that lacks rows ``rows`` (path: what the plan says it holds,
    :func:`gatedrnn.plan.table_rows.table_rows`) says it holds, is a ValueError naming it."""
    rows = rows or {}
    return {path: read_table(Path(base) / path, expected=rows.get(path)) for path in paths}
