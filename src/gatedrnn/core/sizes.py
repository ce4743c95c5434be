"""The cells and their parameter counts, in closed form where a cell declares one (no
torch: the plan, the widths and the memory estimate use them before any model exists); a
cell without one (minGRU, a plug-in by import path) is counted from an instantiated layer."""

from __future__ import annotations

from gatedrnn.core.registry import BUILTIN_CELLS, name_problem

# The built-in cells' names (gatedrnn.core.registry); a plug-in is named by import path.
CELLS = tuple(BUILTIN_CELLS)

# Gate blocks per cell with a closed-form count: how many H-row blocks each weight matrix stacks.
GATE_BLOCKS = {name: spec.blocks for name, spec in BUILTIN_CELLS.items() if spec.blocks is not None}

# What sits between the recurrent layer's output and the read-out (config train.readout_norm):
# the study's model has LayerNorm(H) there (its published counts say so, docs/experiments.md).
READOUT_NORMS = ("layernorm", "none")
# Parameters per hidden unit each normalisation adds (LayerNorm: a gain and a shift).
READOUT_NORM_PER_UNIT = {"layernorm": 2, "none": 0}


def readout_norm_problem(readout_norm: str) -> str | None:
    if readout_norm in READOUT_NORMS:
        return None
    return f"unknown readout_norm {readout_norm!r}; choose one of {', '.join(READOUT_NORMS)}"


def model_parameters(
    cell: str,
    hidden: int,
    vocab_size: int,
    embed_dim: int = 128,
    layers: int = 1,
    readout_norm: str = "layernorm",
) -> int:
    """Closed-form total of :class:`gatedrnn.core.model.CharModel`'s parameters (PyTorch's
    two biases per gate block, and the read-out normalisation's per-unit parameters).
    Equal to ``count_parameters(CharModel(...))`` (tests/test_model_and_widths.py);
    written out so that widths can be searched without building modules."""
    if problem := name_problem(cell):
        raise ValueError(problem)
    if problem := readout_norm_problem(readout_norm):
        raise ValueError(problem)
    recurrent = 0
    for layer in range(layers):
        d_in = embed_dim if layer == 0 else hidden
        recurrent += layer_parameters(cell, d_in, hidden)
    embedding = vocab_size * embed_dim
    norm = READOUT_NORM_PER_UNIT[readout_norm] * hidden
    head = hidden * vocab_size + vocab_size
    return embedding + recurrent + norm + head


def layer_parameters(cell: str, input_size: int, hidden: int) -> int:
    """One recurrent layer's parameters: closed form for a cell with gate blocks, else
    the plug-in's own count (:func:`gatedrnn.core.interface.layer_parameters`)."""
    if cell in GATE_BLOCKS:
        return GATE_BLOCKS[cell] * (hidden * input_size + hidden * hidden + 2 * hidden)
    from gatedrnn.core.interface import layer_parameters as counted
    from gatedrnn.core.registry import load_cell_class

    return counted(load_cell_class(cell), input_size, hidden)
