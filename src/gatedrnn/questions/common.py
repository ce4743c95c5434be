"""Helpers shared by the open questions: median rows, the kept fraction's
statistics, number formatting for the sentences, and reading/writing tables.

Losses are nats/char; ``loss_difference`` is always "the variant minus its
reference", so a positive number means the variant is worse.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd

from gatedrnn.analysis.stats import coupling_stats, gate_summary, unit_gate_summary
from gatedrnn.core.registry import cell_spec
from gatedrnn.io import records

MEDIAN = "median"

Log = Callable[[str], None]


# ------------------------------------------------------------------ tables


def median_rows(rows: list[dict], group_keys: tuple[str, ...], value_keys: tuple[str, ...]) -> list[dict]:
    """One ``seed = "median"`` row per group: the median over seeds of every value."""
    frame = pd.DataFrame(rows)
    out = []
    for _, group in frame.groupby(list(group_keys), sort=False):
        row = group.iloc[0].to_dict()
        row["seed"] = MEDIAN
        for key in value_keys:
            row[key] = float(group[key].median())
        out.append(row)
    return out


def keep_gate_stats(cell: str, gates: dict[str, np.ndarray], long_half_life: float) -> dict:
    """The kept fraction's statistics (the declared keep gate: LSTM f, GRU z), coupling (a
    declared pair: LSTM i against 1 - f) and the input gate's (LSTM) or reset's (GRU) mean;
    NaN where the cell has no such gate."""
    spec = cell_spec(cell)
    if spec.keep_gate is None:
        raise ValueError(f"a {cell} has no gate that keeps the state")
    keep = gates[spec.keep_gate]
    units = unit_gate_summary(keep, long_half_life)
    row = {
        "keep_gate": spec.label(spec.keep_gate),
        "keep_gate_mean": gate_summary(keep)["mean"],
        "units": units["units"],
        "unit_mean_min": units["mean_min"],
        "unit_mean_median": units["mean_median"],
        "unit_mean_max": units["mean_max"],
        "half_life_min": units["half_life_min"],
        "half_life_median": units["half_life_median"],
        "half_life_max": units["half_life_max"],
        "units_half_life_ge_long": units[f"units_half_life_ge_{long_half_life:g}"],
        "input_or_reset_mean": next(
            (float(np.mean(gates[g])) for g in ("i", "r") if g in spec.gates), float("nan")
        ),
        "coupling_corr": float("nan"),
        "mean_i_plus_f": float("nan"),
    }
    if spec.couplings:
        coupling = coupling_stats(*(gates[g] for g in spec.couplings[0]))
        row["coupling_corr"] = coupling["corr_all"]
        row["mean_i_plus_f"] = coupling["mean_i_plus_f"]
    return row


# ------------------------------------------------------------------ files


def read_summaries(paths: Iterable) -> list[dict]:
    """The ``summary.json`` of each path, in order, each checked to be its path's run
    (:func:`gatedrnn.io.records.read_summary`)."""
    return records.read_summaries(paths)


def write_table(table: pd.DataFrame, path, log: Log | None = None) -> None:
    """``table`` as CSV at ``path`` (no index), and as text in the log."""
    table.to_csv(path, index=False)
    if log is not None:
        log(table.to_string(index=False))


# ------------------------------------------------------------------ sentences


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fmt(value, digits: int = 4) -> str:
    """``value`` with ``digits`` decimals, ``n/a`` when missing."""
    return "n/a" if _missing(value) else f"{value:.{digits}f}"


def signed(value, digits: int = 4) -> str:
    """``value`` with its sign and ``digits`` decimals, ``n/a`` when missing."""
    return "n/a" if _missing(value) else f"{value:+.{digits}f}"


def pct(value) -> str:
    """A fraction as a whole percentage (``0.25`` -> ``25 %``), ``n/a`` when missing."""
    return "n/a" if _missing(value) else f"{100 * value:.0f} %"


def seeds_in(frame: pd.DataFrame) -> int:
    """How many seeds a table's rows hold (the median rows left out)."""
    return int(frame.loc[frame["seed"].astype(str) != MEDIAN, "seed"].nunique())
