"""B1 and the general gradient-reach measure, against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from gatedrnn.analysis.reach import (
    REACH_MODELS,
    char_model_gradient_reach,
    grad_reach_init,
    gradient_reach,
)


@pytest.fixture(scope="module")
def b1():
    return grad_reach_init()


def _wide(df):
    return df.pivot(index="step", columns="model", values="grad_norm")


def test_shape_and_columns(b1):
    assert list(b1.columns) == ["model", "step", "grad_norm"]
    assert len(b1) == 400
    assert list(dict.fromkeys(b1["model"])) == ["rnn", "gru", "lstm", "lstm_forget3"]
    for _, rows in b1.groupby("model"):
        assert rows["step"].tolist() == list(range(100))
    assert b1["grad_norm"].dtype == np.float64
    assert (b1["grad_norm"] > 0).all() and np.isfinite(b1["grad_norm"]).all()


def test_published_finding(b1):
    w = _wide(b1)
    for model in ("rnn", "gru", "lstm"):
        # many orders of magnitude lost over 100 steps
        assert w.loc[0, model] / w.loc[99, model] < 1e-10, model
    ratio = w.loc[0, "lstm_forget3"] / w.loc[99, "lstm_forget3"]
    assert 0.1 < ratio < 10.0  # same order at step 0 as at step 99


def test_matches_protocol_written_out(b1):
    """The spec's protocol, literally: .backward() on a leaf, norms in numpy float64."""
    w = _wide(b1)
    previous = torch.get_num_threads()
    try:
        torch.set_num_threads(4)
        for model in REACH_MODELS:
            torch.manual_seed(0)
            cls = {"rnn": nn.RNN, "gru": nn.GRU}.get(model, nn.LSTM)
            module = cls(8, 64, batch_first=True)
            if model == "lstm_forget3":
                with torch.no_grad():
                    module.bias_ih_l0[64:128] = 3.0
                    module.bias_hh_l0[64:128] = 0.0
            x = torch.randn(16, 100, 8, requires_grad=True)
            out, _ = module(x)
            out[:, -1].sum().backward()
            g = x.grad.numpy().astype(np.float64)
            expected = np.sqrt((g**2).sum(axis=(0, 2)))
            np.testing.assert_allclose(w[model].to_numpy(), expected, rtol=1e-12, err_msg=model)
    finally:
        torch.set_num_threads(previous)


def test_independent_of_process_state(b1):
    """Same numbers after other torch work; thread count and RNG restored."""
    previous = torch.get_num_threads()
    try:
        torch.manual_seed(12345)
        torch.randn(1000)
        torch.set_num_threads(1)
        rng_before = torch.get_rng_state()
        again = grad_reach_init()
        assert torch.get_num_threads() == 1
        assert torch.equal(torch.get_rng_state(), rng_before)
        np.testing.assert_array_equal(again["grad_norm"].to_numpy(), b1["grad_norm"].to_numpy())
        # a draw after the call is the draw the caller would have had without it
        after_call = torch.randn(5)
        torch.set_rng_state(rng_before)
        assert torch.equal(torch.randn(5), after_call)
        # no-grad mode at the caller does not break it
        with torch.no_grad():
            third = grad_reach_init(models=("lstm",))
        np.testing.assert_array_equal(
            third["grad_norm"].to_numpy(), b1[b1["model"] == "lstm"]["grad_norm"].to_numpy()
        )
    finally:
        torch.set_num_threads(previous)


def test_gradient_reach_against_finite_differences():
    """Tiny float64 LSTM: the norm at each step equals a central-difference gradient's."""
    gen = torch.Generator().manual_seed(3)
    module = nn.LSTM(3, 4, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen, dtype=torch.float64))
    x = torch.randn(2, 5, 3, generator=gen, dtype=torch.float64)
    x_before = x.clone()
    reach = gradient_reach(module, x)
    assert torch.equal(x, x_before) and not x.requires_grad

    def loss(xx):
        with torch.no_grad():
            return module(xx)[0][:, -1].sum().item()

    eps = 1e-6
    fd = np.zeros(x.shape, dtype=np.float64)
    for idx in np.ndindex(*x.shape):
        plus, minus = x.clone(), x.clone()
        plus[idx] += eps
        minus[idx] -= eps
        fd[idx] = (loss(plus) - loss(minus)) / (2 * eps)
    expected = np.sqrt((fd**2).sum(axis=(0, 2)))
    np.testing.assert_allclose(reach, expected, rtol=1e-6)
    # the last step's input reaches the output; nothing comes from the future
    assert reach.shape == (5,)


def test_gradient_reach_output_step_and_tuple_outputs():
    """Reading an earlier output: later inputs get exactly zero gradient."""
    torch.manual_seed(0)
    module = nn.GRU(3, 5, batch_first=True)
    x = torch.randn(2, 6, 3)
    reach = gradient_reach(module, x, output_step=2)
    assert np.all(reach[3:] == 0.0) and np.all(reach[:3] > 0)
    # a plain-tensor callable gives the same as the tuple-returning module
    same = gradient_reach(lambda v: module(v)[0], x, output_step=2)
    np.testing.assert_array_equal(reach, same)


def test_char_model_gradient_reach():
    from gatedrnn.core.model import CharModel

    torch.manual_seed(0)
    model = CharModel(vocab_size=11, cell="lstm", hidden=8, embed_dim=4)
    tokens = torch.randint(0, 11, (2, 7))
    reach = char_model_gradient_reach(model, tokens)
    assert reach.shape == (7,) and np.all(reach > 0)
    # independent: autograd through the embedding output
    emb = model.embed(tokens).detach().requires_grad_(True)
    out, _ = model.rnn(emb)
    out[:, -1].sum().backward()
    expected = emb.grad.double().pow(2).sum(dim=(0, 2)).sqrt().numpy()
    np.testing.assert_allclose(reach, expected, rtol=1e-12)
    logits = char_model_gradient_reach(model, tokens, output="logits")
    assert logits.shape == (7,) and not np.allclose(logits, reach)


def test_grad_reach_figure_is_byte_stable(b1, tmp_path):
    from gatedrnn.report.study import plot_grad_reach_init

    paths = [tmp_path / "a.png", tmp_path / "b.png"]
    for path in paths:
        plot_grad_reach_init(b1, path)
    assert paths[0].read_bytes() == paths[1].read_bytes()
