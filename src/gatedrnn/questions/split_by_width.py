"""G2. The structure/width split at other widths.

The D4 split (:func:`gatedrnn.tables.study.advantage_split_table`) repeated with
the LSTM at other reference widths R: LSTM wR - GRU wR ("structure"), GRU wR -
GRU budgetR ("width"), on medians over seeds; beside them each part seed by seed
and the paired bootstrap interval of its median over seeds
(:func:`gatedrnn.tables.study.paired_parts`).
"""

from __future__ import annotations

import pandas as pd

from gatedrnn.core.conventions import WIDTH_TOKEN
from gatedrnn.questions.common import Log, pct, read_summaries, signed, write_table
from gatedrnn.tables.study import advantage_split_table, gru_vs_lstm_table, paired_parts


def reference_width_of(summary: dict) -> int:
    """The R of a split-by-width model: ``lstm_wR``, ``gru_wR`` and ``gru_budgetR`` all give R."""
    match = WIDTH_TOKEN.match(summary["width_token"])
    if match is None:
        raise ValueError(
            f"{summary['model']}: width token {summary['width_token']!r} is not w<H> or budget<R>"
        )
    return int(match["literal"] or match["budget"])


def split_by_width_table(summaries: list[dict]) -> pd.DataFrame:
    """D4's structure/width split with the LSTM at each reference width R.

    ``summaries``: every seed of ``lstm_wR``, ``gru_wR`` and ``gru_budgetR`` for
    each R (grouped by :func:`reference_width_of`). Columns ``reference_width,
    component, comparison, loss_difference, share_of_total`` (as D4), then the
    three medians, the budget GRU's width and parameters, the seeds used, and each
    part taken seed by seed: ``paired_median, low, high`` (its median over seeds and
    95 % paired bootstrap interval) and ``seed_<s>`` (the part at seed s).
    """
    by_width: dict[int, list[dict]] = {}
    for summary in summaries:
        by_width.setdefault(reference_width_of(summary), []).append(summary)
    frames = []
    for reference, group in sorted(by_width.items()):
        lstm, gru_w, gru_b = f"lstm_w{reference}", f"gru_w{reference}", f"gru_budget{reference}"
        models = gru_vs_lstm_table(group).set_index("model")
        missing = {lstm, gru_w, gru_b} - set(models.index)
        if missing:
            raise ValueError(f"reference width {reference}: no summaries for {', '.join(sorted(missing))}")
        split = advantage_split_table(models.reset_index(), lstm, gru_w, gru_b)
        split.insert(0, "reference_width", reference)
        split["lstm_median"] = models.loc[lstm, "median"]
        split["gru_same_width_median"] = models.loc[gru_w, "median"]
        split["gru_same_budget_median"] = models.loc[gru_b, "median"]
        split["budget_gru_width"] = int(models.loc[gru_b, "width"])
        split["lstm_params"] = int(models.loc[lstm, "params"])
        split["budget_gru_params"] = int(models.loc[gru_b, "params"])
        split["seeds"] = len({s["seed"] for s in group})
        frames.append(split.join(paired_parts(models, lstm, gru_w, gru_b), on="component"))
    return pd.concat(frames, ignore_index=True)


def write_split_by_width_table(summaries, out, log: Log) -> pd.DataFrame:
    """Rule ``split_by_width``: :func:`split_by_width_table` of the ``summaries`` files, to ``out``."""
    table = split_by_width_table(read_summaries(summaries))
    write_table(table, out, log)
    return table


def split_by_width_sentences(table: pd.DataFrame) -> list[str]:
    """One sentence: the gap and its two shares at each reference width."""
    parts = []
    for reference, group in table.groupby("reference_width", sort=True):
        rows = group.set_index("component")
        parts.append(
            f"R = {reference}: gap {signed(rows.loc['total', 'loss_difference'])}, structure "
            f"{pct(rows.loc['structure', 'share_of_total'])}, "
            f"width {pct(rows.loc['width', 'share_of_total'])}"
        )
    seeds = int(table["seeds"].min())
    return [
        "The LSTM - budget-GRU gap split into structure (same width) and width (same budget), "
        f"medians of {seeds} seed(s): " + "; ".join(parts) + "."
    ]
