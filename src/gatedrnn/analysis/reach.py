"""Gradient reach: how much gradient from one output reaches each earlier input.

:func:`gradient_reach` is the general measure (any callable, any batch-first
input, e.g. a trained model's embeddings); :func:`grad_reach_init` is B1, the
measure on freshly initialised cells, run exactly per the protocol:

for each model, ``torch.manual_seed(seed)``, build the module (input 8,
hidden 64, batch_first), draw ``x = torch.randn(16, 100, 8)`` requiring grad,
run it, backpropagate ``out[:, -1].sum()`` and record, at each of the 100
steps, the norm of ``x.grad`` over the batch and feature dimensions. Four
threads. ``lstm_forget3`` is ``nn.LSTM`` with the forget slice ``[H:2H]`` of
``bias_ih`` set to 3 and of ``bias_hh`` to 0.

Neither function leaves global state behind: the torch thread count and the
global RNG state are restored on return. Modules are built in float32
whatever the default dtype; the norms are taken in float64 of the float32
gradient.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np
import pandas as pd
import torch
from torch import nn

REACH_MODELS = ("rnn", "gru", "lstm", "lstm_forget3")
REACH_INPUT_SIZE = 8
REACH_HIDDEN = 64
REACH_BATCH = 16
REACH_STEPS = 100
REACH_SEED = 0
REACH_THREADS = 4
REACH_FORGET_BIAS = 3.0


@contextlib.contextmanager
def torch_threads(threads: int | None):
    """Run a block with ``torch.set_num_threads(threads)``; restore the old count after."""
    previous = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(int(threads))
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def gradient_reach(
    fn: Callable[[torch.Tensor], torch.Tensor | tuple],
    x: torch.Tensor,
    output_step: int = -1,
    threads: int | None = None,
) -> np.ndarray:
    """Norm of d(sum of ``fn(x)[:, output_step]``)/dx at every time step of ``x``.

    ``x`` is batch-first, ``(batch, time, features...)``; ``fn`` maps it to a
    batch-first output (or a tuple whose first element is one, as ``nn.RNN``
    returns). The result has one float64 value per time step: the Euclidean
    norm of the gradient over every dimension but time. ``x`` itself is not
    modified (a detached copy is differentiated), and grad mode is on inside
    whatever the caller's mode.

    For a trained :class:`gatedrnn.core.model.CharModel` use
    :func:`char_model_gradient_reach`, which differentiates with respect to
    the embeddings of a token window.
    """
    with torch_threads(threads), torch.enable_grad():
        leaf = x.detach().clone().requires_grad_(True)
        out = fn(leaf)
        if isinstance(out, tuple):
            out = out[0]
        (grad,) = torch.autograd.grad(out[:, output_step].sum(), leaf)
    g = grad.detach().to(torch.float64)
    dims = [d for d in range(g.dim()) if d != 1]
    return torch.linalg.vector_norm(g, dim=dims).numpy()


def char_model_gradient_reach(
    model,
    tokens: torch.Tensor,
    output: str = "hidden",
    output_step: int = -1,
    threads: int | None = None,
) -> np.ndarray:
    """Gradient reach of a :class:`~gatedrnn.core.model.CharModel` over a token window.

    Differentiates ``sum(out[:, output_step])`` with respect to the embedded
    window (batch, time, embed), where ``out`` is the recurrent layer's hidden
    sequence (``output="hidden"``) or the logits (``output="logits"``).
    """
    if output not in ("hidden", "logits"):
        raise ValueError(f"output must be 'hidden' or 'logits', not {output!r}")
    with torch.no_grad():
        embedded = model.embed(tokens)

    def fn(e):
        out, _ = model.rnn(e)
        return model.read_out(out) if output == "logits" else out

    return gradient_reach(fn, embedded, output_step=output_step, threads=threads)


def build_reach_module(
    model: str,
    input_size: int = REACH_INPUT_SIZE,
    hidden: int = REACH_HIDDEN,
    forget_bias: float = REACH_FORGET_BIAS,
) -> nn.Module:
    """One B1 module, PyTorch default initialisation from the current global RNG."""
    if model not in REACH_MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {', '.join(REACH_MODELS)}")
    cls = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM, "lstm_forget3": nn.LSTM}[model]
    module = cls(input_size, hidden, batch_first=True, dtype=torch.float32)
    if model == "lstm_forget3":
        with torch.no_grad():
            module.bias_ih_l0[hidden : 2 * hidden] = forget_bias
            module.bias_hh_l0[hidden : 2 * hidden] = 0.0
    return module


def grad_reach_init(
    models=REACH_MODELS,
    input_size: int = REACH_INPUT_SIZE,
    hidden: int = REACH_HIDDEN,
    batch: int = REACH_BATCH,
    steps: int = REACH_STEPS,
    seed: int = REACH_SEED,
    threads: int = REACH_THREADS,
    forget_bias: float = REACH_FORGET_BIAS,
) -> pd.DataFrame:
    """B1: columns ``model, step, grad_norm``, one row per model and time step."""
    frames = []
    with torch_threads(threads), torch.random.fork_rng(devices=[]):
        for model in models:
            torch.manual_seed(seed)
            module = build_reach_module(model, input_size, hidden, forget_bias)
            x = torch.randn(batch, steps, input_size, dtype=torch.float32)
            norms = gradient_reach(module, x)
            frames.append(pd.DataFrame({"model": model, "step": np.arange(steps), "grad_norm": norms}))
    return pd.concat(frames, ignore_index=True)
