"""A second, independent computation of how long a trained LSTM holds a change
(issue #17, claim E3), and measures that tell what training did apart from what the
measure reports.

Independent of :mod:`gatedrnn.analysis.stats` and :mod:`gatedrnn.analysis.gates`:
nothing here runs ``nn.LSTM`` or the existing perturbation code. The LSTM is the
weight tensors of a saved state dict (:func:`lstm_weights`), cast to float64, and
its equations are written out one step at a time (:func:`lstm_step`, PyTorch's
(i, f, g, o) row order):

    i, f, o = sigmoid(.), g = tanh(.) of W_ih x_t + b_ih + W_hh h_{t-1} + b_hh
    c_t = f c_{t-1} + i g,   h_t = o tanh(c_t),   h_0 = c_0 = 0.

The protocol is the study's (docs/protocol.md), re-implemented here from its
statement: every probe line gets character ``position`` replaced by the next one of
the model's vocabulary, ``(id + 1) mod V``; the curve of a state is the mean over
lines of the L2 norm (over units) of the state difference ``k`` steps after the
change, divided by the same at ``k = 0``, for ``k = 0..steps``; its half-life is the
first crossing of 0.5, interpolated linearly in log(curve).

Three views of reach, all from the same equations:

- perturbation: the h curve (what the study's ``state_half_life`` measures), the c
  curve, and "forget alone" (the k = 0 cell difference multiplied by the original
  run's forget gates only);
- Jacobian (forward-mode autograd, float64): per line, ``J_k = d(h, c)_{p+k} /
  d(h, c)_p`` along the original run; the curve of a block is the mean over lines
  of its RMS gain ``||J||_F / sqrt(H)``, the size a random unit change of the state
  at ``p`` keeps after k steps (d h/d h and d c/d c start at 1: the identity; d h/d c
  starts at 0 and says how much of a cell change h can read);
- gradient: d(sum of the last h)/d(embedding at t) in float64, as the study's
  gradient reach (first over last step, half distance).

And the trained gates on the original probe run: forget-gate mean, the share of
units whose mean f exceeds ``OPEN_FORGET``, each unit's half-life from its mean f
alone (``-ln 2 / ln f``), the trained forget bias (b_ih + b_hh, forget slice), the
input and output gate means, and how much of a cell change can reach h
(``|c| > SATURATION`` share; the mean of o (1 - tanh^2 c), the diagonal of d h / d c).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from gatedrnn.core import exact_math

OPEN_FORGET = 0.9  # a unit whose mean f exceeds this holds half a change for > 6.6 steps
SATURATION = 2.0  # |c| beyond this: tanh'(c) < 0.071, a cell change barely reaches h
PARAMETERS = ("embed.weight", "rnn.weight_ih_l0", "rnn.weight_hh_l0", "rnn.bias_ih_l0", "rnn.bias_hh_l0")


@dataclass(frozen=True)
class LstmWeights:
    """One LSTM layer and its embedding, float64: the bias is b_ih + b_hh."""

    embed: torch.Tensor  # (V, E)
    w_ih: torch.Tensor  # (4H, E)
    w_hh: torch.Tensor  # (4H, H)
    bias: torch.Tensor  # (4H,)

    @property
    def hidden(self) -> int:
        return self.w_hh.shape[1]

    @property
    def vocab_size(self) -> int:
        return self.embed.shape[0]

    def forget_bias(self) -> torch.Tensor:
        """The trained forget-gate bias of every unit (b_ih + b_hh, rows H..2H)."""
        return self.bias[self.hidden : 2 * self.hidden]


def lstm_weights(state: Mapping[str, torch.Tensor]) -> LstmWeights:
    """The float64 weights of a one-layer LSTM character model's state dict."""
    missing = [name for name in PARAMETERS if name not in state]
    if missing:
        raise ValueError(f"the state dict is not a one-layer LSTM character model: it lacks {missing}")
    if "rnn.weight_ih_l1" in state:
        raise ValueError("the check covers one-layer LSTMs; this state dict has more layers")
    embed, w_ih, w_hh, b_ih, b_hh = (state[name].detach().to(torch.float64).cpu() for name in PARAMETERS)
    hidden = w_hh.shape[1]
    if w_hh.shape != (4 * hidden, hidden) or w_ih.shape != (4 * hidden, embed.shape[1]):
        raise ValueError(
            f"weight shapes {tuple(w_ih.shape)} and {tuple(w_hh.shape)} are not an LSTM's "
            f"(4H x E and 4H x H, here H = {hidden}, E = {embed.shape[1]})"
        )
    return LstmWeights(embed=embed, w_ih=w_ih, w_hh=w_hh, bias=b_ih + b_hh)


def read_lstm_weights(path: str | Path) -> LstmWeights:
    """The weights of a saved ``model.pt`` (a state dict), read without building a model."""
    return lstm_weights(torch.load(Path(path), map_location="cpu", weights_only=True))


def input_projection(w: LstmWeights, tokens: torch.Tensor) -> torch.Tensor:
    """``W_ih x_t + b_ih + b_hh`` at every position, (B, T, 4H)."""
    return w.embed[tokens] @ w.w_ih.T + w.bias


def lstm_step(w: LstmWeights, x_proj: torch.Tensor, h: torch.Tensor, c: torch.Tensor):
    """One step of the LSTM equations: ``(h, c, (i, f, g, o))`` after reading ``x_proj``."""
    pre = x_proj + h @ w.w_hh.T
    n = w.hidden
    i = torch.sigmoid(pre[..., :n])
    f = torch.sigmoid(pre[..., n : 2 * n])
    g = torch.tanh(pre[..., 2 * n : 3 * n])
    o = torch.sigmoid(pre[..., 3 * n :])
    c = f * c + i * g
    return o * torch.tanh(c), c, (i, f, g, o)


def run_lstm(w: LstmWeights, tokens: torch.Tensor) -> dict[str, torch.Tensor]:
    """Every gate and state (B, T, H) of the lines ``tokens`` (B, T) from a zero state;
    position t holds what produced h_t from character t."""
    x_proj = input_projection(w, tokens)
    h = c = x_proj.new_zeros(tokens.shape[0], w.hidden)
    out = {name: [] for name in ("i", "f", "g", "o", "c", "h")}
    for t in range(tokens.shape[1]):
        h, c, gates = lstm_step(w, x_proj[:, t], h, c)
        for name, value in zip("ifgo", gates, strict=True):
            out[name].append(value)
        out["c"].append(c)
        out["h"].append(h)
    return {name: torch.stack(values, dim=1) for name, values in out.items()}


# ------------------------------------------------------------------ the curves


def change_character(tokens: torch.Tensor, vocab_size: int, position: int) -> torch.Tensor:
    """The probe lines with character ``position`` of each replaced by the next id."""
    if not 0 <= position < tokens.shape[1]:
        raise ValueError(f"position {position} is outside lines of {tokens.shape[1]} characters")
    changed = tokens.clone()
    changed[:, position] = (changed[:, position] + 1) % vocab_size
    return changed


def mean_norm_curve(norms: np.ndarray) -> np.ndarray:
    """(lines, k) norms -> the mean over lines at each k over the mean at k = 0."""
    mean = np.asarray(norms, dtype=np.float64).mean(axis=0)
    return mean / mean[0]


def first_half_crossing(curve, level: float = 0.5) -> float:
    """Steps until ``curve`` first reaches ``level``, linear in log(curve) between the
    two steps around it; NaN if it never does."""
    values = np.asarray(curve, dtype=np.float64)
    for k in range(len(values)):
        if values[k] <= level:
            if k == 0:
                return 0.0
            if values[k] <= 0.0:
                return float(k)
            ln = exact_math.log
            fraction = ln(values[k - 1] / level) / ln(values[k - 1] / values[k])
            return float(k - 1 + fraction)
    return float("nan")


def perturbation_curves(
    w: LstmWeights, tokens: torch.Tensor, position: int, steps: int
) -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, torch.Tensor]]:
    """The h, c and forget-alone curves (k = 0..steps) of one changed character, the
    k = 0 differences of h and c (mean over lines of the norm), and the original run."""
    if position + steps >= tokens.shape[1]:
        raise ValueError(
            f"following a change at {position} for {steps} steps needs lines of more than "
            f"{position + steps} characters, not {tokens.shape[1]}"
        )
    original = run_lstm(w, tokens)
    changed = run_lstm(w, change_character(tokens, w.vocab_size, position))
    window = slice(position, position + steps + 1)
    norms = {
        name: torch.linalg.vector_norm(changed[name][:, window] - original[name][:, window], dim=-1).numpy()
        for name in ("h", "c")
    }
    first = (changed["c"][:, position] - original["c"][:, position]).numpy()  # (B, H)
    kept = np.cumprod(original["f"][:, position + 1 : position + steps + 1].numpy(), axis=1)
    alone = np.concatenate([first[:, None], first[:, None] * kept], axis=1)
    norms["forget_alone"] = np.linalg.norm(alone, axis=-1)
    curves = {name: mean_norm_curve(value) for name, value in norms.items()}
    first_norms = {name: float(norms[name][:, 0].mean()) for name in ("h", "c")}
    return curves, first_norms, original


def state_jacobian_curves(
    w: LstmWeights, tokens: torch.Tensor, original: Mapping[str, torch.Tensor], position: int, steps: int,
    lines: int | None = None,
) -> dict[str, np.ndarray]:  # fmt: skip
    """RMS gains ``||J||_F / sqrt(H)`` (mean over the first ``lines`` lines), k = 0..steps,
    of the blocks ``d h_{p+k} / d h_p``, ``d c_{p+k} / d c_p`` and ``d h_{p+k} / d c_p`` of
    the state Jacobian, by forward-mode autograd through :func:`lstm_step` from the
    original run's state (h_p, c_p). At k = 0 the state is its own input, so the first
    two blocks are the identity (gain 1) and the third is zero."""
    n = w.hidden
    x_proj = input_projection(w, tokens)[:, position + 1 : position + steps + 1]

    def follow(state: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
        h, c = state[:n], state[n:]
        states = [state]
        for k in range(steps):
            h, c, _ = lstm_step(w, inputs[k], h, c)
            states.append(torch.cat([h, c]))
        return torch.stack(states)  # (steps + 1, 2H)

    jacobian = torch.func.jacfwd(follow)
    blocks = {"h_from_h": (slice(0, n), slice(0, n)), "c_from_c": (slice(n, None), slice(n, None)),
              "h_from_c": (slice(0, n), slice(n, None))}  # fmt: skip
    gains = {name: [] for name in blocks}
    for line in range(tokens.shape[0] if lines is None else min(lines, tokens.shape[0])):
        start = torch.cat([original["h"][line, position], original["c"][line, position]])
        j = jacobian(start, x_proj[line])  # (steps + 1, 2H out, 2H in)
        for name, (rows, cols) in blocks.items():
            gains[name].append(torch.linalg.matrix_norm(j[:, rows, cols]).numpy() / math.sqrt(n))
    return {name: np.mean(value, axis=0) for name, value in gains.items()}


def gradient_reach64(w: LstmWeights, tokens: torch.Tensor) -> dict[str, float]:
    """d(sum over lines and units of the last h)/d(embedding at t), float64 reverse mode:
    the L2 norm over lines and features per step, the first over the last, and the steps
    back from the end until it first halves."""
    embedded = w.embed[tokens].clone().requires_grad_(True)
    x_proj = embedded @ w.w_ih.T + w.bias
    h = c = x_proj.new_zeros(tokens.shape[0], w.hidden)
    for t in range(tokens.shape[1]):
        h, c, _ = lstm_step(w, x_proj[:, t], h, c)
    (grad,) = torch.autograd.grad(h.sum(), embedded)
    norms = torch.linalg.vector_norm(grad, dim=(0, 2)).numpy()
    back = norms[::-1] / norms[-1]
    return {"first_over_last": float(back[-1]), "half_distance": first_half_crossing(back)}


# ------------------------------------------------------------------ the gates


def unit_half_life(mean_f: np.ndarray) -> np.ndarray:
    """``-ln 2 / ln f`` per unit: the steps a constant forget gate f takes to halve the cell."""
    mean_f = np.asarray(mean_f, dtype=np.float64)
    inside = (mean_f > 0.0) & (mean_f < 1.0)
    lives = -exact_math.log(2.0) / exact_math.log(
        np.where(inside, mean_f, 0.5)
    )  # 0.5: any f with a finite log
    return np.where(mean_f >= 1.0, np.inf, np.where(mean_f <= 0.0, 0.0, lives))


def gate_statistics(w: LstmWeights, run: Mapping[str, torch.Tensor]) -> dict[str, float]:
    """The trained forget, input and output gates and the cell state on the probe run."""
    f = run["f"].numpy()
    unit_f = f.reshape(-1, f.shape[-1]).mean(axis=0)
    lives = unit_half_life(unit_f)
    open_units = unit_f > OPEN_FORGET
    c = run["c"].numpy()
    tanh_c = torch.tanh(run["c"]).numpy()  # the training's own kernel, under the numerics pin
    return {
        "f_mean": float(f.mean()),
        "f_open_unit_share": float(open_units.mean()),
        "f_unit_half_life_median": float(np.median(lives)),
        "f_unit_half_life_p90": float(np.percentile(lives, 90)),
        "f_mean_half_life": float(unit_half_life(np.array(f.mean()))),
        "forget_bias_trained_mean": float(w.forget_bias().mean()),
        "i_mean": float(run["i"].numpy().mean()),
        "o_mean": float(run["o"].numpy().mean()),
        "c_abs_mean": float(np.abs(c).mean()),
        "c_saturated_share": float((np.abs(c) > SATURATION).mean()),
        # the units that hold a change: is their cell state readable through tanh?
        "open_unit_c_saturated_share": float((np.abs(c[..., open_units]) > SATURATION).mean())
        if open_units.any()
        else float("nan"),
        "c_to_h_gain_mean": float((run["o"].numpy() * (1.0 - tanh_c**2)).mean()),
    }


# ------------------------------------------------------------------ one model


def memory_check(
    w: LstmWeights, tokens: torch.Tensor, position: int, steps: int, jacobian_lines: int | None = None
) -> dict[str, float]:
    """Every measure of one model on the probe lines ``tokens`` (B, T): half-lives of
    each curve (``*_half_life``), the k = 0 differences, the float64 gradient reach and
    :func:`gate_statistics`. ``jacobian_lines`` limits the Jacobian to the first lines
    (None: all; 0: skip it)."""
    tokens = torch.as_tensor(tokens, dtype=torch.long)
    if tokens.dim() != 2:
        raise ValueError(f"tokens must be (lines, characters), not {tuple(tokens.shape)}")
    if int(tokens.min()) < 0 or int(tokens.max()) >= w.vocab_size:
        raise ValueError(f"token ids outside the model's vocabulary of {w.vocab_size}")
    with torch.no_grad():
        curves, first_norms, original = perturbation_curves(w, tokens, position, steps)
    row = {f"{name}_half_life": first_half_crossing(curves[name]) for name in ("h", "c", "forget_alone")}
    row |= {"h_curve_k1": float(curves["h"][1]), "c_curve_k1": float(curves["c"][1])}
    row |= {"dh0_norm": first_norms["h"], "dc0_norm": first_norms["c"]}
    # the cell state grows along a line from its zero start: its size where the change is made
    row["c_abs_mean_at_change"] = float(original["c"][:, position].abs().mean())
    if jacobian_lines != 0:
        gains = state_jacobian_curves(w, tokens, original, position, steps, jacobian_lines)
        row |= {
            "jac_h_from_h_half_life": first_half_crossing(gains["h_from_h"]),
            "jac_c_from_c_half_life": first_half_crossing(gains["c_from_c"]),
            "jac_h_from_c_rms_k1": float(gains["h_from_c"][1]),
            "jac_h_from_c_rms_end": float(gains["h_from_c"][-1]),
            "jac_c_from_c_rms_end": float(gains["c_from_c"][-1]),
        }
    row |= {f"grad64_{key}": value for key, value in gradient_reach64(w, tokens).items()}
    return row | gate_statistics(w, original)
