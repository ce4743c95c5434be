"""Closed-form tables A1-A5: no corpus, no training, float64 throughout.

Every function returns a :class:`pandas.DataFrame` whose values are computed
(never typed in) from the protocol's parameters; the parameters are the
module-level constants below and can be overridden through the arguments.

Conventions (see the spec's "Conventions"):

- A3's GRU uses the *textbook* convention, exactly as the spec writes it:
  ``z = sigmoid(W_f q)`` is the fraction *written*, ``r = sigmoid(W_i q)``,
  the reset acts *before* the matrix, ``n = tanh(W_c [r * h_prev, x])`` and
  ``h = (1 - z) h_prev + z n``. The GRU gates carry no bias (the spec's
  ``b_f = (1, 1)`` belongs to the LSTM's forget gate).
- A5 uses PyTorch's update ``h = (1 - z) n + z h_prev`` (z = fraction kept)
  for both reset placements.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gatedrnn.core import exact_math

# --------------------------------------------------------------------------
# A1: the gradient highway
# --------------------------------------------------------------------------

HIGHWAY_DISTANCES = (1, 10, 47, 100, 500)
# column name -> constant per-step factor
HIGHWAY_FACTORS = {"factor_0.5": 0.5, "forget_0.9": 0.9, "forget_0.99": 0.99}


def highway(distances=HIGHWAY_DISTANCES, factors=None) -> pd.DataFrame:
    """A1: fraction of a gradient surviving ``distance`` steps of a constant factor.

    ``factor ** distance`` for a plain RNN's typical ``tanh' * U`` of 0.5 and
    forget gates of 0.9 and 0.99. Columns ``distance, factor_0.5, forget_0.9,
    forget_0.99``.
    """
    factors = HIGHWAY_FACTORS if factors is None else factors
    tau = np.asarray(distances, dtype=np.int64)
    table = {"distance": tau}
    for name, a in factors.items():
        table[name] = exact_math.power(a, tau)
    return pd.DataFrame(table)


# --------------------------------------------------------------------------
# A2: the forget gate at initialisation
# --------------------------------------------------------------------------

FORGET_BIASES = (0, 1, 2, 3, 5)
FORGET_POWERS = (10, 47, 100)


def sigmoid(x):
    """Logistic function in float64, stable for either sign."""
    x = np.asarray(x, dtype=np.float64)
    e = exact_math.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def forget_bias_init(biases=FORGET_BIASES, powers=FORGET_POWERS) -> pd.DataFrame:
    """A2: ``f = sigmoid(b_f)`` at initialisation and ``f ** n`` for each power n.

    Columns ``forget_bias, sigmoid, after_<n>...``.
    """
    b = np.asarray(biases, dtype=np.float64)
    f = sigmoid(b)
    table = {"forget_bias": np.asarray(biases), "sigmoid": f}
    for n in powers:
        table[f"after_{n}"] = exact_math.power(f, n)
    return pd.DataFrame(table)


# --------------------------------------------------------------------------
# A3: one LSTM step and one GRU step on two units
# --------------------------------------------------------------------------

STEP_H_PREV = (0.10, -0.20)
STEP_C_PREV = (0.50, 0.30)
STEP_X = (0.60, 0.40)
# Weight rows act on q = [h_prev, x] (length 4).
STEP_WEIGHTS = {
    "W_f": ((0.3, -0.2, 0.5, 0.1), (0.1, 0.4, -0.3, 0.2)),
    "W_i": ((-0.2, 0.3, 0.4, -0.1), (0.5, -0.1, 0.2, 0.3)),
    "W_c": ((0.4, 0.1, -0.2, 0.5), (-0.3, 0.2, 0.6, -0.1)),
    "W_o": ((0.2, 0.5, 0.1, -0.3), (0.4, -0.2, 0.3, 0.2)),
}
# LSTM biases; every other bias (and the candidate's) is zero.
STEP_BIASES = {"b_f": (1.0, 1.0), "b_i": (0.0, 0.0), "b_o": (0.0, 0.0)}

LSTM_QUANTITIES = ("forget", "input", "candidate", "output", "kept", "added", "cell", "hidden")
GRU_QUANTITIES = ("update", "reset", "candidate", "hidden")


def lstm_step(h_prev, c_prev, x, weights=None, biases=None) -> dict[str, np.ndarray]:
    """One LSTM step on ``q = [h_prev, x]``; every gate and the kept/added split of c."""
    weights = STEP_WEIGHTS if weights is None else weights
    biases = STEP_BIASES if biases is None else biases
    h_prev = np.asarray(h_prev, dtype=np.float64)
    c_prev = np.asarray(c_prev, dtype=np.float64)
    q = np.concatenate([h_prev, np.asarray(x, dtype=np.float64)])
    W = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    b = {k: np.asarray(v, dtype=np.float64) for k, v in biases.items()}
    f = sigmoid(W["W_f"] @ q + b["b_f"])
    i = sigmoid(W["W_i"] @ q + b["b_i"])
    g = exact_math.tanh(W["W_c"] @ q)
    o = sigmoid(W["W_o"] @ q + b["b_o"])
    kept = f * c_prev
    added = i * g
    c = kept + added
    h = o * exact_math.tanh(c)
    return {
        "forget": f,
        "input": i,
        "candidate": g,
        "output": o,
        "kept": kept,
        "added": added,
        "cell": c,
        "hidden": h,
    }


def gru_step_textbook(h_prev, x, weights=None) -> dict[str, np.ndarray]:
    """One textbook GRU step, reusing A3's LSTM matrices as the spec prescribes.

    ``z = sigmoid(W_f q)`` (fraction written), ``r = sigmoid(W_i q)``,
    ``n = tanh(W_c [r * h_prev, x])``, ``h = (1 - z) h_prev + z n``; no biases.
    """
    weights = STEP_WEIGHTS if weights is None else weights
    h_prev = np.asarray(h_prev, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    q = np.concatenate([h_prev, x])
    W = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    z = sigmoid(W["W_f"] @ q)
    r = sigmoid(W["W_i"] @ q)
    n = exact_math.tanh(W["W_c"] @ np.concatenate([r * h_prev, x]))
    h = (1.0 - z) * h_prev + z * n
    return {"update": z, "reset": r, "candidate": n, "hidden": h}


def cell_step_example(
    h_prev=STEP_H_PREV, c_prev=STEP_C_PREV, x=STEP_X, weights=None, biases=None
) -> pd.DataFrame:
    """A3 in long form: columns ``cell, quantity, unit, value``."""
    lstm = lstm_step(h_prev, c_prev, x, weights, biases)
    gru = gru_step_textbook(h_prev, x, weights)
    rows = []
    for cell, values, names in (("lstm", lstm, LSTM_QUANTITIES), ("gru", gru, GRU_QUANTITIES)):
        for name in names:
            for unit, value in enumerate(values[name]):
                rows.append((cell, name, unit, np.float64(value)))
    return pd.DataFrame(rows, columns=["cell", "quantity", "unit", "value"])


# --------------------------------------------------------------------------
# A4: parameter counts
# --------------------------------------------------------------------------

PARAM_INPUT_SIZE = 100
PARAM_HIDDEN_SIZE = 500
GATES = {"rnn": 1, "gru": 3, "lstm": 4}


def param_counts(input_size=PARAM_INPUT_SIZE, hidden_size=PARAM_HIDDEN_SIZE) -> pd.DataFrame:
    """A4: parameters of one recurrent layer, one bias per gate and PyTorch's two.

    One gate costs ``H (H + d) + H`` with a single bias; PyTorch stores
    ``b_ih`` and ``b_hh``, so ``H (H + d) + 2 H``. Ratios are to the plain RNN
    counted the same way.
    """
    d, H = int(input_size), int(hidden_size)
    per_gate_one = H * (H + d) + H
    per_gate_torch = H * (H + d) + 2 * H
    rows = []
    for model, gates in GATES.items():
        rows.append(
            {
                "model": model,
                "gates": gates,
                "input_size": d,
                "hidden_size": H,
                "params_per_gate_one_bias": per_gate_one,
                "params_one_bias": gates * per_gate_one,
                "params_pytorch": gates * per_gate_torch,
            }
        )
    df = pd.DataFrame(rows)
    rnn = df.set_index("model").loc["rnn"]
    df["ratio_to_rnn_one_bias"] = df["params_one_bias"] / np.float64(rnn["params_one_bias"])
    df["ratio_to_rnn_pytorch"] = df["params_pytorch"] / np.float64(rnn["params_pytorch"])
    return df


# --------------------------------------------------------------------------
# A5: where the GRU's reset gate acts
# --------------------------------------------------------------------------

RESET_W = ((0.0, 1.0), (1.0, 0.0))
RESET_H_PREV = (0.5, -0.5)
RESET_PREACT = (exact_math.log(3.0), -exact_math.log(3.0))
UPDATE_PREACT = (0.0, 0.0)

RESET_CHECK_SEED = 0
RESET_CHECK_TRIALS = 1000
RESET_CHECK_HIDDEN = 6
RESET_CHECK_TOLERANCE = 1e-12
RESET_PLACEMENTS = ("before", "after")


def gru_candidate(W, h, r, placement, b_hn=0.0, input_part=0.0):
    """The GRU candidate with the reset before or after the recurrent matrix.

    ``before`` ("Cho"): ``tanh(input_part + W (r * h) + b_hn)``;
    ``after`` (PyTorch): ``tanh(input_part + r * (W h + b_hn))``.
    """
    W = np.asarray(W, dtype=np.float64)
    h = np.asarray(h, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    if placement == "before":
        return exact_math.tanh(input_part + W @ (r * h) + b_hn)
    if placement == "after":
        return exact_math.tanh(input_part + r * (W @ h + b_hn))
    raise ValueError(f"placement must be one of {RESET_PLACEMENTS}, not {placement!r}")


def gru_update(h_prev, z, n):
    """PyTorch's update ``h = (1 - z) n + z h_prev`` (z = fraction kept)."""
    return (1.0 - z) * n + z * h_prev


def gru_reset_placement(
    W=RESET_W, h_prev=RESET_H_PREV, reset_preact=RESET_PREACT, update_preact=UPDATE_PREACT
) -> pd.DataFrame:
    """A5 example: columns ``quantity, unit, reset_before, reset_after``.

    Zero input contribution and zero candidate biases, PyTorch's update.
    """
    h_prev = np.asarray(h_prev, dtype=np.float64)
    r = sigmoid(reset_preact)
    z = sigmoid(update_preact)
    cols = {}
    for placement in RESET_PLACEMENTS:
        n = gru_candidate(W, h_prev, r, placement)
        cols[placement] = {
            "reset": r,
            "update": z,
            "candidate": n,
            "hidden": gru_update(h_prev, z, n),
        }
    rows = []
    for quantity in ("reset", "update", "candidate", "hidden"):
        for unit in range(h_prev.size):
            rows.append(
                (
                    quantity,
                    unit,
                    np.float64(cols["before"][quantity][unit]),
                    np.float64(cols["after"][quantity][unit]),
                )
            )
    return pd.DataFrame(rows, columns=["quantity", "unit", "reset_before", "reset_after"])


def agreement_condition(W, r) -> bool:
    """``W_jk r_k == r_j W_jk`` for all j, k (W commutes with diag(r)), tested exactly."""
    W = np.asarray(W, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    return bool(np.all(W * r[None, :] == r[:, None] * W))


def _trial(rng, hidden, condition, bias):
    """One random GRU step; returns (condition holds, max |h_before - h_after|)."""
    if condition:
        # Units fall into groups sharing one reset value; W joins units of a group only.
        groups = rng.integers(0, max(1, hidden // 2), size=hidden)
        r = sigmoid(rng.normal(size=hidden))[groups]
        W = rng.normal(size=(hidden, hidden)) * (groups[:, None] == groups[None, :])
    else:
        r = rng.uniform(0.05, 0.95, size=hidden)
        W = rng.normal(size=(hidden, hidden))
    h_prev = rng.uniform(-1.0, 1.0, size=hidden)
    z = rng.uniform(0.0, 1.0, size=hidden)
    input_part = rng.normal(size=hidden)
    b_hn = rng.normal(size=hidden) if bias else np.zeros(hidden)
    new = [gru_update(h_prev, z, gru_candidate(W, h_prev, r, p, b_hn, input_part)) for p in RESET_PLACEMENTS]
    return agreement_condition(W, r), float(np.max(np.abs(new[0] - new[1])))


# (case, hidden size, draw W and r so that the condition holds?, nonzero b_hn?)
RESET_CHECK_CASES = (
    ("condition_holds", RESET_CHECK_HIDDEN, True, False),
    ("condition_fails", RESET_CHECK_HIDDEN, False, False),
    ("one_dim_zero_bias", 1, True, False),
    ("one_dim_nonzero_bias", 1, True, True),
)


def gru_reset_placement_check(
    trials=RESET_CHECK_TRIALS,
    seed=RESET_CHECK_SEED,
    tolerance=RESET_CHECK_TOLERANCE,
    cases=RESET_CHECK_CASES,
) -> pd.DataFrame:
    """A5's numerical check of the agreement condition, on random GRU steps.

    Each trial draws W, r, h_prev, z, an input contribution (and b_hn where the
    case says so) from ``numpy.random.default_rng(seed)`` and compares the new
    states of the two placements. ``trials_condition_holds`` counts the trials
    whose W and r satisfy ``W_jk r_k == r_j W_jk`` exactly. ``max_abs_diff`` /
    ``min_abs_diff`` are the largest / smallest over trials of
    ``max_j |h_before_j - h_after_j|``.
    ``expected`` is the theory (agree iff the condition holds and b_hn = 0);
    ``verdict`` is what the numbers say with ``tolerance``: ``agree`` if every
    trial is within it, ``differ`` if none is, else ``mixed``.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for case, hidden, condition, bias in cases:
        held, diffs = zip(*(_trial(rng, hidden, condition, bias) for _ in range(trials)), strict=True)
        diffs = np.asarray(diffs, dtype=np.float64)
        agreeing = int(np.sum(diffs <= tolerance))
        verdict = "agree" if agreeing == trials else ("differ" if agreeing == 0 else "mixed")
        rows.append(
            {
                "case": case,
                "hidden_size": hidden,
                "trials": trials,
                "trials_condition_holds": int(sum(held)),
                "recurrent_bias": "nonzero" if bias else "zero",
                "max_abs_diff": diffs.max(),
                "min_abs_diff": diffs.min(),
                "tolerance": np.float64(tolerance),
                "trials_agreeing": agreeing,
                "expected": "agree" if condition and not bias else "differ",
                "verdict": verdict,
            }
        )
    return pd.DataFrame(rows)
