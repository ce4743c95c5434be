"""G1's sentences for ``open_questions.md``, from the ``open_reset_gate`` table alone.

Apart from :mod:`gatedrnn.questions.reset_gate`, which evaluates the trained GRUs (torch),
so that the report reads the table without importing torch (issue #50).
"""

from __future__ import annotations

import pandas as pd

from gatedrnn.questions.common import MEDIAN, fmt, seeds_in, signed


def reset_gate_sentences(table: pd.DataFrame) -> list[str]:
    """One sentence per comparison, from its median row."""
    out = []
    medians = table[table["seed"].astype(str) == MEDIAN]
    for _, row in medians.iterrows():
        n = seeds_in(table[table["comparison"] == row["comparison"]])
        if row["comparison"] == "reset_pinned_to_1":
            out.append(
                f"Pinning the reset gate of the trained {row['reference_model']} to 1 (no retraining) "
                "moves its "
                f"validation loss from {fmt(row['reference_loss'])} to {fmt(row['loss'])} nats/char "
                f"({signed(row['loss_difference'])}, median of {n} seeds)."
            )
        else:
            out.append(
                f"Trained without a reset, {row['model']} (width {int(row['width'])}, {int(row['params']):,} "
                f"parameters) reaches {fmt(row['loss'])} against {fmt(row['reference_loss'])} for "
                f"{row['reference_model']} (width {int(row['reference_width'])}, "
                f"{int(row['reference_params']):,}): "
                f"{signed(row['loss_difference'])} nats/char (median of {n} seeds)."
            )
    return out
