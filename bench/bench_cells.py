"""Benchmark the GRU cells: PyTorch's nn.GRU against the reset-before ("Cho") GRU
and the GRU without a reset (run on demand; prints a table).

One training step's forward and backward pass of the character model (V = 84,
embedding 128) at the budget-matched width (381), batch 32 windows of 128
characters, per cell:

- ``gru``: ``nn.GRU`` (PyTorch's fused kernel: cuDNN on a GPU, a native loop on CPU);
- ``cho_gru`` / ``gru_noreset``: :class:`gatedrnn.cells.GRUVariant`, the input
  projections of all steps in one product and a Python loop over the 128 steps
  (autograd records every step).

Each is timed ``--repeats`` times after one warm-up; the table gives the median
milliseconds per step and the ratio to ``nn.GRU``.

    PYTHONPATH=src python bench/bench_cells.py [--threads 2] [--repeats 5] [--device cpu] [--width 381]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn

from gatedrnn.model import CharModel

VOCAB, EMBED, BATCH, SEQ = 84, 128, 32, 128
CELLS = ("gru", "cho_gru", "gru_noreset")


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def time_step(cell: str, width: int, device: torch.device, repeats: int) -> list[float]:
    """Seconds of one forward + backward pass, ``repeats`` times after a warm-up."""
    torch.manual_seed(0)
    model = CharModel(VOCAB, cell, width, EMBED).to(device)
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ + 1), device=device)

    def step():
        model.zero_grad(set_to_none=True)
        logits, _ = model(tokens[:, :-1])
        nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1)).backward()

    step()
    times = []
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        step()
        synchronize(device)
        times.append(time.perf_counter() - start)
    return times


def benchmark_cells(width: int = 381, device: str = "cpu", repeats: int = 5, cells=CELLS) -> dict[str, float]:
    """Median seconds per forward + backward step of each cell."""
    dev = torch.device(device)
    return {cell: statistics.median(time_step(cell, width, dev, repeats)) for cell in cells}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=None, help="torch threads (CPU)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", default="cpu", help="cpu | cuda")
    parser.add_argument("--width", type=int, default=381)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    medians = benchmark_cells(args.width, args.device, args.repeats)
    print(
        f"device {args.device}, threads {torch.get_num_threads()}, width {args.width}, batch {BATCH} x {SEQ}"
    )
    print(f"{'cell':<12} {'ms/step':>9} {'x nn.GRU':>9}")
    for cell, seconds in medians.items():
        print(f"{cell:<12} {seconds * 1e3:>9.1f} {seconds / medians['gru']:>9.2f}")


if __name__ == "__main__":
    main()
