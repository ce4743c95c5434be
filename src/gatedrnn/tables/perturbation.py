"""The perturbation tables of trained models (C4, E1, E3): one character of every probe
line changed, the state difference followed for ``DECAY_STEPS`` steps
(:mod:`gatedrnn.analysis.perturbation`), and for the forget-bias sweep the reach of the
trained model's gradient.

The forget-bias sweep (E3): b = 0 is the grid's own LSTM, trained with
PyTorch's default initialisation, whose forget-gate biases (bias_ih + bias_hh)
are uniform around 0 (so f starts near sigmoid(0) = 0.5); the other values
are regimes that set the bias_ih forget slice to b and bias_hh's to 0. The
``init`` column says which (``pytorch_default`` or ``forget_bias``).
"""

from __future__ import annotations

import pandas as pd
import torch

from gatedrnn.analysis.perturbation import cell_state_decay, hidden_state_decay, trained_model_reach
from gatedrnn.analysis.stats import CHANGE_POSITION, DECAY_STEPS, curve_half_life
from gatedrnn.train.loop import load_model


def check_perturbation_fits(length: int, position: int = CHANGE_POSITION, steps: int = DECAY_STEPS) -> None:
    if position + steps >= length:
        raise ValueError(
            f"the perturbation changes character {position} and follows it {steps} steps, which needs "
            f"probe lines of at least {position + steps + 1} characters; probe.length is {length}"
        )


def load_models(model_dirs) -> list[tuple[torch.nn.Module, dict]]:
    """``(model, summary)`` of every trained-model directory, in the given order."""
    return [load_model(path) for path in model_dirs]


def cell_decay_table(models, tokens: torch.Tensor) -> pd.DataFrame:
    """C4: the cell-state difference after one changed character, measured and
    from the forget gate alone, k = 0..32, per seed, with each curve's half-life."""
    check_perturbation_fits(tokens.shape[1])
    frames = []
    for model, summary in models:
        curve = cell_state_decay(model, tokens)
        curve.insert(0, "model", summary["model"])
        curve.insert(1, "seed", summary["seed"])
        curve["measured_half_life"] = curve_half_life(curve["measured"].to_numpy())
        curve["forget_alone_half_life"] = curve_half_life(curve["forget_alone"].to_numpy())
        curve["measured_over_forget_alone"] = curve["measured"] / curve["forget_alone"]
        frames.append(curve)
    return pd.concat(frames, ignore_index=True)


def hidden_decay_table(models, tokens: torch.Tensor) -> pd.DataFrame:
    """E1: the hidden-state difference after one changed character, k = 0..32,
    per model and seed, with the curve's half-life."""
    check_perturbation_fits(tokens.shape[1])
    frames = []
    for model, summary in models:
        curve = hidden_state_decay(model, tokens)
        curve.insert(0, "model", summary["model"])
        curve.insert(1, "cell", summary["cell"])
        curve.insert(2, "seed", summary["seed"])
        curve["half_life"] = curve_half_life(curve["measured"].to_numpy())
        frames.append(curve)
    return pd.concat(frames, ignore_index=True)


def forget_bias_of(regime_forget_bias: float | None) -> tuple[float, str]:
    """``(b, init)`` of a sweep regime: ``None`` (PyTorch's default, biases uniform
    around 0) is b = 0 with init ``pytorch_default``; a number is itself, ``forget_bias``."""
    if regime_forget_bias is None:
        return 0.0, "pytorch_default"
    return float(regime_forget_bias), "forget_bias"


def forget_bias_sweep_table(models, forget_biases: dict[str, float | None], tokens) -> pd.DataFrame:
    """E3: best validation loss and reach of each sweep model.

    ``forget_biases`` maps a regime to its ``train.forget_bias`` (``None``: the
    default initialisation, see :func:`forget_bias_of`). Reach is
    :func:`gatedrnn.analysis.perturbation.trained_model_reach` on the probe set:
    ``state_half_life`` (E1's measure) and the gradient of the last hidden state
    back over the whole probe line (``grad_*``). Rows sorted by forget bias, seed.
    """
    check_perturbation_fits(tokens.shape[1])
    rows = []
    for model, summary in models:
        regime = summary["regime"]
        if regime not in forget_biases:
            raise ValueError(
                f"{summary['model']} seed {summary['seed']} comes from regime {regime!r}, "
                f"which is not in the sweep ({', '.join(forget_biases)})"
            )
        bias, init = forget_bias_of(forget_biases[regime])
        reach = trained_model_reach(model, tokens)
        rows.append(
            {
                "model": summary["model"],
                "forget_bias": bias,
                "seed": summary["seed"],
                "best_val_loss": summary["best_val_loss"],
                "state_half_life": reach["state_half_life"],
                "grad_first_over_last": reach["first_over_last"],
                "grad_half_distance": reach["half_distance"],
                "grad_log10_first_over_last": reach["log10_first_over_last"],
                "best_step": summary["best_step"],
                "regime": regime,
                "init": init,
                "window": int(tokens.shape[1]),
            }
        )
    return pd.DataFrame(rows).sort_values(["forget_bias", "seed"], kind="stable", ignore_index=True)
