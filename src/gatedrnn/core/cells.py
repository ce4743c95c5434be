"""GRU variants beyond PyTorch's own: where the reset acts, or whether there is one.

Every variant keeps PyTorch's update convention, ``h' = (1 - z) n + z h`` (``z``
is the fraction of the state KEPT), so that only the reset differs from
``nn.GRU`` (study section A5; rows chunked (r, z, n) as in ``nn.GRU``):

- ``after`` (``nn.GRU``): ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``;
- ``before`` ("Cho" placement): ``n = tanh(W_in x + b_in + W_hn (r * h) + b_hn)``;
- ``none`` (reset pinned to 1): ``n = tanh(W_in x + b_in + W_hn h + b_hn)``.

The two placements agree for every ``h`` exactly when ``W_hn[j, k] r_k = r_j
W_hn[j, k]`` (a weight joining two units is nonzero only where their resets are
equal; e.g. a reset that is the same for all units) and ``b_hn = 0`` (else
``r * b_hn`` differs from ``b_hn``).

:func:`gru_layer_scan` runs one layer: the input side ``W_ih x_t + b_ih`` of
every step in one matrix product, then a tight loop over time with one
recurrent product per step (two for ``before``, whose candidate product needs
``r`` first), every operation recorded by autograd: the reference.
:func:`gru_layer` computes the same forward (bit for bit) through
:class:`GRUScan`, an autograd function with the backward through time written
out: the loop records nothing, per step the backward does the two products
that carry the gradient to the previous state, and the recurrent weights'
gradients are one product over all steps at the end (about 3x faster to train
than the recorded loop; ``bench/bench_cells.py``). :class:`GRUVariant` is a
trainable, batch-first, ``nn.GRU``-shaped module built on :func:`gru_layer`
(parameters ``weight_ih_l<k>``, ``weight_hh_l<k>``,
``bias_ih_l<k>``, ``bias_hh_l<k>``, PyTorch's GRU initialisation
``U(-1/sqrt(H), 1/sqrt(H))``); the model cells ``cho_gru`` (``before``) and
``gru_noreset`` (``none``, two row blocks (z, n): no reset weights at all) are
two instances. :func:`pinned_reset_logits` evaluates a trained ``nn.GRU`` model
with ``r`` pinned to 1 from its own weights, without retraining.
"""

from __future__ import annotations

import math

import torch
from torch import nn

PLACEMENTS = ("after", "before", "none")
# Row blocks of a layer's weight matrices per placement: (r, z, n), or (z, n) without a reset.
PLACEMENT_BLOCKS = {"after": 3, "before": 3, "none": 2}


def gru_layer_scan(
    x: torch.Tensor,
    w_ih: torch.Tensor,
    w_hh: torch.Tensor,
    b_ih: torch.Tensor,
    b_hh: torch.Tensor,
    h0: torch.Tensor | None = None,
    placement: str = "after",
) -> tuple[torch.Tensor, torch.Tensor]:
    """One GRU layer over a batch-first sequence ``x`` (B, T, D): ``(out (B, T, H), h_T (B, H))``.

    Weights are ``nn.GRU``'s layout: (r, z, n) row blocks. For ``placement="none"``
    the weights may have three blocks (a trained ``nn.GRU``'s: the reset rows are
    ignored, i.e. ``r = 1``) or two (z, n).
    """
    if placement not in PLACEMENTS:
        raise ValueError(f"unknown reset placement {placement!r}; choose one of {', '.join(PLACEMENTS)}")
    H = w_hh.shape[1]
    blocks = w_hh.shape[0] // H
    if blocks * H != w_hh.shape[0] or blocks not in (2, 3) or (blocks == 2 and placement != "none"):
        raise ValueError(f"recurrent weights of shape {tuple(w_hh.shape)} do not fit placement {placement!r}")
    if placement == "none" and blocks == 3:  # drop the reset rows: r = 1
        w_ih, w_hh, b_ih, b_hh = w_ih[H:], w_hh[H:], b_ih[H:], b_hh[H:]
    B, T, D = x.shape
    h = x.new_zeros(B, H) if h0 is None else h0
    # the input side of every step at once: (B, T, blocks * H)
    from_input = torch.addmm(b_ih, x.reshape(B * T, D), w_ih.T).reshape(B, T, -1)
    outputs = []
    if placement == "none":
        for t in range(T):
            in_z, in_n = from_input[:, t].chunk(2, dim=-1)
            st_z, st_n = torch.addmm(b_hh, h, w_hh.T).chunk(2, dim=-1)
            z = torch.sigmoid(in_z + st_z)
            n = torch.tanh(in_n + st_n)
            h = torch.lerp(n, h, z)
            outputs.append(h)
    elif placement == "after":
        for t in range(T):
            in_r, in_z, in_n = from_input[:, t].chunk(3, dim=-1)
            st_r, st_z, st_n = torch.addmm(b_hh, h, w_hh.T).chunk(3, dim=-1)
            r = torch.sigmoid(in_r + st_r)
            z = torch.sigmoid(in_z + st_z)
            n = torch.tanh(torch.addcmul(in_n, r, st_n))
            h = torch.lerp(n, h, z)
            outputs.append(h)
    else:  # before: the candidate's recurrent product reads r * h
        w_rz, w_n = w_hh[: 2 * H], w_hh[2 * H :]
        b_rz, b_n = b_hh[: 2 * H], b_hh[2 * H :]
        for t in range(T):
            in_r, in_z, in_n = from_input[:, t].chunk(3, dim=-1)
            st_r, st_z = torch.addmm(b_rz, h, w_rz.T).chunk(2, dim=-1)
            r = torch.sigmoid(in_r + st_r)
            z = torch.sigmoid(in_z + st_z)
            n = torch.tanh(in_n + torch.addmm(b_n, r * h, w_n.T))
            h = torch.lerp(n, h, z)
            outputs.append(h)
    return torch.stack(outputs, dim=1), h


class GRUScan(torch.autograd.Function):
    """The recurrent half of a ``before`` or ``none`` GRU layer with a hand-written backward.

    ``forward(from_input (B, T, kH), w_hh (kH, H), b_hh (kH), h0 (B, H), placement)``
    returns ``(out (B, T, H), h_T (B, H))`` with the arithmetic of
    :func:`gru_layer_scan` (same operations in the same order, so the same bits),
    without recording a graph. The backward runs the chain rule back through
    time. With ``h = n + z (h_prev - n)`` (``torch.lerp``), pre-activations
    ``p_g = from_input_g + st_g`` and ``st = W_hh h_prev + b_hh`` (``before``:
    ``st_n = W_n (r h_prev) + b_n``):

    - ``dn = dh (1 - z)``, ``dz = dh (h_prev - n)``, ``dh_prev = dh z``;
    - ``dp_n = dn (1 - n^2)``, ``dp_z = dz z (1 - z)``;
    - ``before``: ``d(r h_prev) = W_n^T dp_n``, ``dp_r = d(r h_prev) h_prev r (1 - r)``,
      ``dh_prev += d(r h_prev) r + W_rz^T [dp_r, dp_z]``;
      ``none``: ``dh_prev += W_hh^T [dp_z, dp_n]``.

    ``dp`` is the gradient of ``from_input``, of ``b_hh`` (summed over batch and
    time) and of the recurrent products, so ``dW_hh`` is ``dp^T [h_prev]`` (``before``:
    ``[h_prev, h_prev, r h_prev]`` by row block) over all (t, b) at once.
    """

    @staticmethod
    def forward(ctx, from_input, w_hh, b_hh, h0, placement):
        T = from_input.shape[1]
        H = w_hh.shape[1]
        gi = from_input.transpose(0, 1)  # (T, B, kH): step t is gi[t]
        states = from_input.new_empty((T + 1, *h0.shape))  # h_0 ... h_T
        states[0] = h0
        h = h0
        if placement == "none":
            zs, ns = torch.empty_like(states[1:]), torch.empty_like(states[1:])
            for t in range(T):
                in_z, in_n = gi[t].chunk(2, dim=-1)
                st_z, st_n = torch.addmm(b_hh, h, w_hh.T).chunk(2, dim=-1)
                z = torch.sigmoid(in_z + st_z)
                n = torch.tanh(in_n + st_n)
                h = torch.lerp(n, h, z)
                zs[t], ns[t], states[t + 1] = z, n, h
            ctx.save_for_backward(w_hh, states, zs, ns)
        else:  # before
            w_rz, w_n = w_hh[: 2 * H], w_hh[2 * H :]
            b_rz, b_n = b_hh[: 2 * H], b_hh[2 * H :]
            rs, zs, ns = (torch.empty_like(states[1:]) for _ in range(3))
            for t in range(T):
                in_r, in_z, in_n = gi[t].chunk(3, dim=-1)
                st_r, st_z = torch.addmm(b_rz, h, w_rz.T).chunk(2, dim=-1)
                r = torch.sigmoid(in_r + st_r)
                z = torch.sigmoid(in_z + st_z)
                n = torch.tanh(in_n + torch.addmm(b_n, r * h, w_n.T))
                h = torch.lerp(n, h, z)
                rs[t], zs[t], ns[t], states[t + 1] = r, z, n, h
            ctx.save_for_backward(w_hh, states, zs, ns, rs)
        ctx.placement = placement
        return states[1:].transpose(0, 1).contiguous(), h.clone()

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_out, grad_last):
        placement = ctx.placement
        w_hh, states, zs, ns = ctx.saved_tensors[:4]
        T, B, H = zs.shape
        blocks = w_hh.shape[0] // H
        grad_pre = zs.new_empty((T, B, blocks * H))  # d pre-activation, step by step
        dh = torch.zeros_like(states[0]) if grad_last is None else grad_last.clone()
        grad_out = None if grad_out is None else grad_out.transpose(0, 1)
        if placement == "none":
            for t in range(T - 1, -1, -1):
                if grad_out is not None:
                    dh += grad_out[t]
                z, n, h_prev = zs[t], ns[t], states[t]
                dp = grad_pre[t]
                torch.mul(dh * (1 - z), 1 - n * n, out=dp[:, H:])  # dp_n
                torch.mul(dh * (h_prev - n), z * (1 - z), out=dp[:, :H])  # dp_z
                dh = torch.addmm(dh * z, dp, w_hh)
            grad_w = grad_pre.reshape(T * B, -1).T @ states[:-1].reshape(T * B, H)
        else:
            rs = ctx.saved_tensors[4]
            w_rz, w_n = w_hh[: 2 * H], w_hh[2 * H :]
            for t in range(T - 1, -1, -1):
                if grad_out is not None:
                    dh += grad_out[t]
                r, z, n, h_prev = rs[t], zs[t], ns[t], states[t]
                dp = grad_pre[t]
                dp_n = torch.mul(dh * (1 - z), 1 - n * n, out=dp[:, 2 * H :])
                torch.mul(dh * (h_prev - n), z * (1 - z), out=dp[:, H : 2 * H])  # dp_z
                d_rh = dp_n @ w_n
                torch.mul(d_rh * h_prev, r * (1 - r), out=dp[:, :H])  # dp_r
                dh = torch.addmm(torch.addcmul(dh * z, d_rh, r), dp[:, : 2 * H], w_rz)
            flat = grad_pre.reshape(T * B, -1)
            h_prev = states[:-1].reshape(T * B, H)
            grad_w = torch.cat(
                (flat[:, : 2 * H].T @ h_prev, flat[:, 2 * H :].T @ (rs.reshape(T * B, H) * h_prev))
            )
        grad_b = grad_pre.sum(dim=(0, 1))
        grad_h0 = dh if ctx.needs_input_grad[3] else None
        return grad_pre.transpose(0, 1), grad_w, grad_b, grad_h0, None


def gru_layer(
    x: torch.Tensor,
    w_ih: torch.Tensor,
    w_hh: torch.Tensor,
    b_ih: torch.Tensor,
    b_hh: torch.Tensor,
    h0: torch.Tensor | None = None,
    placement: str = "before",
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`gru_layer_scan` for ``placement`` ``before`` or ``none`` (two-block weights),
    through :class:`GRUScan`: the same forward, a backward written out (the fast path)."""
    if placement not in ("before", "none"):
        raise ValueError(f"gru_layer runs the reset 'before' or 'none', not {placement!r}")
    B, T, D = x.shape
    H = w_hh.shape[1]
    if w_hh.shape[0] != PLACEMENT_BLOCKS[placement] * H:
        raise ValueError(f"recurrent weights of shape {tuple(w_hh.shape)} do not fit placement {placement!r}")
    h0 = x.new_zeros(B, H) if h0 is None else h0
    from_input = torch.addmm(b_ih, x.reshape(B * T, D), w_ih.T).reshape(B, T, -1)
    return GRUScan.apply(from_input, w_hh, b_hh, h0, placement)


class GRUVariant(nn.Module):
    """A trainable, batch-first GRU with the reset ``before`` the matrix or ``none``.

    Shaped like ``nn.GRU`` (``forward(x, h0) -> (out, h_n)`` with ``h_n`` of shape
    (layers, B, H); parameter names and (r, z, n) row order as ``nn.GRU``'s) so
    that :class:`gatedrnn.core.model.CharModel` and everything reading ``model.rnn``
    use it unchanged. ``placement="none"`` stores only the (z, n) blocks.
    """

    bias = True
    batch_first = True
    bidirectional = False
    proj_size = 0

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, placement: str = "before"):
        super().__init__()
        if placement not in ("before", "none"):
            raise ValueError(
                f"GRUVariant places the reset 'before' the matrix or has 'none', not {placement!r} "
                "(reset after the matrix is nn.GRU itself)"
            )
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.placement = placement
        rows = PLACEMENT_BLOCKS[placement] * hidden_size
        for layer in range(num_layers):
            d_in = input_size if layer == 0 else hidden_size
            self.register_parameter(f"weight_ih_l{layer}", nn.Parameter(torch.empty(rows, d_in)))
            self.register_parameter(f"weight_hh_l{layer}", nn.Parameter(torch.empty(rows, hidden_size)))
            self.register_parameter(f"bias_ih_l{layer}", nn.Parameter(torch.empty(rows)))
            self.register_parameter(f"bias_hh_l{layer}", nn.Parameter(torch.empty(rows)))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's GRU initialisation: every parameter ``U(-1/sqrt(H), 1/sqrt(H))``."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    def layer_weights(self, layer: int):
        return tuple(
            getattr(self, f"{name}_l{layer}") for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        )

    def forward(self, x: torch.Tensor, hx: torch.Tensor | None = None):
        finals = []
        for layer in range(self.num_layers):
            h0 = None if hx is None else hx[layer]
            x, h_last = gru_layer(x, *self.layer_weights(layer), h0=h0, placement=self.placement)
            finals.append(h_last)
        return x, torch.stack(finals)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}, num_layers={self.num_layers}, reset={self.placement}"


def _gru_weights(rnn: nn.GRU, layer: int):
    return tuple(
        getattr(rnn, f"{name}_l{layer}") for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    )


def gru_logits(model, tokens: torch.Tensor, placement: str = "none") -> torch.Tensor:
    """Logits (B, T, V) of a trained ``nn.GRU`` :class:`~gatedrnn.core.model.CharModel`
    recomputed from its own weights with the reset at ``placement``, zero initial
    state: ``none`` pins ``r`` to 1 (the reset rows are ignored), ``before``
    moves it in front of the matrix, ``after`` is the model itself (a check)."""
    if model.cell != "gru":
        raise ValueError(f"placing the reset of a trained GRU needs a 'gru' model, not {model.cell!r}")
    rnn = model.rnn
    if not rnn.bias or rnn.bidirectional or not rnn.batch_first:
        raise ValueError("only batch-first, unidirectional GRUs with biases are supported")
    x = model.embed(tokens)
    for layer in range(rnn.num_layers):
        x, _ = gru_layer_scan(x, *_gru_weights(rnn, layer), placement=placement)
    return model.read_out(x)


def pinned_reset_logits(model, tokens: torch.Tensor) -> torch.Tensor:
    """The trained GRU's logits with its reset gate pinned to 1 (no retraining)."""
    return gru_logits(model, tokens, placement="none")


@torch.no_grad()
def windows_loss(model, windows: torch.Tensor, placement: str | None = None) -> float:
    """Mean next-character cross-entropy (nats/char) over windows of ``seq_len + 1``
    ids, as :func:`gatedrnn.train.loop.sequence_loss`; ``placement`` (GRU models only)
    recomputes the logits with the reset there (:func:`gru_logits`)."""
    model.eval()
    inputs, targets = windows[:, :-1], windows[:, 1:]
    logits = model(inputs)[0] if placement is None else gru_logits(model, inputs, placement)
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)).item()
