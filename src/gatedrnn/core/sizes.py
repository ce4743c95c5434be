"""The cells and their parameter counts, in closed form (no torch: the plan, the widths
and the memory estimate use them before any model exists)."""

from __future__ import annotations

CELLS = ("rnn", "gru", "lstm", "gru_noreset", "cho_gru")

# Gate blocks per cell: how many H-row blocks each weight matrix stacks.
GATE_BLOCKS = {"rnn": 1, "gru": 3, "lstm": 4, "gru_noreset": 2, "cho_gru": 3}

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
    if cell not in CELLS:
        raise ValueError(f"unknown cell {cell!r}; choose one of {', '.join(CELLS)}")
    if problem := readout_norm_problem(readout_norm):
        raise ValueError(problem)
    blocks = GATE_BLOCKS[cell]
    recurrent = 0
    for layer in range(layers):
        d_in = embed_dim if layer == 0 else hidden
        recurrent += blocks * (hidden * d_in + hidden * hidden + 2 * hidden)
    embedding = vocab_size * embed_dim
    norm = READOUT_NORM_PER_UNIT[readout_norm] * hidden
    head = hidden * vocab_size + vocab_size
    return embedding + recurrent + norm + head
