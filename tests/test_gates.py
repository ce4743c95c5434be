"""Gate extraction against an independent step-by-step NumPy (float64) reference."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gatedrnn.analysis.gate_files import load_gates, save_gates
from gatedrnn.analysis.gates import extract_gates, manual_step_check
from gatedrnn.core.model import CharModel
from gatedrnn.core.registry import BUILTIN_CELLS

torch.set_num_threads(1)

V, H, E, B, T = 7, 5, 4, 3, 11


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def layer_params(model, layer):
    rnn = model.rnn
    return [
        getattr(rnn, f"{name}_l{layer}").detach().double().numpy()
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    ]


def reference_layer(cell, params, xs):
    """Free-running step-by-step reference, one position at a time (PyTorch conventions)."""
    w_ih, w_hh, b_ih, b_hh = params
    batch, steps, _ = xs.shape
    units = w_hh.shape[1]
    out = {k: np.zeros((batch, steps, units)) for k in BUILTIN_CELLS[cell].gates + ("h", "c")}
    for b in range(batch):
        h = np.zeros(units)
        c = np.zeros(units)
        for t in range(steps):
            x = xs[b, t]
            if cell == "lstm":
                pre = w_ih @ x + b_ih + w_hh @ h + b_hh
                i = sigmoid(pre[0:units])
                f = sigmoid(pre[units : 2 * units])
                g = np.tanh(pre[2 * units : 3 * units])
                o = sigmoid(pre[3 * units :])
                c = f * c + i * g
                h = o * np.tanh(c)
                gates = {"i": i, "f": f, "g": g, "o": o, "c": c}
            elif cell == "gru":
                gi = w_ih @ x + b_ih
                gh = w_hh @ h + b_hh
                r = sigmoid(gi[:units] + gh[:units])
                z = sigmoid(gi[units : 2 * units] + gh[units : 2 * units])
                n = np.tanh(gi[2 * units :] + r * gh[2 * units :])
                h = (1 - z) * n + z * h
                gates = {"r": r, "z": z, "n": n}
            else:
                h = np.tanh(w_ih @ x + b_ih + w_hh @ h + b_hh)
                gates = {}
            for k, v in gates.items():
                out[k][b, t] = v
            out["h"][b, t] = h
    return out


def reference_model(model, tokens, layer=0):
    xs = model.embed.weight.detach().double().numpy()[tokens.numpy()]
    for below in range(layer + 1):
        ref = reference_layer(model.cell, layer_params(model, below), xs)
        xs = ref["h"]
    return ref


def make(cell, layers=1, seed=0):
    torch.manual_seed(seed)
    model = CharModel(V, cell, H, embed_dim=E, layers=layers)
    tokens = torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(seed + 1))
    return model, tokens


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("layers,layer", [(1, 0), (2, 0), (2, 1)])
def test_gates_match_step_by_step_reference(cell, layers, layer):
    model, tokens = make(cell, layers)
    got = extract_gates(model, tokens, layer=layer)
    ref = reference_model(model, tokens, layer)
    expected = set(BUILTIN_CELLS[cell].gates) | {"h"} | ({"c"} if cell == "lstm" else set())
    assert set(got) == expected
    for name in expected:
        assert got[name].shape == (B, T, H)
        assert got[name].dtype == np.float32
        np.testing.assert_allclose(got[name], ref[name], atol=2e-6, err_msg=name)


def test_gru_z_is_fraction_kept():
    """With z forced to 1 (huge update bias), the GRU state never moves from zero."""
    model, tokens = make("gru")
    with torch.no_grad():
        model.rnn.bias_ih_l0[H : 2 * H] = 50.0
    got = extract_gates(model, tokens)
    assert np.all(got["z"] > 1 - 1e-6)
    assert np.abs(got["h"]).max() < 1e-6


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("layers,layer", [(1, 0), (2, 1)])
def test_manual_step_check_is_float32_rounding(cell, layers, layer):
    model, tokens = make(cell, layers, seed=3)
    check = manual_step_check(model, tokens, layer=layer)
    assert check["max_abs_diff"] < 1e-5
    assert check["max_abs_diff_hidden"] < 1e-5
    assert check["positions"] == B * T and check["units"] == H
    if cell == "lstm":
        assert check["max_abs_diff_final_cell"] < 1e-5
    else:
        assert np.isnan(check["max_abs_diff_final_cell"])


def test_manual_step_check_sees_a_wrong_weight():
    """The check compares against the module: corrupt the copy the recomputation
    reads and the difference becomes large."""
    model, tokens = make("lstm")
    good = manual_step_check(model, tokens)["max_abs_diff"]
    from gatedrnn.analysis import gates as gates_module

    original = gates_module._layer_weights

    def shifted(rnn, layer):
        w_ih, w_hh, b_ih, b_hh = original(rnn, layer)
        return w_ih, w_hh, b_ih + 0.5, b_hh

    gates_module._layer_weights = shifted
    try:
        bad = manual_step_check(model, tokens)["max_abs_diff"]
    finally:
        gates_module._layer_weights = original
    assert good < 1e-5 < 1e-2 < bad


def test_rejects_bad_layer_and_shape():
    model, tokens = make("lstm")
    with pytest.raises(ValueError):
        extract_gates(model, tokens, layer=1)
    with pytest.raises(ValueError):
        extract_gates(model, tokens[0])


def test_save_load_round_trip(tmp_path):
    model, tokens = make("lstm")
    gates = extract_gates(model, tokens)
    lines = ["abc\nefghijk", "  spaces  x", "\n\n\n\n\n\n\n\n\n\n\n"]
    path = tmp_path / "sub" / "gates.npz"
    save_gates(path, gates, tokens, lines, cell="lstm", keys=BUILTIN_CELLS["lstm"].gates)
    loaded = load_gates(path)
    assert loaded.cell == "lstm" and loaded.layer == 0
    assert set(loaded.gates) == {"i", "f", "g", "o"}
    for k in loaded.gates:
        assert loaded.gates[k].dtype == np.float32
        np.testing.assert_array_equal(loaded.gates[k], gates[k])
    np.testing.assert_array_equal(loaded.tokens, tokens.numpy())
    assert loaded.lines == lines


def test_save_rejects_mismatched_text(tmp_path):
    model, tokens = make("gru")
    gates = extract_gates(model, tokens)
    with pytest.raises(ValueError):
        save_gates(tmp_path / "g.npz", gates, tokens, ["only one line"], cell="gru")
