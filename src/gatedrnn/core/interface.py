"""The interface of a recurrent cell (docs/cells.md): what a plug-in writes.

A cell is one layer: a subclass of :class:`RecurrentCell` (an ``nn.Module``) that
declares, as class attributes,

- ``gates``: the names of the gate activations it produces per step;
- ``states``: the names of its state vectors (``h``, the output, among them);
- ``keep_gate``: the gate whose value is the fraction of the state KEPT per step
  (its per-unit mean sets a unit's half-life), or None;
- ``couplings``: pairs ``(a, b)`` for which ``a = 1 - b`` is a candidate tie (the
  LSTM's ``("i", "f")``), or none;
- ``gate_labels``: optional words for the gates (``{"f": "forget"}``);

and implements ``__init__(input_size, hidden_size)`` and
``step(x_t, state) -> (state, gates)``: one step from the input ``x_t`` (B, D) and the
state (a tuple of (B, H) tensors in the order of ``states``) to the next state and the
gate activations (a dict of (B, H) tensors, one per name of ``gates``). ``forward``
runs ``step`` over a batch-first sequence; a cell may override it with a faster
whole-sequence path, which the manual step check (study C1) then compares with
``step``. ``parameter_count(input_size, hidden_size)`` may give the layer's count in
closed form; by default it is counted from an instantiated module.

:class:`Layers` stacks a cell into the ``nn.RNN``-shaped module (batch-first,
``forward(x, hx) -> (out, h_n)``) that :class:`gatedrnn.core.model.CharModel` trains.
The study's own cells are plug-ins of the same interface (:mod:`gatedrnn.core.builtin_cells`)
whose ``training_module`` is PyTorch's ``nn.LSTM``/``nn.GRU``/``nn.RNN``.
"""

from __future__ import annotations

from typing import ClassVar

import torch
from torch import nn

State = tuple[torch.Tensor, ...]


class RecurrentCell(nn.Module):
    """One recurrent layer with named gates; subclass it (docs/cells.md)."""

    gates: ClassVar[tuple[str, ...]] = ()
    states: ClassVar[tuple[str, ...]] = ("h",)
    keep_gate: ClassVar[str | None] = None
    couplings: ClassVar[tuple[tuple[str, str], ...]] = ()
    gate_labels: ClassVar[dict[str, str]] = {}

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size

    @classmethod
    def declaration_problem(cls) -> str | None:
        """What is wrong with the class's declarations, or None."""
        if "h" not in cls.states:
            return f"states {cls.states!r} must name the output 'h'"
        if len(set(cls.gates) | set(cls.states)) != len(cls.gates) + len(cls.states):
            return f"gate and state names must be distinct: {cls.gates!r}, {cls.states!r}"
        if cls.keep_gate is not None and cls.keep_gate not in cls.gates:
            return f"keep_gate {cls.keep_gate!r} is not one of its gates {cls.gates!r}"
        for pair in cls.couplings:
            if len(pair) != 2 or not set(pair) <= set(cls.gates):
                return f"coupling {pair!r} must be two of its gates {cls.gates!r}"
        if cls.step is RecurrentCell.step:
            return "it does not implement step(x_t, state)"
        return None

    @classmethod
    def parameter_count(cls, input_size: int, hidden_size: int) -> int | None:
        """The layer's parameters in closed form, or None (counted from a module)."""
        return None

    def initial_state(self, batch: int, like: torch.Tensor) -> State:
        """The zero state: one (B, H) tensor per name of ``states``."""
        return tuple(like.new_zeros(batch, self.hidden_size) for _ in self.states)

    def output(self, state: State) -> torch.Tensor:
        """The output ``h`` of a state."""
        return state[self.states.index("h")]

    def step(self, x_t: torch.Tensor, state: State) -> tuple[State, dict[str, torch.Tensor]]:
        raise NotImplementedError

    def forward(self, x: torch.Tensor, state: State | None = None) -> tuple[torch.Tensor, State]:
        """The output sequence (B, T, H) and the final state of a batch-first ``x``."""
        state = self.initial_state(x.shape[0], x) if state is None else state
        outputs = []
        for t in range(x.shape[1]):
            state, _ = self.step(x[:, t], state)
            outputs.append(self.output(state))
        return torch.stack(outputs, dim=1), state

    def sequence_gates(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """Every gate and state (B, T, H) of a sequence from the zero state, by ``step``."""
        state = self.initial_state(x.shape[0], x)
        rows: dict[str, list[torch.Tensor]] = {name: [] for name in (*self.gates, *self.states)}
        for t in range(x.shape[1]):
            state, gates = self.step(x[:, t], state)
            for name in self.gates:
                rows[name].append(gates[name])
            for name, value in zip(self.states, state, strict=True):
                rows[name].append(value)
        return {name: torch.stack(values, dim=1) for name, values in rows.items()}

    @classmethod
    def training_module(cls, input_size: int, hidden_size: int, num_layers: int) -> nn.Module:
        """The module that trains the cell: :class:`Layers` of it by default."""
        return Layers(cls, input_size, hidden_size, num_layers)


class Layers(nn.Module):
    """``num_layers`` cells stacked, shaped like ``nn.RNN`` (batch-first, unidirectional):
    ``forward(x, hx) -> (out (B, T, H), final states (one per layer))``."""

    batch_first = True
    bidirectional = False
    proj_size = 0
    bias = True

    def __init__(self, cell: type[RecurrentCell], input_size: int, hidden_size: int, num_layers: int = 1):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.layers = nn.ModuleList(
            cell(input_size if layer == 0 else hidden_size, hidden_size) for layer in range(num_layers)
        )

    def forward(self, x: torch.Tensor, hx=None):
        finals = []
        for layer, cell in enumerate(self.layers):
            x, final = cell(x, None if hx is None else hx[layer])
            finals.append(final)
        return x, tuple(finals)

    def layer_input(self, x: torch.Tensor, layer: int) -> torch.Tensor:
        """What layer ``layer`` reads: ``x`` through the layers below it."""
        for below in self.layers[:layer]:
            x, _ = below(x)
        return x


def layer_parameters(cell: type[RecurrentCell], input_size: int, hidden_size: int) -> int:
    """One layer's parameters: the closed form if the cell gives one, else counted."""
    closed = cell.parameter_count(input_size, hidden_size)
    if closed is not None:
        return closed
    with torch.device("meta"):  # shapes only: no memory, no random numbers drawn
        module = cell(input_size, hidden_size)
    return sum(p.numel() for p in module.parameters())
