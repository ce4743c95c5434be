"""A1-A5 against independent computations (other closed forms, PyTorch's own cells)."""

from __future__ import annotations

import csv
import math

import numpy as np
import pandas as pd
import pytest
import torch

from gatedrnn.analysis import closed_form as cf

RTOL = 1e-13


def logistic(v: float) -> float:
    """Scalar logistic written through tanh, unlike the module's exp form."""
    return 0.5 * (1.0 + math.tanh(0.5 * v))


def dot(row, vec) -> float:
    return math.fsum(a * b for a, b in zip(row, vec, strict=True))


# ---------------------------------------------------------------- A1, A2


def test_highway_matches_exp_log():
    df = cf.highway()
    assert list(df.columns) == ["distance", "factor_0.5", "forget_0.9", "forget_0.99"]
    assert df["distance"].tolist() == [1, 10, 47, 100, 500]
    for column, a in (("factor_0.5", 0.5), ("forget_0.9", 0.9), ("forget_0.99", 0.99)):
        for tau, value in zip(df["distance"], df[column], strict=True):
            assert value == pytest.approx(math.exp(tau * math.log(a)), rel=1e-12)
    # powers of one half are exact in binary floating point
    assert df["factor_0.5"].tolist() == [math.ldexp(1.0, -int(t)) for t in df["distance"]]


def test_forget_bias_init_matches_torch_sigmoid():
    df = cf.forget_bias_init()
    assert list(df.columns) == ["forget_bias", "sigmoid", "after_10", "after_47", "after_100"]
    assert df["forget_bias"].tolist() == [0, 1, 2, 3, 5]
    b = torch.tensor(df["forget_bias"].to_numpy(), dtype=torch.float64)
    f = torch.sigmoid(b)
    np.testing.assert_allclose(df["sigmoid"], f.numpy(), rtol=RTOL)
    for n in (10, 47, 100):
        # repeated multiplication rather than a power
        expected = torch.ones_like(f)
        for _ in range(n):
            expected = expected * f
        np.testing.assert_allclose(df[f"after_{n}"], expected.numpy(), rtol=1e-12)
    # b = 0: sigmoid is exactly one half, so A2's first row is A1's factor 0.5
    hw = cf.highway().set_index("distance")
    assert df.loc[0, "after_47"] == hw.loc[47, "factor_0.5"]
    assert df.loc[0, "after_100"] == hw.loc[100, "factor_0.5"]


# ---------------------------------------------------------------- A3


def _long_to_dict(df, cell):
    rows = df[df["cell"] == cell]
    out = {}
    for quantity, unit, value in zip(rows["quantity"], rows["unit"], rows["value"], strict=True):
        out.setdefault(quantity, [None, None])[unit] = value
    return {k: np.array(v, dtype=np.float64) for k, v in out.items()}


def test_cell_step_example_layout():
    df = cf.cell_step_example()
    assert list(df.columns) == ["cell", "quantity", "unit", "value"]
    assert df["value"].dtype == np.float64
    lstm = df[df["cell"] == "lstm"]
    gru = df[df["cell"] == "gru"]
    assert list(dict.fromkeys(lstm["quantity"])) == [
        "forget",
        "input",
        "candidate",
        "output",
        "kept",
        "added",
        "cell",
        "hidden",
    ]
    assert list(dict.fromkeys(gru["quantity"])) == ["update", "reset", "candidate", "hidden"]
    assert sorted(set(df["unit"])) == [0, 1]
    assert len(df) == 2 * (8 + 4)


def test_lstm_step_matches_torch_lstmcell():
    table = _long_to_dict(cf.cell_step_example(), "lstm")
    W = {k: torch.tensor(v, dtype=torch.float64) for k, v in cf.STEP_WEIGHTS.items()}
    cell = torch.nn.LSTMCell(2, 2, dtype=torch.float64)
    # PyTorch rows: input i, forget f, candidate g, output o; columns of q = [h, x]
    stacked = torch.cat([W["W_i"], W["W_f"], W["W_c"], W["W_o"]])
    with torch.no_grad():
        cell.weight_hh.copy_(stacked[:, :2])
        cell.weight_ih.copy_(stacked[:, 2:])
        cell.bias_hh.zero_()
        cell.bias_ih.copy_(torch.tensor([0, 0, 1, 1, 0, 0, 0, 0], dtype=torch.float64))
    h0 = torch.tensor([list(cf.STEP_H_PREV)], dtype=torch.float64)
    c0 = torch.tensor([list(cf.STEP_C_PREV)], dtype=torch.float64)
    x = torch.tensor([list(cf.STEP_X)], dtype=torch.float64)
    with torch.no_grad():
        h1, c1 = cell(x, (h0, c0))
    np.testing.assert_allclose(table["hidden"], h1[0].numpy(), rtol=RTOL)
    np.testing.assert_allclose(table["cell"], c1[0].numpy(), rtol=RTOL)


def test_lstm_gates_scalar_reference():
    table = _long_to_dict(cf.cell_step_example(), "lstm")
    q = list(cf.STEP_H_PREV) + list(cf.STEP_X)
    W = cf.STEP_WEIGHTS
    for j in range(2):
        f = logistic(dot(W["W_f"][j], q) + 1.0)
        i = logistic(dot(W["W_i"][j], q))
        g = math.tanh(dot(W["W_c"][j], q))
        o = logistic(dot(W["W_o"][j], q))
        c = f * cf.STEP_C_PREV[j] + i * g
        expected = {
            "forget": f,
            "input": i,
            "candidate": g,
            "output": o,
            "kept": f * cf.STEP_C_PREV[j],
            "added": i * g,
            "cell": c,
            "hidden": o * math.tanh(c),
        }
        for name, value in expected.items():
            assert table[name][j] == pytest.approx(value, rel=RTOL), (name, j)
    # the split is exact: kept + added is the cell
    assert np.array_equal(table["kept"] + table["added"], table["cell"])


def test_gru_textbook_step_scalar_reference():
    table = _long_to_dict(cf.cell_step_example(), "gru")
    h = cf.STEP_H_PREV
    x = cf.STEP_X
    q = list(h) + list(x)
    W = cf.STEP_WEIGHTS
    z = [logistic(dot(W["W_f"][j], q)) for j in range(2)]
    r = [logistic(dot(W["W_i"][j], q)) for j in range(2)]
    q_reset = [r[0] * h[0], r[1] * h[1], x[0], x[1]]
    n = [math.tanh(dot(W["W_c"][j], q_reset)) for j in range(2)]
    new = [h[j] + z[j] * (n[j] - h[j]) for j in range(2)]  # = (1 - z) h + z n
    for name, values in (("update", z), ("reset", r), ("candidate", n), ("hidden", new)):
        np.testing.assert_allclose(table[name], values, rtol=RTOL, err_msg=name)


def test_gru_textbook_step_via_torch_grucell():
    """PyTorch's GRUCell reproduces the textbook step once the conventions are mapped.

    Update: PyTorch's z keeps, the textbook's writes, so PyTorch's update rows are
    the negated W_f (sigmoid(-a) = 1 - sigmoid(a)). Reset: PyTorch applies r after
    the matrix, r_j (M h)_j; the textbook before, (W (r * h))_j. For this one
    input the two agree with M_jk = W_jk r_k / r_j (r from PyTorch's own sigmoid).
    """
    table = _long_to_dict(cf.cell_step_example(), "gru")
    W = {k: torch.tensor(v, dtype=torch.float64) for k, v in cf.STEP_WEIGHTS.items()}
    h0 = torch.tensor(cf.STEP_H_PREV, dtype=torch.float64)
    x = torch.tensor(cf.STEP_X, dtype=torch.float64)
    r = torch.sigmoid(W["W_i"] @ torch.cat([h0, x]))
    Wc_h = W["W_c"][:, :2]
    M = Wc_h * r[None, :] / r[:, None]
    cell = torch.nn.GRUCell(2, 2, dtype=torch.float64)
    with torch.no_grad():
        # PyTorch chunks: reset r, update z, candidate n
        cell.weight_hh.copy_(torch.cat([W["W_i"][:, :2], -W["W_f"][:, :2], M]))
        cell.weight_ih.copy_(torch.cat([W["W_i"][:, 2:], -W["W_f"][:, 2:], W["W_c"][:, 2:]]))
        cell.bias_ih.zero_()
        cell.bias_hh.zero_()
        h1 = cell(x[None], h0[None])[0]
    np.testing.assert_allclose(table["hidden"], h1.numpy(), rtol=1e-12)


# ---------------------------------------------------------------- A4


@pytest.mark.parametrize("d,H", [(100, 500), (3, 7)])
def test_param_counts_match_torch_modules(d, H):
    df = cf.param_counts(d, H).set_index("model")
    assert list(df.index) == ["rnn", "gru", "lstm"]
    for model, cls in (("rnn", torch.nn.RNN), ("gru", torch.nn.GRU), ("lstm", torch.nn.LSTM)):
        with torch.device("meta"):
            torch_count = sum(p.numel() for p in cls(d, H).parameters())
            no_bias = sum(p.numel() for p in cls(d, H, bias=False).parameters())
        gates = df.loc[model, "gates"]
        assert df.loc[model, "params_pytorch"] == torch_count
        assert df.loc[model, "params_one_bias"] == no_bias + gates * H
    rnn = df.loc["rnn"]
    for model in df.index:
        row = df.loc[model]
        assert row["ratio_to_rnn_one_bias"] == row["params_one_bias"] / rnn["params_one_bias"]
        assert row["ratio_to_rnn_pytorch"] == row["params_pytorch"] / rnn["params_pytorch"]


def test_param_counts_spec_values():
    df = cf.param_counts().set_index("model")
    assert df["params_per_gate_one_bias"].tolist() == [300_500] * 3
    assert df["params_one_bias"].tolist() == [300_500, 901_500, 1_202_000]
    assert df["params_pytorch"].tolist() == [301_000, 903_000, 1_204_000]
    assert df["ratio_to_rnn_one_bias"].tolist() == [1.0, 3.0, 4.0]


# ---------------------------------------------------------------- A5


def test_gru_reset_placement_example():
    df = cf.gru_reset_placement()
    assert list(df.columns) == ["quantity", "unit", "reset_before", "reset_after"]
    assert list(dict.fromkeys(df["quantity"])) == ["reset", "update", "candidate", "hidden"]
    t = {(q, u): (b, a) for q, u, b, a in df.itertuples(index=False)}
    # r = sigmoid(+-ln 3) = 3/4, 1/4; z = 1/2; W swaps the two units
    for u, r in ((0, 0.75), (1, 0.25)):
        assert t[("reset", u)] == pytest.approx((r, r), rel=RTOL)
        assert t[("update", u)] == (0.5, 0.5)
    h = (0.5, -0.5)
    before = (math.tanh(0.25 * h[1]), math.tanh(0.75 * h[0]))  # W (r * h)
    after = (math.tanh(0.75 * h[1]), math.tanh(0.25 * h[0]))  # r * (W h)
    for u in range(2):
        assert t[("candidate", u)] == pytest.approx((before[u], after[u]), rel=RTOL)
        expected = (0.5 * before[u] + 0.5 * h[u], 0.5 * after[u] + 0.5 * h[u])
        assert t[("hidden", u)] == pytest.approx(expected, rel=RTOL)
    # the two placements really give different states here
    assert abs(t[("hidden", 0)][0] - t[("hidden", 0)][1]) > 0.1


def test_gru_reset_placement_against_torch_grucell():
    """PyTorch's GRUCell (reset after the matrix) matches the ``reset_after`` column."""
    df = cf.gru_reset_placement()
    after = df[df["quantity"] == "hidden"]["reset_after"].to_numpy()
    cell = torch.nn.GRUCell(1, 2, dtype=torch.float64)
    W = torch.tensor(cf.RESET_W, dtype=torch.float64)
    with torch.no_grad():
        cell.weight_ih.zero_()
        cell.weight_hh.copy_(torch.cat([torch.zeros(4, 2, dtype=torch.float64), W]))
        cell.bias_hh.zero_()
        cell.bias_ih.copy_(torch.tensor([math.log(3), -math.log(3), 0, 0, 0, 0], dtype=torch.float64))
        h1 = cell(torch.zeros(1, 1, dtype=torch.float64), torch.tensor([[0.5, -0.5]], dtype=torch.float64))
    np.testing.assert_allclose(after, h1[0].numpy(), rtol=RTOL)


def test_agreement_condition_both_directions():
    rng = np.random.default_rng(1)
    # holds: block structure, equal resets inside a block
    r = np.array([0.3, 0.3, 0.8])
    W = np.array([[1.0, -2.0, 0.0], [0.5, 0.2, 0.0], [0.0, 0.0, 3.0]])
    assert cf.agreement_condition(W, r)
    for _ in range(50):
        h = rng.normal(size=3)
        np.testing.assert_allclose(
            cf.gru_candidate(W, h, r, "before"), cf.gru_candidate(W, h, r, "after"), atol=1e-15
        )
    # fails: one weight joins units with different resets -> some h separates them
    W_bad = W.copy()
    W_bad[0, 2] = 0.7
    assert not cf.agreement_condition(W_bad, r)
    e2 = np.array([0.0, 0.0, 1.0])  # the separating direction: h = e_k
    diff = cf.gru_candidate(W_bad, e2, r, "before") - cf.gru_candidate(W_bad, e2, r, "after")
    # before: tanh(0.7 * 0.8), after: tanh(0.3 * 0.7) on unit 0
    assert diff[0] == pytest.approx(math.tanh(0.56) - math.tanh(0.21), rel=1e-12)
    # a recurrent bias separates them in one dimension: w r h + b vs r (w h + b)
    one = np.array([[1.5]])
    h1, r1 = np.array([0.4]), np.array([0.6])
    assert cf.agreement_condition(one, r1)
    assert cf.gru_candidate(one, h1, r1, "before") == pytest.approx(
        cf.gru_candidate(one, h1, r1, "after"), abs=1e-15
    )
    b = np.array([0.5])
    d = cf.gru_candidate(one, h1, r1, "before", b) - cf.gru_candidate(one, h1, r1, "after", b)
    assert d[0] == pytest.approx(math.tanh(0.9 * 0.4 + 0.5) - math.tanh(0.6 * (0.6 + 0.5)))


def test_gru_reset_placement_check_table():
    df = cf.gru_reset_placement_check(trials=200)
    assert list(df["case"]) == [
        "condition_holds",
        "condition_fails",
        "one_dim_zero_bias",
        "one_dim_nonzero_bias",
    ]
    t = df.set_index("case")
    assert (t["trials"] == 200).all()
    assert (t["verdict"] == t["expected"]).all()
    assert t.loc["condition_holds", "trials_condition_holds"] == 200
    assert t.loc["condition_fails", "trials_condition_holds"] == 0
    for case in ("condition_holds", "one_dim_zero_bias"):
        assert t.loc[case, "verdict"] == "agree"
        assert t.loc[case, "max_abs_diff"] < 1e-14  # rounding level
    for case in ("condition_fails", "one_dim_nonzero_bias"):
        assert t.loc[case, "verdict"] == "differ"
        assert t.loc[case, "min_abs_diff"] > 1e3 * t.loc[case, "tolerance"]
    # deterministic in its seed
    pd.testing.assert_frame_equal(df, cf.gru_reset_placement_check(trials=200))


# ---------------------------------------------------------------- CSV precision


@pytest.mark.parametrize(
    "build",
    [
        cf.highway,
        cf.forget_bias_init,
        cf.cell_step_example,
        cf.param_counts,
        cf.gru_reset_placement,
        lambda: cf.gru_reset_placement_check(trials=20),
    ],
)
def test_csv_round_trip_is_exact(build, tmp_path):
    df = build()
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False, float_format=None)
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        assert next(reader) == list(df.columns)
        cells = list(reader)
    assert len(cells) == len(df)
    for j, column in enumerate(df.columns):
        if df[column].dtype == np.float64:
            parsed = np.array([float(row[j]) for row in cells], dtype=np.float64)
            assert np.array_equal(parsed, df[column].to_numpy()), column
    back = pd.read_csv(path)
    pd.testing.assert_frame_equal(back, df, check_exact=True, check_dtype=False)


def test_highway_figure_is_byte_stable(tmp_path):
    from gatedrnn.report.study import plot_highway

    paths = [tmp_path / "a.png", tmp_path / "b.png"]
    for path in paths:
        plot_highway(cf.highway(), cf.forget_bias_init(), path)
    data = [p.read_bytes() for p in paths]
    assert data[0][:8] == b"\x89PNG\r\n\x1a\n"
    assert data[0] == data[1]
