"""The independent LSTM memory check (gatedrnn.analysis.memory_check, issue #17) against
nn.LSTM, against the study's own perturbation measures, and against closed forms."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from conftest import SMOKE_CONFIG

from gatedrnn.analysis import memory_check as mc
from gatedrnn.analysis.perturbation import cell_state_decay, state_half_life, trained_model_reach
from gatedrnn.analysis.stats import CHANGE_POSITION, DECAY_STEPS, curve_half_life
from gatedrnn.core.model import CharModel, set_forget_bias
from gatedrnn.tables.memory_check import forget_bias_memory_check_table

torch.set_num_threads(1)

V, E, H = 7, 4, 5
LENGTH = CHANGE_POSITION + DECAY_STEPS + 4


def tiny_lstm(seed=0, forget_bias=None) -> CharModel:
    torch.manual_seed(seed)
    model = CharModel(V, "lstm", H, E)
    if forget_bias is not None:
        set_forget_bias(model, forget_bias)
    return model.eval()


def tokens(batch=3, length=LENGTH, seed=0) -> torch.Tensor:
    return torch.randint(0, V, (batch, length), generator=torch.Generator().manual_seed(seed))


def constant_forget_lstm(f_bias: float, recurrent: bool = False) -> CharModel:
    """A tiny LSTM whose forget gate is sigmoid(f_bias) at every step (its forget rows
    read nothing); without ``recurrent`` W_hh is zero, so nothing but f links the steps."""
    model = tiny_lstm(seed=3)
    with torch.no_grad():
        model.rnn.weight_ih_l0[H : 2 * H] = 0.0
        model.rnn.weight_hh_l0[H : 2 * H] = 0.0
        if not recurrent:
            model.rnn.weight_hh_l0.zero_()
        model.rnn.bias_ih_l0[H : 2 * H] = f_bias
        model.rnn.bias_hh_l0[H : 2 * H] = 0.0
    return model


# ------------------------------------------------------------------ the equations


@pytest.mark.parametrize("forget_bias", [None, 3.0])
def test_step_by_step_equations_match_nn_lstm_in_float64(forget_bias):
    model = tiny_lstm(seed=1, forget_bias=forget_bias).double()
    ids = tokens(batch=4, length=40, seed=2)
    with torch.no_grad():
        out, (h_n, c_n) = model.rnn(model.embed(ids))
    run = mc.run_lstm(mc.lstm_weights(model.state_dict()), ids)
    assert run["h"].dtype == torch.float64
    assert torch.allclose(run["h"], out, atol=1e-12, rtol=0)
    assert torch.allclose(run["c"][:, -1], c_n[0], atol=1e-12, rtol=0)
    assert torch.allclose(run["h"][:, -1], h_n[0], atol=1e-12, rtol=0)
    assert torch.allclose(run["o"] * torch.tanh(run["c"]), run["h"], atol=1e-15, rtol=0)


def test_float32_weights_are_read_as_float64_from_model_pt(tmp_path):
    model = tiny_lstm(seed=4)
    torch.save(model.state_dict(), tmp_path / "model.pt")
    w = mc.read_lstm_weights(tmp_path / "model.pt")
    assert w.w_hh.dtype == torch.float64 and (w.hidden, w.vocab_size) == (H, V)
    expected = (model.rnn.bias_ih_l0 + model.rnn.bias_hh_l0).double()[H : 2 * H]
    assert torch.allclose(w.forget_bias(), expected, atol=1e-7)


def test_weights_refuse_what_is_not_a_one_layer_lstm():
    with pytest.raises(ValueError, match="not an LSTM's"):
        mc.lstm_weights(CharModel(V, "gru", H, E).state_dict())
    with pytest.raises(ValueError, match=r"lacks \['embed.weight'\]"):
        mc.lstm_weights({k: v for k, v in tiny_lstm().state_dict().items() if k != "embed.weight"})
    with pytest.raises(ValueError, match="more layers"):
        mc.lstm_weights(CharModel(V, "lstm", H, E, layers=2).state_dict())
    w = mc.lstm_weights(tiny_lstm().state_dict())
    with pytest.raises(ValueError, match="outside the model's vocabulary"):
        mc.memory_check(w, tokens() + V, CHANGE_POSITION, DECAY_STEPS, jacobian_lines=0)
    with pytest.raises(ValueError, match="more than 96"):
        mc.memory_check(w, tokens(length=90), CHANGE_POSITION, DECAY_STEPS, jacobian_lines=0)


# ----------------------------------------------------------- against the study's code


def test_half_life_crossing_is_the_studys_definition():
    rng = np.random.default_rng(0)
    curves = [np.concatenate([[1.0], np.cumprod(rng.uniform(0.5, 1.0, 32))]) for _ in range(50)]
    curves += [[1.0, 0.5, 0.1], [1.0, 0.9, 0.8], [1.0, 0.0], [0.4, 0.2], [1.0, 1.2, 0.3]]
    for curve in curves:
        ours, theirs = mc.first_half_crossing(curve), curve_half_life(curve)
        assert (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("seed,forget_bias", [(0, None), (5, 3.0), (6, 1.0)])
def test_independent_measures_match_the_existing_ones(seed, forget_bias):
    model = tiny_lstm(seed=seed, forget_bias=forget_bias)
    ids = tokens(batch=4, seed=seed)
    row = mc.memory_check(mc.lstm_weights(model.state_dict()), ids, CHANGE_POSITION, DECAY_STEPS)
    existing = state_half_life(model, ids)
    assert math.isfinite(existing)
    assert row["h_half_life"] == pytest.approx(existing, abs=1e-9)
    cell = cell_state_decay(model, ids)
    for ours, theirs in (("c_half_life", "measured"), ("forget_alone_half_life", "forget_alone")):
        expected = curve_half_life(cell[theirs].to_numpy())
        assert (math.isnan(row[ours]) and math.isnan(expected)) or row[ours] == pytest.approx(
            expected, abs=1e-9
        )
    reach = trained_model_reach(model, ids)  # float32 gradient: agreement to float32 rounding
    assert row["grad64_first_over_last"] == pytest.approx(reach["first_over_last"], rel=1e-3)


# ------------------------------------------------------------------ closed forms


@pytest.mark.parametrize("f_bias", [0.0, 1.0, 3.0])
def test_constant_forget_gate_gives_the_closed_form_half_life(f_bias):
    f = 1.0 / (1.0 + math.exp(-f_bias))
    closed = -math.log(2.0) / math.log(f)
    model = constant_forget_lstm(f_bias)
    row = mc.memory_check(mc.lstm_weights(model.state_dict()), tokens(), CHANGE_POSITION, DECAY_STEPS)
    assert row["f_mean"] == pytest.approx(f, abs=1e-6)  # the float32 bias of the saved model
    for name in ("f_unit_half_life_median", "f_unit_half_life_p90", "f_mean_half_life"):
        assert row[name] == pytest.approx(closed, rel=1e-5)
    # with W_hh = 0 nothing but f carries the change: the cell, f alone and the Jacobian agree
    for name in ("c_half_life", "forget_alone_half_life", "jac_c_from_c_half_life"):
        assert row[name] == pytest.approx(closed, rel=1e-5), name
    assert row["jac_c_from_c_rms_end"] == pytest.approx(f**DECAY_STEPS, rel=1e-5)
    assert row["jac_h_from_h_half_life"] == 1.0  # h_p reaches nothing once W_hh = 0
    assert row["f_open_unit_share"] == float(f > mc.OPEN_FORGET)


def test_unit_half_life_limits():
    np.testing.assert_allclose(mc.unit_half_life(np.array([0.5, 0.25, 0.9])), [1.0, 0.5, 6.578813478960585])
    assert list(mc.unit_half_life(np.array([0.0, 1.0, 1.5]))) == [0.0, math.inf, math.inf]


def test_saturation_and_output_gate_statistics_by_hand():
    model = tiny_lstm(seed=7, forget_bias=3.0)
    w = mc.lstm_weights(model.state_dict())
    ids = tokens(seed=7)
    run = mc.run_lstm(w, ids)
    stats = mc.gate_statistics(w, run)
    c, o = run["c"].numpy(), run["o"].numpy()
    assert stats["o_mean"] == pytest.approx(o.mean())
    assert stats["c_saturated_share"] == pytest.approx((np.abs(c) > 2.0).mean())
    assert stats["c_to_h_gain_mean"] == pytest.approx((o / np.cosh(c) ** 2).mean())
    assert stats["forget_bias_trained_mean"] == pytest.approx(3.0, abs=1e-6)


# ------------------------------------------------------------------ the table


def save_sweep_model(root, regime, seed, forget_bias, cell="lstm"):
    torch.manual_seed(seed)
    model = CharModel(V, cell, H, E)
    if forget_bias is not None:
        set_forget_bias(model, forget_bias)
    directory = root / regime / f"{cell}_w5_s{seed}"
    directory.mkdir(parents=True)
    torch.save(model.state_dict(), directory / "model.pt")
    summary = {"model": f"{cell}_w5", "cell": cell, "width": H, "seed": seed, "regime": regime,
               "vocab_size": V, "best_val_loss": 1.5 + seed, "best_step": 40,
               "train_config": {"embed_dim": E, "layers": 1, "forget_bias": forget_bias,
                                "readout_norm": "layernorm"}}  # fmt: skip
    (directory / "summary.json").write_text(json.dumps(summary))
    return directory


def test_table_rows_columns_and_agreement(tmp_path):
    dirs = [
        save_sweep_model(tmp_path, r, s, b)
        for r, b in (("forget_bias_3", 3.0), ("default", None))
        for s in (1, 0)
    ]
    biases = {"default": None, "forget_bias_3": 3.0}
    table = forget_bias_memory_check_table(dirs, biases, tokens(), jacobian_lines=2)
    first = ["regime", "forget_bias", "seed", "model", "best_val_loss", "state_half_life", "h_half_life"]
    assert list(table.columns[:8]) == first + ["h_half_life_minus_existing"]
    assert list(zip(table["forget_bias"], table["seed"], strict=True)) == [
        (0.0, 0),
        (0.0, 1),
        (3.0, 0),
        (3.0, 1),
    ]
    np.testing.assert_allclose(table["h_half_life"], table["state_half_life"], atol=1e-9, equal_nan=True)
    for column in ("c_half_life", "jac_c_from_c_half_life", "f_mean", "o_mean", "c_saturated_share"):
        assert column in table and table[column].notna().all(), column
    assert (table["window"] == LENGTH).all() and (table["position"] == CHANGE_POSITION).all()
    with pytest.raises(ValueError, match="not in the sweep"):
        forget_bias_memory_check_table(dirs, {"default": None}, tokens(), jacobian_lines=0)
    gru = save_sweep_model(tmp_path, "default", 9, None, cell="gru")
    with pytest.raises(ValueError, match="the check covers the LSTM"):
        forget_bias_memory_check_table([gru], biases, tokens(), jacobian_lines=0)


@pytest.mark.workflow
def test_smoke_config_builds_the_check_beside_the_sweep(smoke_run):
    """The two E3 tables of the session's smoke run (config/smoke.yaml; read, not made
    again: three tiny LSTMs trained the same way, issue #50)."""
    tables = ["results/tables/forget_bias_memory_check.csv", "results/tables/forget_bias_sweep.csv"]
    check, sweep = (pd.read_csv(smoke_run / table) for table in tables)
    smoke = yaml.safe_load(SMOKE_CONFIG.read_text())["forget_bias_sweep"]
    assert len(check) == len(sweep) == len(smoke["regimes"]) * len(smoke["seeds"])
    merged = check.merge(sweep, on=["forget_bias", "seed"], suffixes=("", "_sweep"))
    assert len(merged) == len(sweep)
    # the rule's recomputation of the existing measure is the sweep table's, and the
    # independent half-life agrees with both
    np.testing.assert_allclose(merged["state_half_life"], merged["state_half_life_sweep"], rtol=1e-12)
    np.testing.assert_allclose(check["h_half_life"], check["state_half_life"], atol=1e-9, equal_nan=True)
    assert check["f_mean"].between(0, 1).all() and check["c_saturated_share"].between(0, 1).all()
