"""Benchmark the GRU cells: PyTorch's nn.GRU against the reset-before ("Cho") GRU
and the GRU without a reset (run on demand; prints a table).

One training step's forward and backward pass of the character model at the
budget-matched GRU width (381 at the default corpus's V = 84; both computed:
:mod:`bench.grid`), embedding 128, batch 32 windows of 128 characters, per
contender:

- ``gru``: ``nn.GRU`` (PyTorch's fused kernel: cuDNN on a GPU, a native loop on CPU);
- ``cho_gru`` / ``gru_noreset``: :class:`gatedrnn.core.cells.GRUVariant` as trained,
  i.e. :func:`gatedrnn.core.cells.gru_layer` (the input projections of all steps in
  one product, a loop over time that records nothing, the backward through time
  written out in :class:`gatedrnn.core.cells.GRUScan`);
- ``... recorded``: the same module through :func:`gatedrnn.core.cells.gru_layer_scan`,
  the reference loop that autograd records step by step (what the fast path replaced).

Contenders run in interleaved rounds (the order rotates), ``--repeats`` rounds
after one warm-up each; the table gives the median wall and CPU milliseconds
per step and the ratio to ``nn.GRU`` (on a shared machine trust the CPU column
at one thread).

    PYTHONPATH=src python -m bench cells [--threads 1] [--repeats 5] [--device cpu] [--width H] [--vocab V]

(or ``PYTHONPATH=src python bench/bench_cells.py ...``, the same).
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file (python bench/bench_cells.py): import `bench` from the repository
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import statistics
import time
from unittest import mock

import torch
from torch import nn

from bench.grid import budget_width, given_or_found
from gatedrnn.core import cells
from gatedrnn.core.model import CharModel
from gatedrnn.train.config import TrainConfig

EMBED, BATCH, SEQ = TrainConfig().embed_dim, TrainConfig().batch_size, TrainConfig().seq_len
CONTENDERS = ("gru", "cho_gru", "gru_noreset", "cho_gru recorded", "gru_noreset recorded")


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def make_step(contender: str, width: int, vocab: int, device: torch.device):
    """A closure running one forward + backward pass of ``contender``."""
    cell, _, recorded = contender.partition(" ")
    torch.manual_seed(0)
    model = CharModel(vocab, cell, width, EMBED).to(device)
    tokens = torch.randint(0, vocab, (BATCH, SEQ + 1), device=device)
    # the reference loop in place of the fast path, for this contender only
    layer = mock.patch.object(cells, "gru_layer", cells.gru_layer_scan) if recorded else None

    def step():
        model.zero_grad(set_to_none=True)
        if layer:
            layer.start()
        try:
            logits, _ = model(tokens[:, :-1])
        finally:
            if layer:
                layer.stop()
        nn.functional.cross_entropy(logits.reshape(-1, vocab), tokens[:, 1:].reshape(-1)).backward()

    return step


def benchmark_cells(
    width: int, vocab: int, device="cpu", repeats=5, contenders=CONTENDERS
) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) seconds per forward + backward step of each contender."""
    dev = torch.device(device)
    steps = {name: make_step(name, width, vocab, dev) for name in contenders}
    for step in steps.values():
        step()  # warm-up
    samples = {name: [] for name in contenders}
    names = list(contenders)
    for r in range(repeats):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            synchronize(dev)
            w0, c0 = time.perf_counter(), time.process_time()
            steps[name]()
            synchronize(dev)
            samples[name].append((time.perf_counter() - w0, time.process_time() - c0))
    return {
        name: (statistics.median(s[0] for s in got), statistics.median(s[1] for s in got))
        for name, got in samples.items()
    }


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=None, help="torch threads (CPU)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", default="cpu", help="cpu | cuda")
    parser.add_argument("--vocab", type=int, default=None, help="V (default: the corpus's; bench/README.md)")
    parser.add_argument("--width", type=int, default=None, help="default: the budget-matched GRU's on V")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    found = given_or_found(args.vocab)
    args.vocab, source = found.size, found.source
    if args.width is None:
        args.width = budget_width("gru", args.vocab)
    medians = benchmark_cells(args.width, args.vocab, args.device, args.repeats)
    print(
        f"device {args.device}, threads {torch.get_num_threads()}, width {args.width}, V {args.vocab} "
        f"({source}), batch {BATCH} x {SEQ}, {args.repeats} interleaved rounds, medians"
    )
    wall0, cpu0 = medians["gru"]
    print(f"{'contender':<22} {'wall ms':>8} {'CPU ms':>8} {'x nn.GRU (wall)':>16} {'(CPU)':>6}")
    for name, (wall, cpu) in medians.items():
        print(f"{name:<22} {wall * 1e3:>8.1f} {cpu * 1e3:>8.1f} {wall / wall0:>16.2f} {cpu / cpu0:>6.2f}")


if __name__ == "__main__":
    main()
