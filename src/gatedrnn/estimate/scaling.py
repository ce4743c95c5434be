"""A calibration's seconds carried to other widths of the same cell: the work of a
step is its matrix multiplies, so seconds scale with their floating-point operations.

Per character, each weight matrix ``W`` (out x in) costs ``2 * in * out`` FLOPs forward
and twice that backward (gradients for its input and for ``W``): a training step is
3 forwards over ``batch_size * seq_len`` characters, a validation pass one forward over
``val_windows * seq_len``. A layer of a cell with ``blocks`` gate blocks multiplies
``blocks * H x (d_in + H)``; the read-out ``V x H``; the embedding is a gather (none).
The gates' elementwise work, the normalisation and the optimizer are about 1 % more
(bench/flops.py counts the same).

Only cells PyTorch trains with its own fused module (``FLOP_SCALED``) are scaled, and
only within one calibrated (cell, layers, batch_size): how fast a multiply runs depends
on its rows (``batch_size``: a FLOP count from 32 windows was 27 % off at 16, issue
#52), while a window of ``seq_len`` characters is ``seq_len`` alike steps of the
recurrence; and only ``REACH`` times up or down in step FLOPs. A cell stepped by a
Python loop (``cho_gru``, ``gru_noreset``, ``cifg``, ``mingru``) or a plug-in pays
per-character interpreter overhead no FLOP count sees: each of its shapes is calibrated.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from gatedrnn.core.sizes import GATE_BLOCKS

if TYPE_CHECKING:
    from gatedrnn.estimate.costs import Shape

# nn.RNN, nn.GRU and nn.LSTM: one fused kernel per layer and step (gatedrnn.core.builtin_cells).
FLOP_SCALED = ("rnn", "gru", "lstm")
# How far in step FLOPs a calibration is carried. Measured (issue #52, steps alternated):
# from the LSTM at 325 to 256, 512, half and twice the window, within 7 %; from the GRU at
# 381 to 325 and 598, 2 %; but to the GRU at 128 (0.21x the FLOPs) a step took 1.5x what
# its FLOPs say: in a small model the gates' elementwise work and the per-character
# overhead, which no FLOP count sees, weigh more. A shape further off is timed itself.
REACH = 3.0


def forward_flops_per_char(shape: Shape) -> int:
    """Matrix-multiply FLOPs of one character through the model, forward."""
    blocks = GATE_BLOCKS[shape.cell]
    flops = 0
    for layer in range(shape.layers):
        d_in = shape.embed_dim if layer == 0 else shape.width
        flops += 2 * blocks * shape.width * (d_in + shape.width)
    return flops + 2 * shape.width * shape.vocab_size


def step_flops(shape: Shape) -> int:
    return 3 * forward_flops_per_char(shape) * shape.batch_size * shape.seq_len


def evaluation_flops(shape: Shape) -> int:
    return forward_flops_per_char(shape) * shape.val_windows * shape.seq_len


def family(shape: Shape) -> Shape | None:
    """What a calibration is carried across: shapes of one family differ only in what a
    FLOP count covers (width, window length, vocabulary, embedding, validation windows,
    read-out norm) or in what a step does not time (the optimizer). None: calibrated
    shape by shape."""
    if shape.cell not in FLOP_SCALED:
        return None
    return replace(shape, width=0, seq_len=0, embed_dim=0, vocab_size=0, optimizer="", val_windows=0,
                   readout_norm="")  # fmt: skip


def distance(shape: Shape, other: Shape) -> float:
    return abs(math.log(step_flops(shape) / step_flops(other)))


def nearest(shape: Shape, calibrated: list[Shape]) -> Shape | None:
    """The calibrated shape of ``shape``'s family whose step FLOPs are closest to its own,
    if within ``REACH``."""
    near = min(calibrated, key=lambda other: distance(shape, other), default=None)
    return near if near is not None and distance(shape, near) <= math.log(REACH) else None


def anchors(steps: dict[Shape, int], calibrated: list[Shape]) -> list[Shape]:
    """The shapes of one family to calibrate so that each of ``steps`` (shape: the steps
    its jobs train) is within reach of one: the steps-weighted median in step FLOPs of
    those out of reach (most of the projection rests on it), then again for the rest."""
    out: list[Shape] = []
    left = sorted((s for s in steps if nearest(s, calibrated) is None), key=step_flops)
    while left:
        half, total = sum(steps[s] for s in left) / 2, 0
        anchor = next(s for s in left if (total := total + steps[s]) >= half)
        out.append(anchor)
        left = [s for s in left if distance(s, anchor) > math.log(REACH)]
    return out


def scaled(step: float, evaluation: float, calibrated: Shape, shape: Shape) -> tuple[float, float]:
    """Seconds per step and per validation pass of ``shape``, from ``calibrated``'s."""
    return (step * step_flops(shape) / step_flops(calibrated),
            evaluation * evaluation_flops(shape) / evaluation_flops(calibrated))  # fmt: skip
