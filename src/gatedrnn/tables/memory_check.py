"""Issue #17: the forget-bias sweep's reach, measured twice (table
``forget_bias_memory_check.csv``).

Per sweep model, the E3 measure as the sweep table computes it
(:func:`gatedrnn.analysis.perturbation.trained_model_reach`, through ``nn.LSTM``) beside the
independent computation of :mod:`gatedrnn.analysis.memory_check` (the LSTM equations
step by step in float64 from the saved weights), and the trained gate and cell-state
statistics that tell whether training or the measure explains a result. The columns
are described in docs/forget-bias-check.md.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import torch

from gatedrnn.analysis.memory_check import memory_check, read_lstm_weights
from gatedrnn.analysis.perturbation import trained_model_reach
from gatedrnn.analysis.stats import CHANGE_POSITION, DECAY_STEPS
from gatedrnn.tables.perturbation import check_perturbation_fits, forget_bias_of
from gatedrnn.train.loop import load_model


def model_memory_check(
    model_dir, forget_biases: dict[str, float | None], tokens: torch.Tensor, jacobian_lines: int | None = None
) -> dict:
    """One row: identity, the existing E3 measure, the independent one and their difference."""
    model_dir = Path(model_dir)
    model, summary = load_model(model_dir)
    if summary["cell"] != "lstm":
        raise ValueError(f"{model_dir} holds a {summary['cell']!r} model; the check covers the LSTM")
    regime = summary["regime"]
    if regime not in forget_biases:
        sweep = ", ".join(forget_biases)
        raise ValueError(f"{model_dir} comes from regime {regime!r}, which is not in the sweep ({sweep})")
    existing = trained_model_reach(model, tokens)
    independent = memory_check(
        read_lstm_weights(model_dir / "model.pt"), tokens, CHANGE_POSITION, DECAY_STEPS, jacobian_lines
    )
    h_half_life = independent.pop("h_half_life")
    return {
        "regime": regime,
        "forget_bias": forget_bias_of(forget_biases[regime])[0],
        "seed": summary["seed"],
        "model": summary["model"],
        "best_val_loss": summary["best_val_loss"],
        "state_half_life": existing["state_half_life"],
        "h_half_life": h_half_life,
        "h_half_life_minus_existing": h_half_life - existing["state_half_life"],
        "grad_first_over_last": existing["first_over_last"],
        "grad_half_distance": existing["half_distance"],
        **independent,
    }


def forget_bias_memory_check_table(
    model_dirs,
    forget_biases: dict[str, float | None],
    tokens: torch.Tensor,
    jacobian_lines: int | None = None,
) -> pd.DataFrame:
    """One row per sweep model directory, sorted by forget bias and seed;
    ``forget_biases`` maps a regime to its ``train.forget_bias`` as for the sweep table.
    ``jacobian_lines``: see :func:`gatedrnn.analysis.memory_check.memory_check`."""
    check_perturbation_fits(tokens.shape[1])
    table = pd.DataFrame([model_memory_check(d, forget_biases, tokens, jacobian_lines) for d in model_dirs])
    table["position"], table["steps"], table["window"] = CHANGE_POSITION, DECAY_STEPS, int(tokens.shape[1])
    return table.sort_values(["forget_bias", "seed"], kind="stable", ignore_index=True)
