"""The character-level language model of the study.

``Embedding(V, 128) -> one recurrent layer (nn.RNN tanh / nn.GRU / nn.LSTM) of
width H -> LayerNorm(H) -> Linear(H, V)``, PyTorch default initialisation,
batch-first, V = 100 (``string.printable``, :mod:`gatedrnn.core.data`): the model
the study's three printed parameter counts fix exactly (docs/experiments.md).
``readout_norm="none"`` drops the LayerNorm (the workflow's model before issue 27).
The normalisation is part of the read-out, not of the recurrent layer: hidden
states and gates are the layer's own, before it (docs/protocol.md).

Gate order follows PyTorch: ``nn.LSTM`` weight rows are chunked (i, f, g, o),
``nn.GRU`` rows (r, z, n) with ``h' = z * h + (1 - z) * n`` (z = fraction kept).

Beyond the study (section G) two more cells, both :class:`gatedrnn.core.cells.GRUVariant`
with PyTorch's update convention: ``cho_gru``, the reset before the recurrent
matrix (``tanh(W_in x + b_in + W_hn (r * h) + b_hn)``, same parameters as
``gru``), and ``gru_noreset``, the GRU with ``r`` fixed at 1 (two row blocks,
(z, n): no reset weights). ``rnn``, ``gru`` and ``lstm`` stay PyTorch's own
modules. Every cell is a plug-in (:mod:`gatedrnn.core.interface`, docs/cells.md):
the recurrent layer is its class's ``training_module``; a cell outside the package
is named by import path (``"package.module:Class"``).
"""

from __future__ import annotations

import torch
from torch import nn

from gatedrnn.core.registry import cell_spec, load_cell_class
from gatedrnn.core.sizes import readout_norm_problem


class CharModel(nn.Module):
    """Embedding -> recurrent layer(s) -> [LayerNorm] -> linear read-out, batch-first."""

    def __init__(
        self,
        vocab_size: int,
        cell: str,
        hidden: int,
        embed_dim: int = 128,
        layers: int = 1,
        readout_norm: str = "layernorm",
    ):
        super().__init__()
        spec = cell_spec(cell)  # ValueError naming the fix for an unknown cell
        if problem := readout_norm_problem(readout_norm):
            raise ValueError(problem)
        if hidden < 1 or vocab_size < 1 or embed_dim < 1 or layers < 1:
            raise ValueError(
                f"sizes must be positive (vocab {vocab_size}, hidden {hidden}, "
                f"embed {embed_dim}, layers {layers})"
            )
        self.cell = spec.name
        self.spec = spec
        # the import path of a cell outside the package (recorded in summary.json), else None
        self.cell_path = None if spec.builtin else spec.path
        self.hidden = hidden
        self.vocab_size = vocab_size
        self.readout_norm = readout_norm
        self.embed = nn.Embedding(vocab_size, embed_dim)
        # rnn, gru, lstm: PyTorch's nn.RNN / nn.GRU / nn.LSTM; cho_gru, gru_noreset: GRUVariant;
        # any other cell: its own Layers (gatedrnn.core.interface)
        self.rnn = load_cell_class(cell).training_module(embed_dim, hidden, layers)
        # Identity has no parameters, so a "none" model's state dict is the old model's.
        self.norm = nn.LayerNorm(hidden) if readout_norm == "layernorm" else nn.Identity()
        self.head = nn.Linear(hidden, vocab_size)

    def read_out(self, hidden_states: torch.Tensor) -> torch.Tensor:
        """Logits (batch, time, V) of the recurrent layer's output sequence."""
        return self.head(self.norm(hidden_states))

    def forward(self, tokens: torch.Tensor, state=None):
        """Logits of shape (batch, time, V) and the final recurrent state."""
        out, state = self.rnn(self.embed(tokens), state)
        return self.read_out(out), state

    def hidden_states(self, tokens: torch.Tensor) -> torch.Tensor:
        """The last layer's hidden-state sequence (batch, time, H), zero initial state;
        the layer's own, before the read-out's normalisation."""
        out, _ = self.rnn(self.embed(tokens))
        return out


def count_parameters(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def set_forget_bias(model: CharModel, bias: float) -> None:
    """Open the LSTM forget gate at initialisation: bias_ih forget slice = b, bias_hh's = 0."""
    if model.cell != "lstm":
        raise ValueError(f"a forget-gate bias applies to the LSTM only, not {model.cell!r}")
    H = model.hidden
    with torch.no_grad():
        for name, p in model.rnn.named_parameters():
            if name.startswith("bias_ih"):
                p[H : 2 * H] = bias
            elif name.startswith("bias_hh"):
                p[H : 2 * H] = 0.0
