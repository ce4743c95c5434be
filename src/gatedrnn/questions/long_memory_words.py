"""G6's sentences for ``open_questions.md``, from the ``long_memory`` table alone.

Apart from :mod:`gatedrnn.questions.long_memory`, which runs the trained models (torch),
so that the report reads the table without importing torch (issue #50).
"""

from __future__ import annotations

import math

import pandas as pd

from gatedrnn.questions.common import fmt


def long_memory_sentences(table: pd.DataFrame) -> list[str]:
    """One sentence per model: recall, gates and losses at each forget bias."""
    out = []
    for model, group in table.groupby("model", sort=False):
        parts = []
        for bias, rows in group.groupby("forget_bias", sort=True):
            med = rows.median(numeric_only=True)
            corpus = (
                f"; on the default corpus {fmt(med['default_corpus_best_val_loss'])}"
                if not math.isnan(med["default_corpus_best_val_loss"])
                else ""
            )
            # the median and every seed: a median above chance may hide a seed below it
            seeds = ", ".join(fmt(v, 3) for v in rows["recall_accuracy"])
            above = int((rows["recall_accuracy"] > rows["recall_chance_accuracy"]).sum())
            parts.append(
                f"forget bias {bias:g}: recall accuracy {fmt(med['recall_accuracy'], 3)} (seeds {seeds}; "
                f"{above} of {len(rows)} above chance, {fmt(med['recall_chance_accuracy'], 3)}), "
                f"recall loss {fmt(med['recall_loss'], 3)} (chance "
                f"{fmt(med['recall_chance_loss'], 3)}), mean {rows['keep_gate'].iloc[0]} gate "
                f"{fmt(med['keep_gate_mean'], 3)}, median unit half-life {fmt(med['half_life_median'], 2)} "
                f"(max {fmt(med['half_life_max'], 2)}; {fmt(med['units_half_life_ge_distance'], 0)} of "
                f"{int(med['units'])} units reach the distance), "
                f"best validation loss {fmt(med['best_val_loss'])}"
                f"{corpus}"
            )
        first = group.iloc[0]
        out.append(
            f"On the copy task (a key repeated {int(first['distance'])} characters later; best possible loss "
            f"{fmt(first['loss_perfect'])}, {fmt(first['loss_no_key_memory'])} without the key's memory), "
            f"{model}: " + "; ".join(parts) + "."
        )
    return out
