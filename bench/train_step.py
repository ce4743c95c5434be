"""``train-step``: tokens/s of the workflow's training step beside a bare PyTorch loop."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys

from bench.common import Sample, interleave, label, med, parse_models, usable_cores
from bench.flops import cpu_peak_gflops, step_flops
from bench.grid import SEED, synthetic_split
from bench.harness import BareLoop, header, setup_torch, workflow_steps
from bench.share import share_table
from gatedrnn.core.model import count_parameters
from gatedrnn.train.config import TrainConfig
from gatedrnn.train.loop import build_model

STEP_CONTENDERS = ("train_model", "bare", "fwd+bwd")


def contender_timing(contender, cell, hidden, vocab, n, device, train_ids, val_ids) -> Sample:
    """Warm one contender up, then time n of its steps (train_model: marginal, see workflow_steps)."""
    cfg = TrainConfig()
    if contender == "train_model":
        workflow_steps(cell, hidden, vocab, cfg, 1, device, train_ids, val_ids)
        return workflow_steps(cell, hidden, vocab, cfg, n, device, train_ids, val_ids)
    bare = BareLoop(cell, hidden, vocab, cfg, device, train_ids)
    fn = bare.step if contender == "bare" else bare.forward_backward
    fn()  # warm-up (oneDNN primitives, allocator)
    return bare.steps(n, fn)


def cmd_step_worker(args) -> None:
    """Internal: one timing of `train-step` (default mode) in a fresh process; prints JSON."""
    device = setup_torch(args)
    train_ids, val_ids = synthetic_split(args.vocab)
    s = contender_timing(
        args.contender, args.cell, args.hidden, args.vocab, args.steps, device, train_ids, val_ids
    )
    print(json.dumps(dataclasses.asdict(s)), flush=True)


def isolated_timing(contender, cell, hidden, args) -> Sample:
    cmd = [sys.executable, "-m", "bench", "_step", "--contender", contender, "--cell", cell]
    cmd += ["--hidden", str(hidden), "--vocab", str(args.vocab)]
    cmd += ["--steps", str(args.steps), "--threads", str(args.threads)]
    cmd += ["--device", args.device] + (["--retain"] if args.retain else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark worker {' '.join(cmd[3:])} failed:\n{proc.stderr[-2000:]}")
    return Sample(**json.loads(proc.stdout.strip().splitlines()[-1]))


def cmd_train_step(args) -> None:
    device = setup_torch(args)
    header(args, device, "train-step")
    cfg = TrainConfig()
    tokens = cfg.batch_size * cfg.seq_len
    train_ids, val_ids = synthetic_split(args.vocab)
    cores = min(args.threads, usable_cores()) if device.type == "cpu" else 0
    peak, how = cpu_peak_gflops(cores, args.fma_units) if device.type == "cpu" else (math.nan, "")
    n = args.steps
    print(
        "# each timing in a fresh process (as a workflow job is)"
        if not args.in_process
        else "# all timings in this one process (allocator state shared between contenders)"
    )
    rows = []
    for cell, hidden in parse_models(args.models):
        if args.in_process:
            bare = BareLoop(cell, hidden, args.vocab, cfg, device, train_ids)
            bare.step()  # warm-up (oneDNN primitives, allocator)
            workflow_steps(cell, hidden, args.vocab, cfg, 1, device, train_ids, val_ids)
            contenders = {
                "train_model": lambda c=cell, h=hidden: workflow_steps(
                    c, h, args.vocab, cfg, n, device, train_ids, val_ids
                ),
                "bare": lambda b=bare: b.steps(n, b.step),
                "fwd+bwd": lambda b=bare: b.steps(n, b.forward_backward),
            }
        else:
            contenders = {
                name: lambda k=name, c=cell, h=hidden: isolated_timing(k, c, h, args)
                for name in STEP_CONTENDERS
            }
        res = interleave(contenders, args.rounds)
        flops = step_flops(cell, hidden, args.vocab, cfg.embed_dim, cfg.layers, tokens)["step"]
        params = count_parameters(build_model(cell, hidden, args.vocab, SEED, cfg))
        rows.append((cell, hidden, params, flops, res))
        print(f"  done {cell} w{hidden}", file=sys.stderr, flush=True)

    print()
    print(
        f"{'model':<10} {'params':>8} {'GFLOP':>6} | {'tokens/s wall':^27} | "
        f"{'train_model/bare':^16} | {'ms/step CPU time':^23} | {'bare':^14}"
    )
    print(
        f"{'':<10} {'':>8} {'/step':>6} | {'train_model':>11} {'bare':>7} {'f+b':>7} | "
        f"{'wall':>7} {'CPU':>8} | {'train_m':>7} {'bare':>7} {'f+b':>7} | {'GFLOP/s':>7} {'%peak':>6}"
    )
    for cell, hidden, params, flops, res in rows:
        wall = {k: med(v, "wall") / n for k, v in res.items()}
        cpu = {k: med(v, "cpu") / n for k, v in res.items()}
        # GFLOP/s from CPU time per thread-second when on CPU (robust to a shared machine)
        per_s = cpu["bare"] / max(args.threads, 1) if device.type == "cpu" else wall["bare"]
        gflops = flops / per_s / 1e9
        print(
            f"{label(cell, hidden):<10} {params:>8} {flops / 1e9:>6.1f} | "
            f"{tokens / wall['train_model']:>11.0f} {tokens / wall['bare']:>7.0f} "
            f"{tokens / wall['fwd+bwd']:>7.0f} | "
            f"{wall['train_model'] / wall['bare']:>7.3f} {cpu['train_model'] / cpu['bare']:>8.3f} | "
            f"{cpu['train_model'] * 1e3:>7.1f} {cpu['bare'] * 1e3:>7.1f} {cpu['fwd+bwd'] * 1e3:>7.1f} | "
            f"{gflops:>7.1f} {100 * gflops / peak if peak == peak else math.nan:>5.1f}%"
        )
    print()
    print(
        f"train_model = marginal cost of a step of gatedrnn.train.loop.train_model ((1+{n})-step run minus "
        f"1-step run); bare = the same module/optimizer, fixed batch; f+b = forward + loss + backward. "
        f"{n} steps per timing."
    )
    if device.type == "cpu":
        print(f"GFLOP/s = step FLOPs / (CPU seconds per step / threads); peak: {how}.")
    print("Spread of the train_model/bare wall ratio per round:")
    for cell, hidden, _, _, res in rows:
        ratios = [a.wall / b.wall for a, b in zip(res["train_model"], res["bare"], strict=True)]
        print(f"  {cell} w{hidden}: " + " ".join(f"{r:.3f}" for r in ratios))
    print("Minor page faults per step (median; train_model's is a difference of two runs, can be < 0):")
    for cell, hidden, _, _, res in rows:
        print(f"  {cell} w{hidden}: " + ", ".join(f"{k} {med(v, 'faults') / n:.0f}" for k, v in res.items()))

    if args.share_steps > 0:
        print()
        share_table(args, device, cfg, train_ids, val_ids)
