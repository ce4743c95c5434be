"""The cells and their parameter counts, in closed form (no torch: the plan, the widths
and the memory estimate use them before any model exists)."""

from __future__ import annotations

CELLS = ("rnn", "gru", "lstm", "gru_noreset", "cho_gru")

# Gate blocks per cell: how many H-row blocks each weight matrix stacks.
GATE_BLOCKS = {"rnn": 1, "gru": 3, "lstm": 4, "gru_noreset": 2, "cho_gru": 3}


def model_parameters(cell: str, hidden: int, vocab_size: int, embed_dim: int = 128, layers: int = 1) -> int:
    """Closed-form total of :class:`gatedrnn.core.model.CharModel`'s parameters (PyTorch's
    two biases per gate block). Equal to ``count_parameters(CharModel(...))``
    (tests/test_model_and_widths.py); written out so that widths can be searched
    without building modules."""
    if cell not in CELLS:
        raise ValueError(f"unknown cell {cell!r}; choose one of {', '.join(CELLS)}")
    blocks = GATE_BLOCKS[cell]
    recurrent = 0
    for layer in range(layers):
        d_in = embed_dim if layer == 0 else hidden
        recurrent += blocks * (hidden * d_in + hidden * hidden + 2 * hidden)
    embedding = vocab_size * embed_dim
    head = hidden * vocab_size + vocab_size
    return embedding + recurrent + head
