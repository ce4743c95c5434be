"""G6. A task that needs long memory: do the gates learn to stay open?

Models are trained on :func:`gatedrnn.io.synthetic.copy_task` text (written by
:func:`gatedrnn.io.synthetic.write_copy_task_corpus`); "recall" positions are
those holding a key whose copy source lies ``distance`` characters back inside
the same probe line; recall loss and accuracy are measured there. The report's
sentences, from the table alone, are :mod:`gatedrnn.questions.long_memory_words`.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import torch

from gatedrnn.analysis.gates import extract_gates
from gatedrnn.core.data import fixed_windows
from gatedrnn.io.reading import corpus_splits
from gatedrnn.io.synthetic import COPY_KEYS, copy_task_loss_bounds
from gatedrnn.questions.common import Log, keep_gate_stats, read_summaries, write_table
from gatedrnn.train.config import shared_vocabulary
from gatedrnn.train.loop import load_model


def recall_mask(tokens: torch.Tensor, key_ids, distance: int) -> torch.Tensor:
    """(B, T) bool: positions holding a key whose copy source, ``distance`` back, is a
    key inside the same line (:func:`gatedrnn.io.synthetic.recall_positions` per line)."""
    is_key = torch.isin(tokens, torch.as_tensor(list(key_ids), dtype=tokens.dtype))
    mask = torch.zeros_like(is_key)
    mask[:, distance:] = is_key[:, distance:] & is_key[:, :-distance]
    return mask


@torch.no_grad()
def copy_recall(model, tokens: torch.Tensor, key_ids, distance: int) -> dict:
    """Loss and accuracy of next-character prediction at the recall positions of
    ``tokens`` (B, T) read from a zero state, and the loss everywhere else."""
    model.eval()
    logits, _ = model(tokens[:, :-1])
    targets = tokens[:, 1:]
    losses = torch.nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none"
    ).reshape(targets.shape)
    mask = recall_mask(tokens, key_ids, distance)[:, 1:]
    if not mask.any():
        raise ValueError(
            f"no recall position in probe lines of {tokens.shape[1]} characters at distance {distance}"
        )
    correct = logits.argmax(dim=-1) == targets
    return {
        "recall_positions": int(mask.sum()),
        "recall_loss": float(losses[mask].mean()),
        "recall_accuracy": float(correct[mask].float().mean()),
        "other_loss": float(losses[~mask].mean()),
    }


def long_memory_table(
    models,
    tokens: torch.Tensor,
    vocabulary: str,
    distance: int,
    keys: int,
    fillers: int,
    counterparts: dict[str, str | None] | None = None,
    counterpart_summaries: list[dict] = (),
) -> pd.DataFrame:
    """Do the gates learn to stay open when the task needs a memory of ``distance``?

    ``models``: ``(model, summary)`` trained on :func:`gatedrnn.io.synthetic.copy_task`
    text; ``tokens``: probe lines of its validation split. Per model and seed:
    best validation loss beside the task's bounds (``loss_perfect``,
    ``loss_no_key_memory``), recall loss and accuracy (chance ``ln keys`` and
    ``1 / keys``), and the keep gate (LSTM f, GRU z) with per-unit half-lives and
    the number of units whose half-life reaches ``distance``.
    ``counterparts`` maps a long-memory regime to the default-corpus regime with
    the same training overrides (e.g. ``long_memory_forget_bias_3`` ->
    ``forget_bias_3``); the same model's best validation loss there (same seed)
    goes in ``default_corpus_best_val_loss``.
    """
    counterparts = counterparts or {}
    key_ids = [vocabulary.index(c) for c in COPY_KEYS[:keys] if c in vocabulary]
    bounds = copy_task_loss_bounds(distance, keys, fillers)
    others = {(s["regime"], s["model"], s["seed"]): s for s in counterpart_summaries}
    rows = []
    for model, summary in models:
        cfg = summary["train_config"]
        gates = extract_gates(model, tokens)
        other_regime = counterparts.get(summary["regime"])
        other = others.get((other_regime, summary["model"], summary["seed"]))
        rows.append(
            {
                "regime": summary["regime"],
                "model": summary["model"],
                "cell": summary["cell"],
                "seed": summary["seed"],
                "forget_bias": 0.0 if cfg.get("forget_bias") is None else float(cfg["forget_bias"]),
                "distance": distance,
                "best_val_loss": summary["best_val_loss"],
                "best_step": summary["best_step"],
                "loss_perfect": bounds["perfect"],
                "loss_no_key_memory": bounds["no_key_memory"],
                **copy_recall(model, tokens, key_ids, distance),
                "recall_chance_loss": bounds["recall_chance"],
                "recall_chance_accuracy": 1.0 / keys,
                **{
                    k: v
                    for k, v in keep_gate_stats(summary["cell"], gates, float(distance)).items()
                    if k not in ("coupling_corr", "mean_i_plus_f")
                },
                "default_corpus_regime": other_regime,
                "default_corpus_best_val_loss": other["best_val_loss"] if other else math.nan,
            }
        )
    frame = pd.DataFrame(rows).rename(columns={"units_half_life_ge_long": "units_half_life_ge_distance"})
    return frame.sort_values(["model", "forget_bias", "seed"], kind="stable", ignore_index=True)


def write_long_memory_table(
    models,
    counterparts,
    corpus,
    provenance,
    *,
    distance: int,
    keys: int,
    fillers: int,
    lines: int,
    length: int,
    train_fraction: float,
    counterpart_regimes: dict[str, str | None],
    out,
    log: Log,
) -> pd.DataFrame:
    """Rule ``long_memory``: load each ``model.pt`` of ``models``, probe it on ``lines``
    validation lines of ``length`` characters of the copy-task ``corpus``, and write
    :func:`long_memory_table` (``counterparts``: the summaries on the default corpus) to ``out``."""
    loaded = [load_model(Path(path).parent) for path in models]
    vocabulary = shared_vocabulary([summary for _, summary in loaded], "the long-memory table")
    vocab, _, val_ids, _ = corpus_splits(corpus, provenance, train_fraction, vocabulary)
    tokens = fixed_windows(val_ids, lines, length)
    table = long_memory_table(
        loaded,
        tokens,
        vocab.chars,
        distance=distance,
        keys=keys,
        fillers=fillers,
        counterparts=dict(counterpart_regimes),
        counterpart_summaries=read_summaries(counterparts),
    )
    write_table(table, out, log)
    return table
