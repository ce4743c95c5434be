"""The built-in cells as plug-ins of :class:`gatedrnn.core.interface.RecurrentCell`.

Each declares its gates and writes one step out in PyTorch's weight layout
(``weight_ih`` (blocks * H, D), ``weight_hh`` (blocks * H, H), ``bias_ih``, ``bias_hh``;
rows chunked as PyTorch chunks them). ``rnn``, ``gru`` and ``lstm`` are trained by
PyTorch's own ``nn.RNN``/``nn.GRU``/``nn.LSTM`` and ``cho_gru``/``gru_noreset`` by
:class:`gatedrnn.core.cells.GRUVariant` (``training_module``), so their trained bits are
those modules'; their ``step`` is the same arithmetic, written out (tests/test_cells.py
runs it against the modules). Two cells beyond the study train through the interface's
own :class:`~gatedrnn.core.interface.Layers`:

- ``cifg``: the coupled input-forget gate LSTM (Greff et al. 2017): ``i = 1 - f``, rows
  (f, g, o), ``c' = f c + (1 - f) g``, ``h' = o tanh(c')``;
- ``mingru``: minGRU (Feng et al. 2024), gates that do not read the state:
  ``z = sigmoid(W_z x + b_z)``, ``n = W_n x + b_n``, ``h' = z h + (1 - z) n`` (``z`` the
  fraction kept, as the GRU's), no closed-form count (counted from the module).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from gatedrnn.core.cells import GRUVariant
from gatedrnn.core.interface import RecurrentCell


class _Blocks(RecurrentCell):
    """A cell with PyTorch's layout of ``blocks`` row blocks and two biases."""

    blocks = 1

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__(input_size, hidden_size)
        rows = self.blocks * hidden_size
        self.weight_ih = nn.Parameter(torch.empty(rows, input_size))
        self.weight_hh = nn.Parameter(torch.empty(rows, hidden_size))
        self.bias_ih = nn.Parameter(torch.empty(rows))
        self.bias_hh = nn.Parameter(torch.empty(rows))
        bound = 1.0 / math.sqrt(hidden_size)  # PyTorch's recurrent initialisation
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    @classmethod
    def parameter_count(cls, input_size: int, hidden_size: int) -> int:
        return cls.blocks * (hidden_size * input_size + hidden_size * hidden_size + 2 * hidden_size)

    def _pre(self, x_t, h):
        return (
            torch.addmm(self.bias_ih, x_t, self.weight_ih.T).chunk(self.blocks, dim=-1),
            torch.addmm(self.bias_hh, h, self.weight_hh.T).chunk(self.blocks, dim=-1),
        )


class TanhRNN(_Blocks):
    blocks = 1

    def step(self, x_t, state):
        (x,), (s,) = self._pre(x_t, state[0])
        return (torch.tanh(x + s),), {}

    @classmethod
    def training_module(cls, input_size, hidden_size, num_layers):
        return nn.RNN(input_size, hidden_size, num_layers=num_layers, batch_first=True)


class LSTM(_Blocks):
    blocks = 4
    gates = ("i", "f", "g", "o")
    states = ("c", "h")
    keep_gate = "f"
    couplings = (("i", "f"),)
    gate_labels = {"i": "input", "f": "forget", "g": "candidate", "o": "output"}

    def step(self, x_t, state):
        c, h = state
        xs, ss = self._pre(x_t, h)
        i, f, g, o = (a + b for a, b in zip(xs, ss, strict=True))
        i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
        c = f * c + i * g
        return (c, o * torch.tanh(c)), {"i": i, "f": f, "g": g, "o": o}

    @classmethod
    def training_module(cls, input_size, hidden_size, num_layers):
        return nn.LSTM(input_size, hidden_size, num_layers=num_layers, batch_first=True)


class GRU(_Blocks):
    """PyTorch's GRU: the reset after the recurrent matrix, ``z`` the fraction kept."""

    blocks = 3
    gates = ("r", "z", "n")
    keep_gate = "z"
    gate_labels = {"r": "reset", "z": "update", "n": "candidate"}

    def _candidate(self, x_n, s_n, h, r):
        return torch.tanh(torch.addcmul(x_n, r, s_n))

    def step(self, x_t, state):
        (h,) = state
        (x_r, x_z, x_n), (s_r, s_z, s_n) = self._pre(x_t, h)
        r, z = torch.sigmoid(x_r + s_r), torch.sigmoid(x_z + s_z)
        n = self._candidate(x_n, s_n, h, r)
        return (torch.lerp(n, h, z),), {"r": r, "z": z, "n": n}

    @classmethod
    def training_module(cls, input_size, hidden_size, num_layers):
        return nn.GRU(input_size, hidden_size, num_layers=num_layers, batch_first=True)


class ChoGRU(GRU):
    """The reset before the recurrent matrix: ``n = tanh(W_in x + b_in + W_hn (r h) + b_hn)``."""

    def _candidate(self, x_n, s_n, h, r):
        H = self.hidden_size
        return torch.tanh(x_n + torch.addmm(self.bias_hh[2 * H :], r * h, self.weight_hh[2 * H :].T))

    @classmethod
    def training_module(cls, input_size, hidden_size, num_layers):
        return GRUVariant(input_size, hidden_size, num_layers, placement="before")


class GRUNoReset(_Blocks):
    """The GRU with its reset pinned at 1: rows (z, n)."""

    blocks = 2
    gates = ("z", "n")
    keep_gate = "z"
    gate_labels = {"z": "update", "n": "candidate"}

    def step(self, x_t, state):
        (h,) = state
        (x_z, x_n), (s_z, s_n) = self._pre(x_t, h)
        z, n = torch.sigmoid(x_z + s_z), torch.tanh(x_n + s_n)
        return (torch.lerp(n, h, z),), {"z": z, "n": n}

    @classmethod
    def training_module(cls, input_size, hidden_size, num_layers):
        return GRUVariant(input_size, hidden_size, num_layers, placement="none")


class CIFG(_Blocks):
    """The coupled input-forget gate LSTM: ``i = 1 - f``, three gate blocks (f, g, o)."""

    blocks = 3
    gates = ("f", "g", "o")
    states = ("c", "h")
    keep_gate = "f"
    gate_labels = {"f": "forget", "g": "candidate", "o": "output"}

    def step(self, x_t, state):
        c, h = state
        (x_f, x_g, x_o), (s_f, s_g, s_o) = self._pre(x_t, h)
        f, g, o = torch.sigmoid(x_f + s_f), torch.tanh(x_g + s_g), torch.sigmoid(x_o + s_o)
        c = torch.lerp(g, c, f)  # f c + (1 - f) g
        return (c, o * torch.tanh(c)), {"f": f, "g": g, "o": o}


class MinGRU(RecurrentCell):
    """minGRU: the gate and the candidate read the input only."""

    gates = ("z", "n")
    keep_gate = "z"
    gate_labels = {"z": "update", "n": "candidate"}

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__(input_size, hidden_size)
        self.project = nn.Linear(input_size, 2 * hidden_size)

    def step(self, x_t, state):
        (h,) = state
        pre_z, n = self.project(x_t).chunk(2, dim=-1)
        z = torch.sigmoid(pre_z)
        return (torch.lerp(n, h, z),), {"z": z, "n": n}
