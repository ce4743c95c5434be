"""The measures that rerun or differentiate a trained model (C4, E1, E3).

The protocol (one changed character at ``CHANGE_POSITION``, followed for
``DECAY_STEPS`` steps; float64 copies; "forget gate alone"; the gradient reach of
the last hidden state) is that of :mod:`gatedrnn.analysis.stats`, whose docstring
fixes the choices; the curves and half-lives are reduced there, from arrays. This
module holds the parts that run models (torch), apart from those statistics, so
that the tables of saved gates import no torch (issue #50).
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import torch

from gatedrnn.analysis.gates import recompute_layer, run_layer
from gatedrnn.analysis.reach import char_model_gradient_reach
from gatedrnn.analysis.stats import (
    CHANGE_POSITION,
    CHANGE_SHIFT,
    DECAY_STEPS,
    curve_half_life,
    difference_norms,
    gradient_reach_summary,
    relative_curve,
)
from gatedrnn.core.model import CharModel


def perturb_one_char(
    tokens: torch.Tensor, vocab_size: int, position: int = CHANGE_POSITION, shift: int = CHANGE_SHIFT
) -> torch.Tensor:
    """A copy of ``tokens`` (B, T) with the id at ``position`` of every line replaced
    by ``(id + shift) mod vocab_size`` (the next character of the model's vocabulary)."""
    if shift % vocab_size == 0:
        raise ValueError(f"shift {shift} leaves every character unchanged (V = {vocab_size})")
    if not 0 <= position < tokens.shape[1]:
        raise ValueError(f"position {position} outside a line of {tokens.shape[1]}")
    changed = tokens.clone()
    changed[:, position] = (tokens[:, position] + shift) % vocab_size
    return changed


def _for_differences(model: CharModel, float64: bool) -> CharModel:
    """The model in eval mode, as a float64 copy when ``float64`` (the original is untouched)."""
    model = copy.deepcopy(model).double() if float64 else model
    return model.eval()


def _numpy(tensors: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    return {k: v.double().cpu().numpy() for k, v in tensors.items()}


def cell_state_decay(
    model: CharModel,
    tokens: torch.Tensor,
    position: int = CHANGE_POSITION,
    steps: int = DECAY_STEPS,
    shift: int = CHANGE_SHIFT,
    layer: int = 0,
    changed: torch.Tensor | None = None,
    float64: bool = True,
) -> pd.DataFrame:
    """C4: how the LSTM cell-state difference from one changed character decays.

    Columns ``k`` (0..steps), ``measured`` (both texts run),
    ``forget_alone`` (the k = 0 difference multiplied only by the original run's
    forget gates). ``changed`` overrides :func:`perturb_one_char`; ``float64``
    runs a float64 copy of the model.
    """
    if model.cell != "lstm":
        raise ValueError(f"the cell state belongs to the LSTM, not {model.cell!r}")
    if changed is None:
        changed = perturb_one_char(tokens, model.vocab_size, position, shift)
    model = _for_differences(model, float64)
    original = _numpy(recompute_layer(model, tokens, layer))
    perturbed = _numpy(recompute_layer(model, changed, layer))
    measured = relative_curve(difference_norms(original["c"], perturbed["c"], position, steps))
    first = perturbed["c"][:, position] - original["c"][:, position]
    forget = original["f"][:, position + 1 : position + steps + 1]
    rolled = first[:, None, :] * np.cumprod(forget, axis=1)  # (B, steps, H)
    alone_norms = np.linalg.norm(np.concatenate([first[:, None, :], rolled], axis=1), axis=-1)
    return pd.DataFrame(
        {"k": np.arange(steps + 1), "measured": measured, "forget_alone": relative_curve(alone_norms)}
    )


def hidden_state_decay(
    model: CharModel,
    tokens: torch.Tensor,
    position: int = CHANGE_POSITION,
    steps: int = DECAY_STEPS,
    shift: int = CHANGE_SHIFT,
    layer: int = 0,
    changed: torch.Tensor | None = None,
    float64: bool = True,
) -> pd.DataFrame:
    """E1: relative hidden-state difference (the module's own h) k = 0..steps after
    one changed character, any cell. Columns ``k``, ``measured``. ``float64`` runs
    a float64 copy of the model."""
    if changed is None:
        changed = perturb_one_char(tokens, model.vocab_size, position, shift)
    model = _for_differences(model, float64)
    original = run_layer(model, tokens, layer).hidden.double().cpu().numpy()
    perturbed = run_layer(model, changed, layer).hidden.double().cpu().numpy()
    curve = relative_curve(difference_norms(original, perturbed, position, steps))
    return pd.DataFrame({"k": np.arange(steps + 1), "measured": curve})


def state_half_life(
    model: CharModel,
    tokens: torch.Tensor,
    position: int = CHANGE_POSITION,
    steps: int = DECAY_STEPS,
    shift: int = CHANGE_SHIFT,
    float64: bool = True,
) -> float:
    """E3: half-life of the E1 hidden-state curve (NaN if it stays above 0.5 for
    ``steps`` steps; up to ``T - 1 - position`` steps fit in the window)."""
    curve = hidden_state_decay(model, tokens, position, steps, shift, float64=float64)["measured"]
    return curve_half_life(curve.to_numpy())


def trained_model_reach(
    model: CharModel,
    tokens: torch.Tensor,
    position: int = CHANGE_POSITION,
    steps: int = DECAY_STEPS,
    shift: int = CHANGE_SHIFT,
    float64: bool = True,
) -> dict:
    """E3, one trained model on the probe set: ``state_half_life`` (E1's measure)
    and the :func:`gradient_reach_summary` of the last hidden state's gradient
    over the whole window (:func:`gatedrnn.analysis.reach.char_model_gradient_reach`)."""
    model.eval()
    norms = char_model_gradient_reach(model, tokens, output="hidden")
    return {
        "state_half_life": state_half_life(model, tokens, position, steps, shift, float64),
        **gradient_reach_summary(norms),
    }
