"""Recompute the gates of a trained recurrent layer from its weights.

``nn.LSTM`` / ``nn.GRU`` / ``nn.RNN`` return only hidden states, so every gate is
recomputed here from the layer's own weights. The module is run once (zero
initial state) to get its hidden-state sequence h_1..h_T; with h_{t-1} known at
every position, all gate pre-activations are one batched matrix product over the
(batch x time) positions. Only the LSTM cell state needs a scan, and that scan
is elementwise: ``c_t = f_t * c_{t-1} + i_t * g_t`` with ``c_0 = 0``. (For
layer 0 the input side ``W_ih x_t`` is computed once per vocabulary entry and
gathered, since x_t is an embedding row.) The module runs with TF32 disabled, so
on a GPU too the recomputation matches it to float32 rounding.

Conventions (PyTorch's, as in :mod:`gatedrnn.core.model`):

- LSTM rows chunked (i, f, g, o): ``i, f, o = sigmoid(.)``, ``g = tanh(.)``,
  ``c_t = f c_{t-1} + i g``, ``h_t = o tanh(c_t)``.
- GRU rows chunked (r, z, n): ``r, z = sigmoid(W_i x + b_i + W_h h + b_h)``,
  ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`` (reset *after* the matrix),
  ``h_t = (1 - z) n + z h_{t-1}``, so ``z`` is the fraction of the state KEPT.
- RNN: ``h_t = tanh(W_ih x + b_ih + W_hh h_{t-1} + b_hh)`` (or relu).

Every array is ``(batch, time, units)``; position ``t`` holds the gates that
produced h_t from the input read at ``t`` and h_{t-1}.

``layer`` selects which layer of a stacked module is analysed (default 0; the
study's models have one layer, where layer 0 is also the last). For a layer
above 0 the layer's input is the hidden sequence of the layer below, obtained by
running single-layer copies of the lower layers.

Saving and reading the gates (:class:`ProbeGates`, :func:`save_gates`, :func:`load_gates`)
lives in :mod:`gatedrnn.analysis.gate_files`, which the readers import without torch.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

# Saved gates are read without torch (gatedrnn.analysis.gate_files); their names stay
# importable from here for code written before the split (issue #50).
from gatedrnn.analysis.gate_files import (  # noqa: F401
    ProbeGates,
    coupling_pair,
    keep_gate,
    load_gates,
    probe_spec,
    save_gates,
)
from gatedrnn.core.interface import Layers, RecurrentCell
from gatedrnn.core.model import CharModel
from gatedrnn.core.registry import load_cell_class

# The cells whose gates are recomputed in one batched product from PyTorch's own module
# (below); every other cell's gates come from its own step (gatedrnn.core.interface).
BATCHED = ("lstm", "gru", "rnn")


def layer_cell(model: CharModel, layer: int) -> RecurrentCell:
    """Layer ``layer`` as its cell's :class:`RecurrentCell`: the module's own for a cell
    trained through :class:`Layers`, else a copy holding the layer's weights (a built-in
    trained by another module, with PyTorch's parameter names)."""
    rnn = model.rnn
    if isinstance(rnn, Layers):
        return rnn.layers[layer]
    cls = load_cell_class(model.cell_path or model.cell)
    w_ih = getattr(rnn, f"weight_ih_l{layer}")
    cell = cls(w_ih.shape[1], rnn.hidden_size).to(device=w_ih.device, dtype=w_ih.dtype)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name).copy_(getattr(rnn, f"{name}_l{layer}"))
    return cell.eval()


@contextmanager
def _exact_float32():
    """Disable TF32 in cuDNN/cuBLAS while the module runs (CPU runs are unaffected)."""
    saved = (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved


def _layer_weights(rnn: nn.RNNBase, layer: int):
    """(W_ih, W_hh, b_ih, b_hh) of one layer; zero biases where the module has none."""
    w_ih = getattr(rnn, f"weight_ih_l{layer}")
    w_hh = getattr(rnn, f"weight_hh_l{layer}")
    if rnn.bias:
        b_ih = getattr(rnn, f"bias_ih_l{layer}")
        b_hh = getattr(rnn, f"bias_hh_l{layer}")
    else:
        b_ih = w_ih.new_zeros(w_ih.shape[0])
        b_hh = w_hh.new_zeros(w_hh.shape[0])
    return w_ih, w_hh, b_ih, b_hh


def _single_layer_copy(rnn: nn.RNNBase, layer: int) -> nn.RNNBase:
    """A one-layer, batch-first module holding layer ``layer``'s weights."""
    kwargs = dict(
        input_size=rnn.input_size if layer == 0 else rnn.hidden_size,
        hidden_size=rnn.hidden_size,
        num_layers=1,
        bias=rnn.bias,
        batch_first=True,
    )
    if isinstance(rnn, nn.RNN):
        kwargs["nonlinearity"] = rnn.nonlinearity
    w_ih = getattr(rnn, f"weight_ih_l{layer}")
    copy = type(rnn)(**kwargs).to(device=w_ih.device, dtype=w_ih.dtype)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh") + (("bias_ih", "bias_hh") if rnn.bias else ()):
            getattr(copy, f"{name}_l0").copy_(getattr(rnn, f"{name}_l{layer}"))
    return copy.eval()


@dataclass
class LayerRun:
    """One layer's input sequence and the module's own outputs for it."""

    tokens: torch.Tensor  # (B, T) the characters read, on the model's device
    inputs: torch.Tensor  # (B, T, D) what the layer reads
    hidden: torch.Tensor  # (B, T, H) the module's h_1..h_T
    final_hidden: torch.Tensor  # (B, H) the module's h_n for this layer
    final_cell: torch.Tensor | None  # (B, H) the module's c_n (LSTM only)


def run_layer(model: CharModel, tokens: torch.Tensor, layer: int = 0) -> LayerRun:
    """Run the model from a zero state and return layer ``layer``'s input and outputs.

    The last layer's hidden sequence and every layer's final state come from the
    model's own module; lower layers' sequences (needed only as inputs above
    layer 0) come from single-layer copies of their weights.
    """
    rnn = model.rnn
    if rnn.bidirectional or getattr(rnn, "proj_size", 0):
        raise ValueError("bidirectional and projected recurrent layers are not supported")
    if not 0 <= layer < rnn.num_layers:
        raise ValueError(f"layer {layer} outside 0..{rnn.num_layers - 1}")
    if not rnn.batch_first:
        raise ValueError("the recurrent module must be batch_first")
    if tokens.dim() != 2:
        raise ValueError(f"tokens must have shape (batch, time), got {tuple(tokens.shape)}")
    device = next(model.parameters()).device
    tokens = tokens.to(device)
    if model.cell not in BATCHED:
        return _run_cell_layer(model, tokens, layer)
    with torch.no_grad(), _exact_float32():
        embedded = model.embed(tokens)
        out, state = rnn(embedded)
        h_n, c_n = state if isinstance(state, tuple) else (state, None)
        inputs = embedded
        for below in range(layer):
            inputs, _ = _single_layer_copy(rnn, below)(inputs)
        if layer == rnn.num_layers - 1:
            hidden = out
        else:
            hidden, _ = _single_layer_copy(rnn, layer)(inputs)
    return LayerRun(
        tokens=tokens,
        inputs=inputs,
        hidden=hidden,
        final_hidden=h_n[layer],
        final_cell=None if c_n is None else c_n[layer],
    )


def _run_cell_layer(model: CharModel, tokens: torch.Tensor, layer: int) -> LayerRun:
    """:func:`run_layer` for a cell read through its :class:`RecurrentCell` step."""
    with torch.no_grad(), _exact_float32():
        embedded = model.embed(tokens)
        out, finals = model.rnn(embedded)
        inputs = embedded
        for below in range(layer):
            inputs, _ = layer_cell(model, below)(inputs)
        cell = layer_cell(model, layer)
        hidden = out if layer == model.rnn.num_layers - 1 else cell(inputs)[0]
        if isinstance(model.rnn, Layers):
            final = finals[layer]
            final_hidden = cell.output(final)
            final_cell = final[cell.states.index("c")] if "c" in cell.states else None
        else:  # an nn.GRU-shaped module: h_n of shape (layers, B, H)
            final_hidden, final_cell = finals[layer], None
    return LayerRun(
        tokens=tokens, inputs=inputs, hidden=hidden, final_hidden=final_hidden, final_cell=final_cell
    )


def _input_projection(model: CharModel, run: LayerRun, layer: int, w_ih, bias) -> torch.Tensor:
    """``W_ih x_t + bias`` at every position, shape (B * T, blocks * H).

    Layer 0 reads embeddings, so the projection of each vocabulary entry is
    computed once and gathered per position (the same products, V rows instead
    of B * T); higher layers project their input sequence directly.
    """
    if layer == 0:
        table = torch.addmm(bias, model.embed.weight, w_ih.T)  # (V, blocks * H)
        return table[run.tokens.reshape(-1)]
    return torch.addmm(bias, run.inputs.reshape(-1, run.inputs.shape[-1]), w_ih.T)


def _recompute(model: CharModel, run: LayerRun, layer: int) -> dict[str, torch.Tensor]:
    """All gates and recomputed states of one layer, as torch tensors (B, T, H)."""
    if model.cell not in BATCHED:  # the cell's own step, from the zero state, over the layer's input
        with torch.no_grad(), _exact_float32():
            return layer_cell(model, layer).sequence_gates(run.inputs)
    w_ih, w_hh, b_ih, b_hh = _layer_weights(model.rnn, layer)
    h = run.hidden
    B, T, H = h.shape
    h_prev = torch.cat([h.new_zeros(B, 1, H), h[:, :-1]], dim=1)
    flat_prev = h_prev.reshape(B * T, H)
    cell = model.cell
    with torch.no_grad():
        if cell in ("lstm", "rnn"):
            # both biases sit outside any gate product: fold them into the input side
            pre = _input_projection(model, run, layer, w_ih, b_ih + b_hh)
            pre = pre.addmm_(flat_prev, w_hh.T).reshape(B, T, -1)
        if cell == "lstm":
            pre_i, pre_f, pre_g, pre_o = pre.chunk(4, dim=-1)
            i, f, o = torch.sigmoid(pre_i), torch.sigmoid(pre_f), torch.sigmoid(pre_o)
            g = torch.tanh(pre_g)
            written = i * g
            c = torch.empty_like(f)
            c_t = f.new_zeros(B, H)
            for t in range(T):  # elementwise scan only
                c_t = torch.addcmul(written[:, t], f[:, t], c_t)
                c[:, t] = c_t
            return {"i": i, "f": f, "g": g, "o": o, "c": c, "h": o * torch.tanh(c)}
        if cell == "gru":
            from_input = _input_projection(model, run, layer, w_ih, b_ih).reshape(B, T, -1)
            from_state = torch.addmm(b_hh, flat_prev, w_hh.T).reshape(B, T, -1)
            in_r, in_z, in_n = from_input.chunk(3, dim=-1)
            st_r, st_z, st_n = from_state.chunk(3, dim=-1)
            r = torch.sigmoid(in_r + st_r)
            z = torch.sigmoid(in_z + st_z)
            n = torch.tanh(torch.addcmul(in_n, r, st_n))
            return {"r": r, "z": z, "n": n, "h": torch.lerp(n, h_prev, z)}
        if cell == "rnn":
            act = torch.relu if model.rnn.nonlinearity == "relu" else torch.tanh
            return {"h": act(pre)}
    raise ValueError(f"unknown cell {model.cell!r}")


def recompute_layer(model: CharModel, tokens: torch.Tensor, layer: int = 0) -> dict[str, torch.Tensor]:
    """As :func:`extract_gates`, but torch tensors in the model's own dtype and device."""
    model.eval()
    return _recompute(model, run_layer(model, tokens, layer), layer)


def extract_gates(model: CharModel, tokens: torch.Tensor, layer: int = 0) -> dict[str, np.ndarray]:
    """Every gate of layer ``layer`` at every position, recomputed from the weights.

    ``tokens``: LongTensor (B, T), read from a zero initial state. Returns float32
    arrays (B, T, H): LSTM ``i, f, g, o`` plus the cell state ``c`` and hidden
    state ``h``; GRU ``r, z, n`` plus ``h``; RNN ``h``. ``h`` (and ``c``) are the
    recomputed states, not the module's (see :func:`manual_step_check`).
    """
    recomputed = recompute_layer(model, tokens, layer)
    return {name: value.float().cpu().numpy() for name, value in recomputed.items()}


def manual_step_check(model: CharModel, tokens: torch.Tensor, layer: int = 0) -> dict:
    """How far the recomputed states are from the module's (study C1).

    ``max_abs_diff_hidden``: max |h_recomputed - h_module| over all positions and
    units; ``max_abs_diff_final_cell`` (LSTM; NaN otherwise): max |c_T - c_n|, the
    end of the free-running cell-state scan against the module's final cell
    state; ``max_abs_diff``: the larger of the two. Expect float32 rounding
    (< 1e-5).
    """
    model.eval()
    run = run_layer(model, tokens, layer)
    recomputed = _recompute(model, run, layer)
    hidden_diff = (recomputed["h"] - run.hidden).abs().max().item()
    final_hidden_diff = (recomputed["h"][:, -1] - run.final_hidden).abs().max().item()
    hidden_diff = max(hidden_diff, final_hidden_diff)
    if run.final_cell is not None:
        cell_diff = (recomputed["c"][:, -1] - run.final_cell).abs().max().item()
    else:
        cell_diff = float("nan")
    return {
        "max_abs_diff": max(hidden_diff, 0.0 if np.isnan(cell_diff) else cell_diff),
        "max_abs_diff_hidden": hidden_diff,
        "max_abs_diff_final_cell": cell_diff,
        "positions": int(run.hidden.shape[0] * run.hidden.shape[1]),
        "units": int(run.hidden.shape[2]),
        "dtype": str(run.hidden.dtype).removeprefix("torch."),
    }
