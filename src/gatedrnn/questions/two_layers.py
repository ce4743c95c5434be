"""G3. GRU against LSTM (D3, D4) at one and at two (or more) stacked layers.

The comparison's three models (reference LSTM, width-matched GRU, budget-matched
GRU) are trained under a regime that stacks layers; the layer count of each run
is the ``layers`` of its ``train_config``. Each layer count's tables are D3's and
D4's with their intervals over seeds, from the same functions
(:mod:`gatedrnn.tables.study`: the ledger's bootstrap, paired by seed).
"""

from __future__ import annotations

import pandas as pd

from gatedrnn.questions.common import Log, fmt, read_summaries, signed, write_table
from gatedrnn.tables.study import advantage_split_intervals, gru_vs_lstm_table, median_intervals, paired_gaps


def two_layers_tables(summaries: list[dict], lstm: str, gru_same_width: str, gru_same_budget: str):
    """GRU against LSTM at one and at two (or more) stacked layers.

    ``summaries``: every seed of the comparison's three models under each layer
    count (the ``layers`` of their ``train_config``). Returns ``(models, split)``:
    ``models`` is D3's table per layer count (columns ``layers`` first, then
    ``gap_to_lstm`` = LSTM median - this median: positive = better than the LSTM),
    then its intervals over seeds appended (issue #47): ``seeds``, ``median_low,
    median_high`` (:func:`~gatedrnn.tables.study.median_intervals`) and the gap
    to the LSTM of the same layer count seed by seed, its sign that of
    ``gap_to_lstm``: ``paired_gap_to_lstm`` (median over seeds of the LSTM's loss
    minus this model's at the same seed), ``_low``, ``_high``
    (:func:`~gatedrnn.tables.study.paired_gaps`; empty on the LSTM's rows);
    ``split`` is D4's table per layer count (``layers`` first, then
    :func:`~gatedrnn.tables.study.advantage_split_intervals`' columns): the parts
    as differences of medians (``loss_difference``, ``share_of_total``), then each
    part seed by seed on the ``seeds`` all three models ran at that layer count
    (``paired_median, low, high``: its median over seeds and 95 % paired bootstrap
    interval; ``seed_<s>``: the part at seed s).
    """
    frame = pd.DataFrame(summaries)
    frame["layers"] = [s["train_config"]["layers"] for s in summaries]
    tables, splits = [], []
    for layers, group in frame.groupby("layers", sort=True):
        table = gru_vs_lstm_table(group.drop(columns="layers").to_dict("records"))
        table.insert(0, "layers", int(layers))
        lstm_median = table.set_index("model").loc[lstm, "median"]
        table["gap_to_lstm"] = lstm_median - table["median"]
        tables.append(table)
        split = advantage_split_intervals(table, lstm, gru_same_width, gru_same_budget)
        split.insert(0, "layers", int(layers))
        splits.append(split)
    models = pd.concat(tables, ignore_index=True)
    return models_with_intervals(models, lstm), pd.concat(splits, ignore_index=True)


def models_with_intervals(models: pd.DataFrame, lstm: str) -> pd.DataFrame:
    """:func:`two_layers_tables`' models with their intervals over seeds appended; each
    row paired with the LSTM of its own layer count."""
    is_lstm = models["model"] == lstm
    lstm_at = {
        int(layers): position for position, layers in enumerate(models["layers"]) if is_lstm.iloc[position]
    }
    partners = [
        None if own else lstm_at.get(int(layers))
        for own, layers in zip(is_lstm, models["layers"], strict=True)
    ]
    return paired_gaps(median_intervals(models), partners, "paired_gap_to_lstm", partner_first=True)


def write_two_layers_tables(
    summaries, lstm: str, gru_same_width: str, gru_same_budget: str, out_table, out_split, log: Log
):
    """Rule ``two_layers``: :func:`two_layers_tables` of the ``summaries`` files, to
    ``out_table`` and ``out_split``."""
    table, split = two_layers_tables(read_summaries(summaries), lstm, gru_same_width, gru_same_budget)
    write_table(table, out_table, log)
    write_table(split, out_split, log)
    return table, split


def two_layers_sentences(table: pd.DataFrame) -> list[str]:
    """One sentence: the three medians and the GRU's advantage at each layer count."""
    parts = []
    for layers, group in table.groupby("layers", sort=True):
        rows = group.set_index("cell").reset_index()
        lstm = rows[rows["cell"] == "lstm"].iloc[0]
        budget = rows[(rows["cell"] == "gru") & rows["model"].str.contains("budget")].iloc[0]
        same = rows[(rows["cell"] == "gru") & ~rows["model"].str.contains("budget")].iloc[0]
        parts.append(
            f"{layers} layer(s): LSTM {fmt(lstm['median'])}, GRU same width {fmt(same['median'])}, "
            f"GRU same budget {fmt(budget['median'])} (width {int(budget['width'])}; "
            f"GRU advantage {signed(budget['gap_to_lstm'])})"
        )
    return ["GRU against LSTM with stacked layers (median best validation loss): " + "; ".join(parts) + "."]
