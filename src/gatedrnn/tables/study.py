"""The first tables: matched widths (A4, second table), GRU against LSTM (D3),
the split of the GRU's advantage (D4) and validation curves (E2).

Every function takes plain data (summaries as dicts, histories as frames) and
returns a DataFrame; the rule scripts only read and write files.

D3 and D4 carry, beside their medians over seeds, the 95 % bootstrap interval of
each (:mod:`gatedrnn.analysis.intervals`, the ledger's bootstrap: its seed, its
resamples), a difference of two models taken seed by seed (paired). The ledger
judges the same seed columns by the same bootstrap, so a table's interval is the
ledger's (``tests/test_seed_intervals.py``). One seed gives an empty interval.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from gatedrnn.analysis.intervals import median_interval, paired_difference_interval
from gatedrnn.core.conventions import WIDTH_TOKEN
from gatedrnn.core.sizes import model_parameters
from gatedrnn.core.widths import REFERENCE_CELL, resolve_width


def matched_widths_table(
    model_ids: list[str],
    vocab_size: int,
    reference_width: int,
    embed_dim: int = 128,
    layers: int = 1,
    readout_norm: str = "layernorm",
    cells: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Total parameters of every grid model on this vocabulary (the model's, train.vocabulary),
    and how its width was found.

    ``model_ids`` are ``<cell>_<width token>`` (e.g. ``gru_budget325``); ``cells`` maps a
    plug-in's name to its import path (:func:`gatedrnn.plan.cells.configured_cells`).
    """
    shape = (vocab_size, embed_dim, layers, readout_norm)
    budget = model_parameters(REFERENCE_CELL, reference_width, *shape)
    rows = []
    for model_id in model_ids:
        cell, token = model_id.rsplit("_", 1)  # cells may hold "_" (gru_noreset)
        path = (cells or {}).get(cell, cell)
        width = resolve_width(token, path, *shape)
        params = model_parameters(path, width, *shape)
        next_params = model_parameters(path, width + 1, *shape)
        if WIDTH_TOKEN.match(token)["budget"]:
            rule = (
                f"largest width with params <= {budget} (the {REFERENCE_CELL} at width "
                f"{reference_width}); width {width + 1} would have {next_params}"
            )
        else:
            rule = "width fixed in the config"
        rows.append(
            {
                "model": model_id,
                "cell": cell,
                "width": width,
                "params": params,
                "vocab_size": vocab_size,
                "budget_params": budget,
                "params_over_budget": params / budget,
                "next_width_params": next_params,
                "how": rule,
            }
        )
    return pd.DataFrame(rows)


def gru_vs_lstm_table(summaries: list[dict]) -> pd.DataFrame:
    """Best validation loss (nats/char) per seed and the median over seeds, per model.

    Columns: ``model, cell, width, params, seed_<k>..., median``; rows in the
    order models first appear in ``summaries``.
    """
    frame = pd.DataFrame(summaries)
    seeds = sorted(frame["seed"].unique())
    rows = []
    for model_id, group in frame.groupby("model", sort=False):
        first = group.iloc[0]
        losses = group.set_index("seed")["best_val_loss"]
        row = {
            "model": model_id,
            "cell": first["cell"],
            "width": int(first["width"]),
            "params": int(first["params"]),
        }
        for seed in seeds:
            row[f"seed_{seed}"] = losses.get(seed, float("nan"))
        row["median"] = float(losses.median())
        rows.append(row)
    return pd.DataFrame(rows)


def advantage_split_table(
    gru_vs_lstm: pd.DataFrame, reference_lstm: str, width_matched_gru: str, budget_matched_gru: str
) -> pd.DataFrame:
    """LSTM - GRU at the same width ("structure") and GRU same width - GRU same budget
    ("width"), on the medians over seeds; their sum is the whole gap."""
    median = gru_vs_lstm.set_index("model")["median"]
    structure = median[reference_lstm] - median[width_matched_gru]
    width = median[width_matched_gru] - median[budget_matched_gru]
    total = median[reference_lstm] - median[budget_matched_gru]
    rows = [
        ("structure", f"{reference_lstm} - {width_matched_gru}", structure),
        ("width", f"{width_matched_gru} - {budget_matched_gru}", width),
        ("total", f"{reference_lstm} - {budget_matched_gru}", total),
    ]
    table = pd.DataFrame(rows, columns=["component", "comparison", "loss_difference"])
    table["share_of_total"] = table["loss_difference"] / total if total != 0 else float("nan")
    return table


SEED_COLUMN = re.compile(r"^seed_\d+$")


def _seed_columns(table: pd.DataFrame) -> list[str]:
    return [c for c in table.columns if SEED_COLUMN.match(str(c))]


def median_intervals(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (rows of :func:`gru_vs_lstm_table`'s form: ``seed_<s>`` columns and
    their ``median``) with ``seeds`` (the seeds with a loss) and ``median_low,
    median_high`` (the 95 % bootstrap interval of ``median``) appended. Taken over
    every seed column, as the ledger reads them: a seed without a loss (an empty cell)
    or one seed alone leaves the interval empty."""
    losses = table[_seed_columns(table)].to_numpy(dtype=np.float64)
    out = table.copy()
    out["seeds"] = np.isfinite(losses).sum(axis=1)
    rows = [median_interval(row) for row in losses]
    out["median_low"] = [low for _, low, _ in rows]
    out["median_high"] = [high for _, _, high in rows]
    return out


def paired_gaps(table: pd.DataFrame, partners: list, name: str, partner_first: bool = False) -> pd.DataFrame:
    """``table`` with a gap to another row taken seed by seed appended: ``name`` (the
    median over seeds of the per-seed difference), ``name_low, name_high`` (its 95 %
    paired bootstrap interval). ``partners[i]``: the position of row i's partner, or
    None (no gap: empty cells). The difference is this row minus its partner, or the
    partner minus this row where ``partner_first`` (a gap whose sign follows a column
    such as ``gap_to_lstm``). Seed s of both shares its data order, so the seeds are
    resampled together."""
    losses = table[_seed_columns(table)].to_numpy(dtype=np.float64)
    gaps = []
    for row, partner in zip(losses, partners, strict=True):
        if partner is None:
            gaps.append((np.nan,) * 3)
        else:
            pair = (losses[partner], row) if partner_first else (row, losses[partner])
            gaps.append(paired_difference_interval(*pair))
    out = table.copy()
    for k, column in enumerate((name, f"{name}_low", f"{name}_high")):
        out[column] = [gap[k] for gap in gaps]
    return out


def gru_vs_lstm_intervals(table: pd.DataFrame, reference_lstm: str) -> pd.DataFrame:
    """D3's table (:func:`gru_vs_lstm_table`) with its intervals over seeds appended:
    ``seeds``, ``median_low, median_high`` (:func:`median_intervals`), and the gap to
    ``reference_lstm`` seed by seed: ``paired_minus_lstm`` (median over seeds of this
    model's loss minus the LSTM's at the same seed; negative: lower than the LSTM),
    ``paired_minus_lstm_low, _high`` (:func:`paired_gaps`).

    A seed without a loss or one seed alone leaves an interval empty; the LSTM's own
    row has no gap. The existing columns are unchanged."""
    is_lstm = (table["model"] == reference_lstm).to_numpy()
    lstm = int(np.flatnonzero(is_lstm)[0]) if is_lstm.sum() == 1 else None
    partners = [None if own or lstm is None else lstm for own in is_lstm]
    return paired_gaps(median_intervals(table), partners, "paired_minus_lstm")


def paired_parts(models: pd.DataFrame, lstm: str, gru_w: str, gru_b: str) -> pd.DataFrame:
    """Per component (index): ``paired_median, low, high`` and ``seed_<s>``, the part
    taken seed by seed on the seeds all three models ran (``models``: rows of
    :func:`gru_vs_lstm_table` by model)."""
    seeds = [c for c in _seed_columns(models) if models.loc[[lstm, gru_w, gru_b], c].notna().all()]
    loss = {model: models.loc[model, seeds].to_numpy(dtype=np.float64) for model in (lstm, gru_w, gru_b)}
    rows = {}
    for component, (first, second) in {
        "structure": (lstm, gru_w),
        "width": (gru_w, gru_b),
        "total": (lstm, gru_b),
    }.items():
        median, low, high = paired_difference_interval(loss[first], loss[second])
        rows[component] = {"paired_median": median, "low": low, "high": high,
                           **dict(zip(seeds, loss[first] - loss[second], strict=True))}  # fmt: skip
    return pd.DataFrame.from_dict(rows, orient="index")


def advantage_split_intervals(
    gru_vs_lstm: pd.DataFrame, reference_lstm: str, width_matched_gru: str, budget_matched_gru: str
) -> pd.DataFrame:
    """D4 (:func:`advantage_split_table`, its columns unchanged) with each part taken
    seed by seed, as G2's ``split_by_width.csv`` has them: ``seeds`` (those all three
    models ran), ``paired_median, low, high`` (the part's median over seeds and its
    95 % paired bootstrap interval) and ``seed_<s>`` (the part at seed s)."""
    split = advantage_split_table(gru_vs_lstm, reference_lstm, width_matched_gru, budget_matched_gru)
    models = gru_vs_lstm.set_index("model")
    parts = paired_parts(models, reference_lstm, width_matched_gru, budget_matched_gru)
    split["seeds"] = len(_seed_columns(parts))
    return split.join(parts, on="component")


def val_loss_curves_table(histories: list[pd.DataFrame], summaries: list[dict]) -> pd.DataFrame:
    """Long form: one row per (model, seed, evaluated step)."""
    frames = []
    for history, summary in zip(histories, summaries, strict=True):
        frame = history.copy()
        frame.insert(0, "model", summary["model"])
        frame.insert(1, "cell", summary["cell"])
        frame.insert(2, "width", summary["width"])
        frame.insert(3, "seed", summary["seed"])
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
