"""Gate statistics and decay measures on data and cells with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from gatedrnn.analysis.perturbation import (
    cell_state_decay,
    hidden_state_decay,
    perturb_one_char,
    state_half_life,
    trained_model_reach,
)
from gatedrnn.analysis.reach import char_model_gradient_reach
from gatedrnn.analysis.stats import (
    coupling_histogram,
    coupling_stats,
    curve_half_life,
    difference_norms,
    gate_by_char,
    gate_summary,
    gate_summary_table,
    gradient_reach_summary,
    half_life,
    histogram_departure,
    relative_curve,
    unit_gate_summary,
    unit_half_lives,
    unit_means,
)
from gatedrnn.core.model import CharModel

torch.set_num_threads(1)

V, H, E = 7, 5, 4


# ------------------------------------------------------------------ half-life


def test_half_life_known_values():
    assert half_life(0.5) == pytest.approx(1.0)
    assert half_life(0.25) == pytest.approx(0.5)
    assert half_life(math.sqrt(0.5)) == pytest.approx(2.0)
    assert half_life(0.5 ** (1 / 10)) == pytest.approx(10.0)
    assert half_life(0.9) == pytest.approx(6.578813478960585)
    assert half_life(1.0) == math.inf
    assert half_life(0.0) == 0.0
    np.testing.assert_allclose(half_life(np.array([0.5, 0.25])), [1.0, 0.5])


def test_curve_half_life_interpolates_in_log():
    a = 0.8
    curve = a ** np.arange(33)
    assert curve_half_life(curve) == pytest.approx(half_life(a), rel=1e-12)
    assert curve_half_life([1.0, 0.5, 0.1]) == pytest.approx(1.0)
    assert math.isnan(curve_half_life([1.0, 0.9, 0.8]))
    assert curve_half_life([1.0, 0.0]) == 1.0


# ------------------------------------------------------------------ summaries


def test_gate_summary_and_table():
    values = np.linspace(0, 1, 101).reshape(1, 101, 1)
    s = gate_summary(values)
    assert s["values"] == 101
    assert s["mean"] == pytest.approx(0.5)
    assert s["p5"] == pytest.approx(0.05) and s["p95"] == pytest.approx(0.95)
    assert s["p50"] == pytest.approx(0.5)
    table = gate_summary_table({"i": values, "f": values * 0.5}, ["i", "f"])
    assert list(table["gate"]) == ["i", "f"]
    assert list(table.columns) == ["gate", "values", "mean", "p5", "p25", "p50", "p75", "p95"]
    assert table.loc[1, "mean"] == pytest.approx(0.25)


def test_unit_summaries():
    # 3 units whose mean forget gates are 0.25, 0.5 ** 0.05 (half-life 20) and 0.6
    unit_values = np.array([0.25, 0.5**0.05, 0.6])
    f = np.broadcast_to(unit_values, (2, 4, 3)).copy()
    f[0, 0] += 0.01
    f[1, 0] -= 0.01  # means unchanged
    np.testing.assert_allclose(unit_means(f), unit_values)
    np.testing.assert_allclose(unit_half_lives(f), half_life(unit_values))
    s = unit_gate_summary(f)
    assert s["units"] == 3
    assert s["mean_min"] == pytest.approx(0.25)
    assert s["mean_max"] == pytest.approx(0.5**0.05)
    assert s["mean_median"] == pytest.approx(0.6)
    assert s["half_life_min"] == pytest.approx(0.5)
    assert s["half_life_max"] == pytest.approx(20.0)
    assert s["units_below_half"] == 1
    assert s["units_half_life_ge_10"] == 1


def test_gate_by_char():
    lines = ["a b\n", " \nxy"]
    gate = np.zeros((2, 4, 3))
    gate[0, 1] = 0.2  # space
    gate[1, 0] = 0.4  # space
    gate[0, 3] = 0.6  # newline
    gate[1, 1] = 1.0  # newline
    gate[0, 0] = 0.9  # a
    table = gate_by_char(gate, lines).set_index("char_class")
    assert table.loc["space", "positions"] == 2
    assert table.loc["space", "mean"] == pytest.approx(0.3)
    assert table.loc["newline", "mean"] == pytest.approx(0.8)
    assert table.loc["other", "positions"] == 4
    assert table.loc["other", "mean"] == pytest.approx(0.9 / 4)


# ------------------------------------------------------------------ coupling


def test_coupling_exact():
    rng = np.random.default_rng(0)
    f = rng.uniform(0, 1, size=(8, 50, 6))
    s = coupling_stats(1 - f, f)
    assert s["corr_all"] == pytest.approx(1.0)
    assert s["unit_corr_min"] == pytest.approx(1.0)
    assert s["units_corr_above_0.5"] == 6
    assert s["mean_i_plus_f"] == pytest.approx(1.0)
    # all mass on the diagonal: about 1/24 per cell against 1/576 for independence
    assert s["hist_max_departure"] > 0.03


def test_coupling_independent():
    rng = np.random.default_rng(1)
    f = rng.uniform(0, 1, size=(32, 128, 50))
    i = rng.uniform(0, 1, size=(32, 128, 50))
    s = coupling_stats(i, f)
    assert abs(s["corr_all"]) < 0.01
    assert s["mean_i_plus_f"] == pytest.approx(1.0, abs=0.01)
    assert s["hist_max_departure"] < 1e-3
    assert s["values"] == 32 * 128 * 50 and s["units"] == 50


def test_coupling_histogram_orientation_and_departure():
    f = np.array([1.0, 1.0, 0.0])  # 1 - f: 0, 0, 1
    i = np.array([0.0, 0.0, 1.0])
    mass, edges = coupling_histogram(i, f, bins=2)
    np.testing.assert_allclose(mass, [[2 / 3, 0], [0, 1 / 3]])
    np.testing.assert_allclose(edges, [0, 0.5, 1])
    # P(0,0) = 2/3 against (2/3)^2: departure 2/9
    assert histogram_departure(mass) == pytest.approx(2 / 9)


# ------------------------------------------------------------------ perturbation


def test_perturb_one_char():
    tokens = torch.tensor([[0, 1, 6], [3, 6, 2]])
    changed = perturb_one_char(tokens, 7, position=1)
    assert changed.tolist() == [[0, 2, 6], [3, 0, 2]]
    assert tokens.tolist() == [[0, 1, 6], [3, 6, 2]]
    with pytest.raises(ValueError):
        perturb_one_char(tokens, 7, position=1, shift=7)


def test_difference_norms_and_relative_curve():
    original = np.zeros((2, 6, 2))
    changed = np.zeros((2, 6, 2))
    changed[0, 2:] = [[3, 4], [0, 2], [1, 0], [0, 0]]
    changed[1, 2:] = [[0, 1], [0, 1], [0, 0], [0, 0]]
    norms = difference_norms(original, changed, position=2, steps=3)
    np.testing.assert_allclose(norms, [[5, 2, 1, 0], [1, 1, 0, 0]])
    np.testing.assert_allclose(relative_curve(norms), [1, 0.5, 1 / 6, 0])
    with pytest.raises(ValueError):
        difference_norms(original, changed, position=2, steps=4)


SPECIAL = 6  # the only character that opens the input gate


def gated_lstm(forget: float) -> CharModel:
    """An LSTM whose input gate opens only on character SPECIAL and whose forget
    gate is the constant ``forget`` (zero weights): a change that writes the
    cell state k steps earlier leaves exactly forget^k of it."""
    model = CharModel(V, "lstm", H, embed_dim=E)
    rnn = model.rnn
    with torch.no_grad():
        model.embed.weight.zero_()
        model.embed.weight[:, 1] = torch.linspace(-1, 1, V)
        model.embed.weight[SPECIAL, 0] = 1.0
        rnn.weight_hh_l0.zero_()
        rnn.bias_hh_l0.zero_()
        rnn.weight_ih_l0[:H].zero_()
        rnn.weight_ih_l0[:H, 0] = 100.0
        rnn.bias_ih_l0[:H] = -50.0  # i = sigmoid(-50) ~ 0, or sigmoid(50) = 1 on SPECIAL
        rnn.weight_ih_l0[H : 2 * H].zero_()
        bias = math.log(forget / (1 - forget))
        rnn.bias_ih_l0[H : 2 * H] = bias / 2
        rnn.bias_hh_l0[H : 2 * H] = bias / 2
        rnn.bias_ih_l0[2 * H : 3 * H] = torch.linspace(-1, 1, H)  # g != 0
    return model


@pytest.mark.parametrize("float64,rtol", [(True, 1e-9), (False, 1e-5)])
def test_cell_state_decay_closed_form(float64, rtol):
    forget = 0.8
    model = gated_lstm(forget)
    gen = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, SPECIAL, (4, 50), generator=gen)  # never SPECIAL
    tokens[:, 10] = SPECIAL - 1
    changed = perturb_one_char(tokens, V, position=10)
    assert (changed[:, 10] == SPECIAL).all()
    decay = cell_state_decay(model, tokens, position=10, steps=32, float64=float64)
    rnn = model.rnn  # the forget gate the float32 biases actually give
    forget = torch.sigmoid(rnn.bias_ih_l0[H].double() + rnn.bias_hh_l0[H].double()).item()
    expected = forget ** np.arange(33)
    assert next(model.parameters()).dtype == torch.float32  # the caller's model is untouched
    assert list(decay.columns) == ["k", "measured", "forget_alone"]
    np.testing.assert_array_equal(decay["k"], np.arange(33))
    np.testing.assert_allclose(decay["measured"], expected, rtol=rtol)
    np.testing.assert_allclose(decay["forget_alone"], expected, rtol=rtol)
    assert curve_half_life(decay["measured"]) == pytest.approx(half_life(forget), rel=1e-4)


def test_cell_state_decay_rejects_non_lstm():
    model = CharModel(V, "gru", H, embed_dim=E)
    with pytest.raises(ValueError):
        cell_state_decay(model, torch.zeros(2, 50, dtype=torch.long))


def test_cell_state_decay_measured_differs_when_change_reenters():
    """In a generic LSTM the difference also re-enters through i and g, so the
    measured curve is not the forget-gate-alone curve; both start at 1."""
    torch.manual_seed(0)
    model = CharModel(V, "lstm", H, embed_dim=E)
    tokens = torch.randint(0, V, (4, 40), generator=torch.Generator().manual_seed(2))
    decay = cell_state_decay(model, tokens, position=5, steps=20)
    assert decay["measured"][0] == 1.0 and decay["forget_alone"][0] == 1.0
    assert np.abs(decay["measured"] - decay["forget_alone"]).max() > 1e-3
    assert (np.diff(decay["forget_alone"]) < 0).all()  # forget gates < 1 only shrink


def constant_update_gru(update: float) -> CharModel:
    """A GRU with constant update gate z and a candidate that reads the input only:
    h_t = z h_{t-1} + (1 - z) n(x_t), so a one-character change decays as z^k."""
    model = CharModel(V, "gru", H, embed_dim=E)
    rnn = model.rnn
    with torch.no_grad():
        rnn.weight_ih_l0[H : 2 * H].zero_()
        rnn.weight_hh_l0[H:].zero_()  # z and n ignore the state
        rnn.bias_hh_l0.zero_()
        rnn.bias_ih_l0[H : 2 * H] = math.log(update / (1 - update))
    return model


@pytest.mark.parametrize("float64,atol", [(True, 1e-12), (False, 1e-6)])
def test_hidden_state_decay_closed_form(float64, atol):
    torch.manual_seed(0)
    update = 0.7
    model = constant_update_gru(update)
    tokens = torch.randint(0, V, (3, 40), generator=torch.Generator().manual_seed(4))
    decay = hidden_state_decay(model, tokens, position=5, steps=30, float64=float64)
    # float32 states: the difference carries ~1e-7 absolute rounding
    np.testing.assert_allclose(decay["measured"], update ** np.arange(31), rtol=1e-4, atol=atol)
    assert state_half_life(model, tokens, position=5, steps=30) == pytest.approx(half_life(update), rel=1e-3)


@pytest.mark.parametrize("cell", ["rnn", "gru", "lstm"])
def test_hidden_state_decay_runs_for_every_cell(cell):
    torch.manual_seed(0)
    model = CharModel(V, cell, H, embed_dim=E)
    tokens = torch.randint(0, V, (2, 20), generator=torch.Generator().manual_seed(5))
    decay = hidden_state_decay(model, tokens, position=3, steps=10)
    assert decay["measured"][0] == 1.0
    assert np.isfinite(decay["measured"]).all() and (decay["measured"] >= 0).all()


# ------------------------------------------------------------------ gradient reach


def test_gradient_reach_closed_form():
    """Same character at every step and a constant z: d h_T / d e_t shrinks by
    exactly z per step back."""
    torch.manual_seed(0)
    update = 0.6
    model = constant_update_gru(update)
    tokens = torch.full((2, 12), 3, dtype=torch.long)
    norms = char_model_gradient_reach(model, tokens, output="hidden")
    assert norms.shape == (12,)
    np.testing.assert_allclose(norms / norms[-1], update ** np.arange(11, -1, -1), rtol=1e-5)
    s = gradient_reach_summary(norms)
    assert s["first_over_last"] == pytest.approx(update**11, rel=1e-5)
    assert s["log10_first_over_last"] == pytest.approx(11 * math.log10(update), rel=1e-5)
    assert s["half_distance"] == pytest.approx(half_life(update), rel=1e-4)
    assert all(p.grad is None for p in model.parameters())


def test_trained_model_reach_closed_form():
    torch.manual_seed(0)
    update = 0.6
    model = constant_update_gru(update)
    tokens = torch.full((2, 40), 3, dtype=torch.long)
    tokens[:, 20] = 2
    reach = trained_model_reach(model, tokens, position=21, steps=15)
    # the change at 21 (3 -> 4) decays as z^k; the gradient path to step 0 does
    # not depend on the characters in between (z constant, n reads the input only)
    assert reach["state_half_life"] == pytest.approx(half_life(update), rel=1e-3)
    assert reach["half_distance"] == pytest.approx(half_life(update), rel=1e-4)
    assert reach["first_over_last"] == pytest.approx(update**39, rel=1e-4)
