"""Tables on the generated pages: cells formatted (:func:`fmt`), a Markdown table, and
a table's seeds shown by their count and each median with its interval where the
table carries its intervals over seeds (issue #47), instead of one column per seed (at
ten seeds a column per seed does not fit). A table made before them (no ``seeds``
column: the committed three-seed reference's) is shown as it is."""

from __future__ import annotations

import math
import re

import pandas as pd

SEED_COLUMN = re.compile(r"^seed_\d+$")
# a column's interval columns where they are not <column>_low, <column>_high
BOUNDS = {"median": ("median_low", "median_high"), "paired_median": ("low", "high")}


def fmt(value) -> str:
    """Four significant digits for floats, integers as they are, text as it is."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if value == int(value) and abs(value) < 1e6:
            return str(int(value))
        return f"{value:.4g}"
    return str(value)


def markdown_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def bounds_of(column: str) -> tuple[str, str]:
    """The columns holding ``column``'s interval: ``median_low, median_high`` of
    ``median``, ``low, high`` of ``paired_median``, else ``<column>_low, <column>_high``."""
    return BOUNDS.get(column, (f"{column}_low", f"{column}_high"))


def with_interval(value, low, high) -> str:
    """``1.574 [1.572, 1.576]``; the value alone where the interval is empty (one seed)."""
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        return fmt(value)
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def shown_columns(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``frame[columns]``; where ``frame`` has a ``seeds`` column, the seed columns give
    way to ``seeds`` (where the first stood), and a column whose interval columns the
    table has is shown as ``<column> [low, high]``, its interval's columns not apart."""
    if "seeds" not in frame.columns:
        return frame[columns]
    bounds = {c: bounds_of(c) for c in columns if all(b in frame.columns for b in bounds_of(c))}
    apart = {b for pair in bounds.values() for b in pair}
    shown = {}
    for column in columns:
        if SEED_COLUMN.match(column) or column == "seeds":
            shown.setdefault("seeds", frame["seeds"])
        elif column in bounds:
            low, high = bounds[column]
            shown[f"{column} [low, high]"] = [
                with_interval(*cells) for cells in zip(frame[column], frame[low], frame[high], strict=True)
            ]
        elif column not in apart:
            shown[column] = frame[column]
    return pd.DataFrame(shown, index=frame.index)
