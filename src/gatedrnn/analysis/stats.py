"""Statistics of trained gates and of how long a recurrent state holds a change.

Gate arrays are ``(batch, time, units)`` as returned by
:func:`gatedrnn.analysis.gates.extract_gates` on the probe set (32 lines x 128 characters).
Arrays in, numbers out: numpy and pandas only, no torch, so the tables that read saved
gates (:mod:`gatedrnn.analysis.gate_files`) start without it. The measures that rerun
or differentiate a model (C4, E1, E3) are :mod:`gatedrnn.analysis.perturbation`, which
reduces its runs with the functions below.

Choices fixed here (the README repeats them):

- Percentiles use numpy's default (linear interpolation between order
  statistics) over all values of a gate, pooled over lines, positions and units.
- Per-unit statistics use each unit's mean gate over all probe positions; a
  unit's half-life is ``half_life(mean gate)`` (the study's convention), never
  the mean of per-position half-lives.
- Perturbation (C4, E1, E3): each probe line has ONE character changed, at
  position ``CHANGE_POSITION`` (= 64, the middle of the 128-character line: 64
  characters of context before, 63 after), to the next character of the sorted
  vocabulary, ``(id + 1) mod V`` (always a different character). Both texts are
  run from a zero state. The difference at a step is the L2 norm over units of
  the state difference, per line; the curve is the mean over lines of that norm
  at ``k`` steps after the change divided by the mean over lines at ``k = 0``
  (the state right after reading the changed character), for k = 0..32.
- The perturbation runs use a float64 copy of the (float32) trained weights by
  default (``float64=True``): the difference of two float32 runs carries
  rounding of about 1e-7 of the state, which would otherwise be the floor of
  fast-decaying curves. Gate statistics use the float32 gates as extracted.
- "Forget gate alone" rolls the first cell-state difference forward multiplying
  only by the ORIGINAL run's forget gates: ``dc_{p+k} = dc_p * f_{p+1} ... f_{p+k}``.
- Half-life of a decay curve: the steps until it first falls to 0.5,
  interpolated linearly in log(curve) between the two bracketing steps; NaN if
  it never does within the curve.
- Gradient reach (E3, as in B1): :func:`gatedrnn.analysis.reach.char_model_gradient_reach`
  with ``output="hidden"``: d(sum over the batch and units of the last hidden
  state)/d(character embedding at step t), L2 norm over batch and embedding
  features, for every step of the window; summarised relative to the last step
  by :func:`gradient_reach_summary`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gatedrnn.core import exact_math

PERCENTILES = (5, 25, 50, 75, 95)
CHANGE_POSITION = 64
CHANGE_SHIFT = 1
DECAY_STEPS = 32
COUPLING_BINS = 24
LONG_HALF_LIFE = 10.0


# --------------------------------------------------------------------------- gates


def half_life(a):
    """Steps for a constant per-step factor ``a`` in (0, 1) to reach one half:
    ``ln(0.5) / ln(a)``. ``a >= 1`` gives inf, ``a <= 0`` gives 0. Vectorised."""
    a = np.asarray(a, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = exact_math.log(0.5) / exact_math.log(a)
    out = np.where(a >= 1.0, np.inf, out)
    out = np.where(a <= 0.0, 0.0, out)
    return out if out.ndim else float(out)


def gate_summary(values, percentiles=PERCENTILES) -> dict[str, float]:
    """Mean and percentiles of all values of one gate (pooled over every axis)."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    summary = {"values": int(flat.size), "mean": float(flat.mean())}
    for q, v in zip(percentiles, np.percentile(flat, percentiles), strict=True):
        summary[f"p{q}"] = float(v)
    return summary


def gate_summary_table(gates: dict[str, np.ndarray], names) -> pd.DataFrame:
    """One row per gate name (C2: i, f, o; D1: z, r): values, mean, p5 .. p95."""
    return pd.DataFrame([{"gate": name, **gate_summary(gates[name])} for name in names])


def unit_means(gate: np.ndarray) -> np.ndarray:
    """Each unit's mean gate over all positions (all axes but the last)."""
    gate = np.asarray(gate, dtype=np.float64)
    return gate.reshape(-1, gate.shape[-1]).mean(axis=0)


def unit_half_lives(gate: np.ndarray) -> np.ndarray:
    """Per-unit half-life from each unit's mean gate (LSTM f; PyTorch GRU z, the kept fraction)."""
    return half_life(unit_means(gate))


def unit_gate_summary(gate: np.ndarray, long_half_life: float = LONG_HALF_LIFE) -> dict:
    """C3 / D5: spread of the per-unit mean gate and of the implied half-lives.

    ``units_below_half``: units whose mean gate is below 0.5;
    ``units_half_life_ge_<n>``: units holding half of a change for ``n`` steps or more.
    """
    means = unit_means(gate)
    lives = half_life(means)
    p5, p95 = np.percentile(means, [5, 95])
    return {
        "units": int(means.size),
        "mean_min": float(means.min()),
        "mean_p5": float(p5),
        "mean_median": float(np.median(means)),
        "mean_p95": float(p95),
        "mean_max": float(means.max()),
        "half_life_min": float(lives.min()),
        "half_life_median": float(np.median(lives)),
        "half_life_max": float(lives.max()),
        "units_below_half": int((means < 0.5).sum()),
        f"units_half_life_ge_{long_half_life:g}": int((lives >= long_half_life).sum()),
    }


def char_class(char: str) -> str:
    """The C5 classes of the character being read: space, newline, other."""
    return {" ": "space", "\n": "newline"}.get(char, "other")


def gate_by_char(gate: np.ndarray, lines: list[str]) -> pd.DataFrame:
    """C5: mean gate (over units and positions) by the class of the character read.

    Position ``t`` of line ``b`` reads ``lines[b][t]``; its gate is ``gate[b, t]``.
    Columns: ``char_class`` (space, newline, other), ``mean``, ``positions``.
    """
    gate = np.asarray(gate, dtype=np.float64)
    if gate.shape[:2] != (len(lines), len(lines[0])) or any(len(s) != gate.shape[1] for s in lines):
        raise ValueError(f"gate shape {gate.shape} does not match the text lines")
    per_position = gate.mean(axis=-1).ravel()
    classes = np.array([char_class(c) for line in lines for c in line])
    rows = []
    for name in ("space", "newline", "other"):
        mask = classes == name
        mean = float(per_position[mask].mean()) if mask.any() else float("nan")
        rows.append({"char_class": name, "mean": mean, "positions": int(mask.sum())})
    return pd.DataFrame(rows)


def _pearson(x: np.ndarray, y: np.ndarray, axis=None):
    x = x - x.mean(axis=axis, keepdims=True)
    y = y - y.mean(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (x * y).sum(axis=axis) / np.sqrt((x * x).sum(axis=axis) * (y * y).sum(axis=axis))


def coupling_histogram(i: np.ndarray, f: np.ndarray, bins: int = COUPLING_BINS):
    """The ``bins x bins`` histogram of (1 - f, i) on [0, 1]^2 as mass fractions.

    Returns ``(mass, edges)``: ``mass[a, b]`` is the fraction of values with
    1 - f in bin a and i in bin b (rows: 1 - f, columns: i); ``edges`` the
    shared bin edges. Values equal to 1 fall in the last bin.
    """
    x = 1.0 - np.asarray(f, dtype=np.float64).ravel()
    y = np.asarray(i, dtype=np.float64).ravel()
    counts, edges, _ = np.histogram2d(x, y, bins=bins, range=[[0.0, 1.0], [0.0, 1.0]])
    return counts / counts.sum(), edges


def histogram_departure(mass: np.ndarray) -> float:
    """Largest |P(a, b) - P(a) P(b)| over cells, as a fraction of the total mass."""
    mass = mass / mass.sum()
    product = np.outer(mass.sum(axis=1), mass.sum(axis=0))
    return float(np.abs(mass - product).max())


def coupling_stats(i: np.ndarray, f: np.ndarray, bins: int = COUPLING_BINS) -> dict:
    """D2: does the LSTM set i = 1 - f?

    ``corr_all``: Pearson correlation of i with 1 - f over all values;
    ``unit_corr_*``: the same per unit over its positions (units with a constant
    gate give NaN and are left out of min/median/max/count); ``mean_i_plus_f``
    (1 if coupled); ``hist_max_departure``: :func:`histogram_departure` of
    :func:`coupling_histogram`.
    """
    i = np.asarray(i, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    if i.shape != f.shape:
        raise ValueError(f"i {i.shape} and f {f.shape} differ in shape")
    units = i.shape[-1]
    i_units = i.reshape(-1, units)
    kept_units = 1.0 - f.reshape(-1, units)
    per_unit = _pearson(i_units, kept_units, axis=0)
    finite = per_unit[np.isfinite(per_unit)]
    mass, _ = coupling_histogram(i, f, bins)
    return {
        "values": int(i.size),
        "units": int(units),
        "corr_all": float(_pearson(i.ravel(), 1.0 - f.ravel())),
        "unit_corr_min": float(finite.min()) if finite.size else float("nan"),
        "unit_corr_median": float(np.median(finite)) if finite.size else float("nan"),
        "unit_corr_max": float(finite.max()) if finite.size else float("nan"),
        "units_corr_above_0.5": int((finite > 0.5).sum()),
        "mean_i_plus_f": float((i + f).mean()),
        "hist_max_departure": histogram_departure(mass),
    }


# --------------------------------------------------------------- perturbation decay


def difference_norms(
    original: np.ndarray, changed: np.ndarray, position: int, steps: int = DECAY_STEPS
) -> np.ndarray:
    """L2 norm over units of ``changed - original`` at positions ``position + k``,
    k = 0..steps, per line: shape (B, steps + 1)."""
    if position + steps >= original.shape[1]:
        raise ValueError(f"{steps} steps after position {position} run past {original.shape[1]}")
    window = slice(position, position + steps + 1)
    delta = np.asarray(changed[:, window], np.float64) - np.asarray(original[:, window], np.float64)
    return np.linalg.norm(delta, axis=-1)


def relative_curve(norms: np.ndarray) -> np.ndarray:
    """Mean over lines of the norm at each k, divided by the mean over lines at k = 0."""
    mean = np.asarray(norms, dtype=np.float64).mean(axis=0)
    return mean / mean[0]


def curve_half_life(curve, level: float = 0.5) -> float:
    """Steps until ``curve`` (index = steps, curve[0] = 1) first falls to ``level``,
    interpolated linearly in log(curve) between the bracketing steps; NaN if never."""
    curve = np.asarray(curve, dtype=np.float64)
    below = np.nonzero(curve <= level)[0]
    if below.size == 0:
        return float("nan")
    k = int(below[0])
    if k == 0:
        return 0.0
    before, after = curve[k - 1], curve[k]
    if after <= 0.0:
        return float(k)  # the log is unbounded below; the crossing is at most k
    ln = exact_math.log
    return float(k - 1 + (ln(before) - ln(level)) / (ln(before) - ln(after)))


# ------------------------------------------------------------------ gradient reach


def gradient_reach_summary(norms: np.ndarray) -> dict:
    """Gradient reach relative to the last step: ``first_over_last`` (window start
    against its end), ``log10_first_over_last``, and ``half_distance``: steps back
    from the end until the relative gradient first falls to 0.5 (interpolated,
    NaN if it never does within the window)."""
    norms = np.asarray(norms, dtype=np.float64)
    relative_back = norms[::-1] / norms[-1]  # index = steps back from the last input
    return {
        "first_over_last": float(relative_back[-1]),
        "log10_first_over_last": float(exact_math.log10(relative_back[-1])),
        "half_distance": curve_half_life(relative_back),
    }
