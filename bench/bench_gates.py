"""Benchmark gate extraction (run on demand; prints a table).

An LSTM character model at the grid's reference width (325; ``grid.reference_width``
of ``config/config.yaml``) on the corpus's vocabulary (V = 84 for the default
corpus; :mod:`bench.grid`), embedding 128, PyTorch default initialisation, over
a 32 x 128 probe set of random characters, three ways:

- ``module forward``: one pass of ``nn.LSTM`` over the embedded probe set;
- ``extract_gates``: :func:`gatedrnn.analysis.gates.extract_gates` (that forward pass,
  one batched matmul for every gate at every position, an elementwise
  cell-state scan, conversion to NumPy);
- ``python step loop``: the same gates recomputed one time step at a time in
  Python (two matmuls per step), the way a naive recomputation would do it;
- ``step loop + forward``: that loop plus the module's forward pass, which a
  manual-step check needs as well (like for like with ``extract_gates``).

Each is timed ``--repeats`` times after one warm-up; the table gives the median
and the ratio to the module's forward pass.

    PYTHONPATH=src python -m bench gates [--threads 1] [--repeats 7] [--device cpu] [--width H] [--vocab V]

(or ``PYTHONPATH=src python bench/bench_gates.py ...``, the same).
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file (python bench/bench_gates.py): import `bench` from the repository
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import statistics
import time

import numpy as np
import torch

from bench.grid import given_or_found, reference_width
from gatedrnn.analysis.gates import extract_gates, manual_step_check
from gatedrnn.core.model import CharModel
from gatedrnn.train.config import TrainConfig

EMBED, LINES, LENGTH = TrainConfig().embed_dim, 32, 128


def step_loop_gates(model: CharModel, tokens: torch.Tensor) -> dict[str, np.ndarray]:
    """LSTM gates recomputed one time step at a time (the reference being beaten)."""
    rnn = model.rnn
    w_ih, w_hh, b_ih, b_hh = rnn.weight_ih_l0, rnn.weight_hh_l0, rnn.bias_ih_l0, rnn.bias_hh_l0
    with torch.no_grad():
        x = model.embed(tokens)
        batch, steps, _ = x.shape
        h = x.new_zeros(batch, model.hidden)
        c = x.new_zeros(batch, model.hidden)
        out = {k: [] for k in ("i", "f", "g", "o", "c", "h")}
        for t in range(steps):
            pre_i, pre_f, pre_g, pre_o = (x[:, t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh).chunk(4, dim=-1)
            i, f, o = torch.sigmoid(pre_i), torch.sigmoid(pre_f), torch.sigmoid(pre_o)
            g = torch.tanh(pre_g)
            c = f * c + i * g
            h = o * torch.tanh(c)
            for name, value in zip("ifgoch", (i, f, g, o, c, h), strict=True):
                out[name].append(value)
    return {k: torch.stack(v, dim=1).cpu().numpy() for k, v in out.items()}


def module_forward(model: CharModel, tokens: torch.Tensor) -> None:
    with torch.no_grad():
        out, _ = model.rnn(model.embed(tokens))
        out.cpu()


def median_seconds(fn, repeats: int, device: torch.device) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--vocab", type=int, default=None, help="V (default: the corpus's; bench/README.md)")
    parser.add_argument("--width", type=int, default=None, help="default: the grid's reference width")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    found = given_or_found(args.vocab)
    vocab, width = found.size, args.width or reference_width()

    torch.manual_seed(0)
    model = CharModel(vocab, "lstm", width, embed_dim=EMBED).to(device).eval()
    tokens = torch.randint(0, vocab, (LINES, LENGTH), generator=torch.Generator().manual_seed(1))
    tokens = tokens.to(device)

    batched, looped = extract_gates(model, tokens), step_loop_gates(model, tokens)
    agreement = max(float(np.abs(batched[k] - looped[k]).max()) for k in looped)
    check = manual_step_check(model, tokens)

    timings = {
        "module forward": median_seconds(lambda: module_forward(model, tokens), args.repeats, device),
        "extract_gates": median_seconds(lambda: extract_gates(model, tokens), args.repeats, device),
        "python step loop": median_seconds(lambda: step_loop_gates(model, tokens), args.repeats, device),
    }
    forward = timings["module forward"]
    timings["step loop + forward"] = timings["python step loop"] + forward
    print(
        f"LSTM width {width}, V {vocab} ({found.source}), embed {EMBED}, probe {LINES} x {LENGTH}; "
        f"device {device}, {args.threads} thread(s), median of {args.repeats}"
    )
    print(f"{'method':<20} {'ms':>9} {'x forward':>10}")
    for name, seconds in timings.items():
        print(f"{name:<20} {seconds * 1e3:9.2f} {seconds / forward:10.2f}")
    for name in ("python step loop", "step loop + forward"):
        print(f"{name} / extract_gates: {timings[name] / timings['extract_gates']:.2f}")
    print(f"max |batched - step loop| over all gates and states: {agreement:.2e}")
    print(
        f"manual_step_check: hidden {check['max_abs_diff_hidden']:.2e}, "
        f"final cell {check['max_abs_diff_final_cell']:.2e}"
    )


if __name__ == "__main__":
    main()
