"""``eval``: the evaluation pass against a bare forward, and what validation costs a job."""

from __future__ import annotations

import torch
from torch import nn

from bench.common import interleave, label, med, parse_models, timed
from bench.grid import synthetic_split
from bench.harness import BareLoop, header, setup_torch
from bench.share import cadence_counts
from gatedrnn.core.data import validation_windows
from gatedrnn.train import loop as train_mod
from gatedrnn.train.config import TrainConfig


def cmd_eval(args) -> None:
    device = setup_torch(args)
    header(args, device, "eval")
    cfg = TrainConfig()
    train_ids, val_ids = synthetic_split(args.vocab)
    windows = validation_windows(val_ids, cfg.val_windows, cfg.seq_len).to(device)
    tokens = windows.shape[0] * (windows.shape[1] - 1)
    evals_job, _ = cadence_counts(cfg.steps, cfg.eval_every, args.checkpoint_every)
    n = args.steps
    print(
        f"# {cfg.val_windows} validation windows x {cfg.seq_len} = {tokens} tokens per evaluation; "
        f"a job evaluates {evals_job} times"
    )

    def bare_eval(model, mode):
        with mode():
            logits, _ = model(windows[:, :-1])
            nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), windows[:, 1:].reshape(-1)
            ).item()

    print(
        f"{'model':<10} | {'tokens/s wall':^26} | {'evaluate/bare':^15} | {'ms CPU':^8} | "
        f"{'eval/step':>9} {'job share':>9}"
    )
    for cell, hidden in parse_models(args.models):
        bare = BareLoop(cell, hidden, args.vocab, cfg, device, train_ids)
        model = bare.model
        model.train()

        def many(fn):
            return lambda: timed(lambda: [fn() for _ in range(n)], device)

        contenders = {
            "evaluate": many(lambda m=model: train_mod.evaluate(m, windows)),
            "no_grad": many(lambda m=model: bare_eval(m, torch.no_grad)),
            "inference": many(lambda m=model: bare_eval(m, torch.inference_mode)),
            "train step": many(bare.step),
        }
        for fn in contenders.values():
            fn()
        res = interleave(contenders, args.rounds)
        wall = {k: med(v, "wall") / n for k, v in res.items()}
        cpu = {k: med(v, "cpu") / n for k, v in res.items()}
        base = "cpu" if device.type == "cpu" else "wall"
        t = cpu if base == "cpu" else wall
        share = evals_job * t["evaluate"] / (evals_job * t["evaluate"] + cfg.steps * t["train step"])
        print(
            f"{label(cell, hidden):<10} | {tokens / wall['evaluate']:>8.0f} {tokens / wall['no_grad']:>8.0f} "
            f"{tokens / wall['inference']:>8.0f} | {wall['evaluate'] / wall['no_grad']:>6.3f} "
            f"{cpu['evaluate'] / cpu['no_grad']:>8.3f} | {cpu['evaluate'] * 1e3:>8.1f} | "
            f"{t['evaluate'] / t['train step']:>9.2f} {100 * share:>8.2f}%"
        )
    print(
        "tokens/s: evaluate() (gatedrnn.train.loop), bare no_grad forward, bare inference_mode forward; "
        "evaluate/bare: wall and CPU-time ratios to no_grad; eval/step: one evaluation in training "
        f"steps ({'CPU' if device.type == 'cpu' else 'wall'} time); job share: {evals_job} evaluations "
        f"against {cfg.steps} steps."
    )
