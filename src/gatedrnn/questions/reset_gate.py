"""G1. What the reset gate does: two answers, per seed and the median over seeds.

- Pinned: the budget-matched GRU's FINAL weights (``model.pt``) are evaluated on
  the training protocol's fixed validation windows twice, as trained and with
  ``r = 1`` (:func:`gatedrnn.core.cells.pinned_reset_logits`); no retraining.
- Trained: ``gru_noreset`` (``r`` fixed at 1, no reset weights) against ``gru``
  at the same width token and seed, best validation loss.

``loss_difference`` is the variant minus its reference (positive: the variant is worse).
The report's sentences, from the table alone, are :mod:`gatedrnn.questions.reset_gate_words`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import torch

from gatedrnn.core.cells import windows_loss
from gatedrnn.core.data import validation_windows
from gatedrnn.io.reading import corpus_splits
from gatedrnn.questions.common import (
    Log,
    median_rows,
    read_summaries,
    write_table,
)
from gatedrnn.train.config import trained_vocabulary
from gatedrnn.train.loop import load_model


def pinned_reset_row(model, summary: dict, windows: torch.Tensor) -> dict:
    """The trained GRU on the validation windows, as trained and with ``r`` pinned to 1."""
    full = windows_loss(model, windows)
    pinned = windows_loss(model, windows, placement="none")
    return {
        "comparison": "reset_pinned_to_1",
        "model": f"{summary['model']} (r = 1)",
        "reference_model": summary["model"],
        "seed": summary["seed"],
        "width": summary["width"],
        "reference_width": summary["width"],
        "params": summary["params"],
        "reference_params": summary["params"],
        "loss": pinned,
        "reference_loss": full,
        "loss_difference": pinned - full,
        "loss_kind": "validation loss of the final weights",
        "training_final_val_loss": summary["final_val_loss"],
    }


def trained_noreset_row(noreset: dict, gru: dict) -> dict:
    """``gru_noreset`` against ``gru`` at the same width token and seed, best validation loss."""
    if noreset["seed"] != gru["seed"] or noreset["width_token"] != gru["width_token"]:
        raise ValueError(
            f"{noreset['model']} s{noreset['seed']} is not paired with {gru['model']} s{gru['seed']}"
        )
    return {
        "comparison": "trained_without_reset",
        "model": noreset["model"],
        "reference_model": gru["model"],
        "seed": noreset["seed"],
        "width": noreset["width"],
        "reference_width": gru["width"],
        "params": noreset["params"],
        "reference_params": gru["params"],
        "loss": noreset["best_val_loss"],
        "reference_loss": gru["best_val_loss"],
        "loss_difference": noreset["best_val_loss"] - gru["best_val_loss"],
        "loss_kind": "best validation loss",
        "training_final_val_loss": noreset["final_val_loss"],
    }


def reset_gate_table(
    pinned_rows: list[dict], noreset_summaries: list[dict], gru_summaries: list[dict]
) -> pd.DataFrame:
    """Both answers to "what does the reset gate do", per seed and the median over seeds.

    ``pinned_rows`` from :func:`pinned_reset_row`; ``noreset_summaries`` are paired
    with the ``gru_summaries`` of the same width token and seed.
    """
    gru_by_key = {(s["width_token"], s["seed"]): s for s in gru_summaries}
    trained = []
    for summary in noreset_summaries:
        key = (summary["width_token"], summary["seed"])
        if key not in gru_by_key:
            raise ValueError(f"no gru_{key[0]} seed {key[1]} to compare {summary['model']} with")
        trained.append(trained_noreset_row(summary, gru_by_key[key]))
    rows = []
    values = ("loss", "reference_loss", "loss_difference", "training_final_val_loss")
    for block in (list(pinned_rows), trained):
        if block:
            rows += block + median_rows(block, ("comparison", "model"), values)
    return pd.DataFrame(rows)


def write_reset_gate_table(
    models, noreset, gru, corpus, provenance, train_fraction: float, out, log: Log
) -> pd.DataFrame:
    """Rule ``open_reset_gate``: pin ``r`` in each ``model.pt`` of ``models`` on the
    validation windows of ``corpus``, pair the ``noreset`` summaries with the ``gru``
    ones, and write :func:`reset_gate_table` to ``out``."""
    val_ids = {}  # by vocabulary: each model reads the corpus in its own
    pinned = []
    for path in models:
        model, summary = load_model(Path(path).parent)
        cfg = summary["train_config"]
        vocabulary = trained_vocabulary(summary)
        if vocabulary not in val_ids:
            val_ids[vocabulary] = corpus_splits(corpus, provenance, train_fraction, vocabulary)[2]
        windows = validation_windows(val_ids[vocabulary], cfg["val_windows"], cfg["seq_len"])
        pinned.append(pinned_reset_row(model, summary, windows))
        log(json.dumps(pinned[-1]))
    table = reset_gate_table(pinned, read_summaries(noreset), read_summaries(gru))
    write_table(table, out, log)
    return table
