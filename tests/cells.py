"""An example cell outside the package (docs/cells.md): JANET, the LSTM with its forget
gate alone (van der Westhuizen and Lasenby 2018, "The unreasonable effectiveness of the
forget gate"): ``f = sigmoid(W_f x + U_f h + b_f)``, ``n = tanh(W_n x + U_n h + b_n)``,
``h' = f h + (1 - f) n``. Named in a config by import path, ``tests.cells:JANET``."""

import math

import torch
from torch import nn

from gatedrnn.core.interface import RecurrentCell


class JANET(RecurrentCell):
    gates = ("f", "n")  # what it produces per step, by name
    states = ("h",)  # its state vectors; "h" is the output
    keep_gate = "f"  # the fraction of h kept per step: sets a unit's half-life
    couplings = ()  # no pair a = 1 - b to test
    gate_labels = {"f": "forget", "n": "candidate"}

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__(input_size, hidden_size)
        self.from_input = nn.Linear(input_size, 2 * hidden_size)
        self.from_state = nn.Linear(hidden_size, 2 * hidden_size, bias=False)
        bound = 1.0 / math.sqrt(hidden_size)
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    @classmethod
    def parameter_count(cls, input_size: int, hidden_size: int) -> int:
        return 2 * hidden_size * (input_size + hidden_size + 1)

    def step(self, x_t, state):
        (h,) = state
        pre_f, pre_n = (self.from_input(x_t) + self.from_state(h)).chunk(2, dim=-1)
        f, n = torch.sigmoid(pre_f), torch.tanh(pre_n)
        return (torch.lerp(n, h, f),), {"f": f, "n": n}

    def forward(self, x, state=None):
        # a faster path than step by step: the input side of every step in one product;
        # the manual step check (C1) holds it to step's result
        (h,) = self.initial_state(x.shape[0], x) if state is None else state
        from_input = self.from_input(x)
        outputs = []
        for t in range(x.shape[1]):
            pre_f, pre_n = (from_input[:, t] + self.from_state(h)).chunk(2, dim=-1)
            h = torch.lerp(torch.tanh(pre_n), h, torch.sigmoid(pre_f))
            outputs.append(h)
        return torch.stack(outputs, dim=1), (h,)


class NotACell(nn.Module):
    """For the config's refusal of a class that is not a cell."""
