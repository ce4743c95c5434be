"""The first tables: matched widths (A4, second table), GRU against LSTM (D3),
the split of the GRU's advantage (D4) and validation curves (E2).

Every function takes plain data (summaries as dicts, histories as frames) and
returns a DataFrame; the rule scripts only read and write files.
"""

from __future__ import annotations

import pandas as pd

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
