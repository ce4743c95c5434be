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


# A split table's parts (D4, G2, G3): a share of the total is only a share when both are
# positive; with a part at or below zero it passes 100 % or turns negative.
SPLIT_PARTS = ("structure", "width")


def shares_judged(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """A split table with ``share_of_total`` blanked wherever a part is not positive:
    judged by the part's interval over seeds (its low end above zero) where the table
    has one, else by the part itself. Also returns, per blanked group (a reference
    width, a layer count), which part was not positive."""
    if not {"share_of_total", "component"} <= set(frame.columns):
        return frame, []
    keys = [c for c in ("reference_width", "layers") if c in frame.columns]
    frame = frame.copy()
    groups = frame.groupby(keys, sort=False) if keys else [((), frame)]
    left_out = []
    for key, rows in groups:
        key = key if isinstance(key, tuple) else (key,)
        not_positive = []
        for row in rows[rows["component"].isin(SPLIT_PARTS)].itertuples():
            low = getattr(row, "low", math.nan)
            if not math.isnan(low):
                if low <= 0:
                    not_positive.append(f"{row.component} {with_interval(row.paired_median, low, row.high)}")
            elif not row.loss_difference > 0:
                not_positive.append(f"{row.component} {fmt(row.loss_difference)}")
        if not_positive:
            frame.loc[rows.index, "share_of_total"] = math.nan
            where = ", ".join(f"{k} {fmt(v)}" for k, v in zip(keys, key, strict=True))
            left_out.append((f"{where}: " if where else "") + "; ".join(not_positive))
    return frame, left_out
