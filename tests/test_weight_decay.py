"""train.weight_decay (issue #48): at 0 the optimizers step exactly as without the
argument (the trained bits do not change), above 0 they follow PyTorch's documented
update, recomputed here by hand in float64 (an independent reference)."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch
import yaml
from conftest import DEFAULT_CONFIG
from torch import nn

from gatedrnn.plan import Plan
from gatedrnn.train.config import TrainConfig, config_hash, hashed_protocol, prefix_hash
from gatedrnn.train.loop import make_optimizer

INPUTS = torch.linspace(-1.0, 1.0, 12).reshape(4, 3)


def tiny_model() -> nn.Module:
    torch.manual_seed(7)
    return nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))


def step(model: nn.Module, optimizer: torch.optim.Optimizer, times: int = 3) -> list[torch.Tensor]:
    """``times`` steps on a fixed loss; the gradients of each step (before it)."""
    grads = []
    for _ in range(times):
        optimizer.zero_grad(set_to_none=True)
        (model(INPUTS) ** 2).sum().backward()
        grads.append([p.grad.detach().double().clone() for p in model.parameters()])
        optimizer.step()
    return grads


def parameters(model: nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_no_decay_steps_bit_for_bit_as_without_the_argument(optimizer):
    cfg = TrainConfig(optimizer=optimizer, lr=0.05)
    assert cfg.weight_decay == 0.0
    ours, theirs = tiny_model(), tiny_model()
    if optimizer == "adam":
        plain = torch.optim.Adam(theirs.parameters(), lr=cfg.lr, fused=True)
    else:
        plain = torch.optim.SGD(theirs.parameters(), lr=cfg.lr, momentum=cfg.momentum, foreach=True)
    step(ours, make_optimizer(ours, cfg))
    step(theirs, plain)
    for mine, other in zip(parameters(ours), parameters(theirs), strict=True):
        assert torch.equal(mine, other)


def test_adam_stays_fused_and_gets_the_decay():
    optimizer = make_optimizer(tiny_model(), TrainConfig(optimizer="adam", weight_decay=0.01))
    assert optimizer.defaults["fused"] is True
    assert optimizer.defaults["weight_decay"] == 0.01


def test_sgd_decay_follows_torchs_formula():
    """torch.optim.SGD: g += wd p; b = m b + g (b = g at the first step); p -= lr b."""
    lr, momentum, decay = 0.05, 0.9, 0.1
    model = tiny_model()
    start = [p.double() for p in parameters(model)]
    grads = step(
        model,
        make_optimizer(model, TrainConfig(optimizer="sgd", lr=lr, momentum=momentum, weight_decay=decay)),
    )
    expected, buffers = start, None
    for grad in grads:
        decayed = [g + decay * p for g, p in zip(grad, expected, strict=True)]
        buffers = (
            decayed if buffers is None else [momentum * b + g for b, g in zip(buffers, decayed, strict=True)]
        )
        expected = [p - lr * b for p, b in zip(expected, buffers, strict=True)]
    for found, wanted in zip(parameters(model), expected, strict=True):
        torch.testing.assert_close(found.double(), wanted, rtol=1e-5, atol=1e-6)
    # and the decay is not nothing: without it the parameters end elsewhere
    other = tiny_model()
    step(other, make_optimizer(other, TrainConfig(optimizer="sgd", lr=lr, momentum=momentum)))
    assert not all(torch.allclose(a, b) for a, b in zip(parameters(model), parameters(other), strict=True))


def test_adam_decay_follows_torchs_formula():
    """torch.optim.Adam (not AdamW): g += wd p; m, v moving averages with bias correction;
    p -= lr m_hat / (sqrt(v_hat) + eps)."""
    lr, decay, (beta1, beta2), eps = 0.05, 0.1, (0.9, 0.999), 1e-8
    model = tiny_model()
    start = [p.double() for p in parameters(model)]
    grads = step(model, make_optimizer(model, TrainConfig(optimizer="adam", lr=lr, weight_decay=decay)))
    expected = start
    first = [torch.zeros_like(p) for p in start]
    second = [torch.zeros_like(p) for p in start]
    for t, grad in enumerate(grads, start=1):
        decayed = [g + decay * p for g, p in zip(grad, expected, strict=True)]
        first = [beta1 * m + (1 - beta1) * g for m, g in zip(first, decayed, strict=True)]
        second = [beta2 * v + (1 - beta2) * g * g for v, g in zip(second, decayed, strict=True)]
        expected = [
            p - lr * (m / (1 - beta1**t)) / ((v / (1 - beta2**t)).sqrt() + eps)
            for p, m, v in zip(expected, first, second, strict=True)
        ]
    for found, wanted in zip(parameters(model), expected, strict=True):
        torch.testing.assert_close(found.double(), wanted, rtol=1e-5, atol=1e-6)


def test_no_decay_hashes_as_before_the_key():
    """Checkpoints written before weight_decay existed resume: at 0 it is not hashed."""
    cfg = TrainConfig()
    assert "weight_decay" not in hashed_protocol(cfg)
    decayed = replace(cfg, weight_decay=1e-4)
    assert hashed_protocol(decayed)["weight_decay"] == 1e-4
    assert config_hash({"train": hashed_protocol(cfg)}) != config_hash({"train": hashed_protocol(decayed)})
    assert prefix_hash(cfg, None) != prefix_hash(decayed, None)
    with pytest.raises(ValueError, match="weight_decay"):
        TrainConfig(weight_decay=-1.0)


def test_a_regime_overrides_weight_decay():
    config = yaml.safe_load(DEFAULT_CONFIG.read_text())
    config["regimes"]["decayed"] = {"weight_decay": 1e-4}
    plan = Plan.from_config(config)
    assert plan.train_config("decayed")["weight_decay"] == 1e-4
    assert plan.train_config("default")["weight_decay"] == 0.0
    TrainConfig(**plan.train_config("decayed"))  # every planned key is the training's
