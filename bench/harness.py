"""Set-up shared by the training benchmarks: torch's process settings, the table header,
the bare PyTorch step, and the marginal cost of ``train_model``'s steps."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch
from torch import nn

from bench.common import Sample, load_average, timed
from bench.grid import SEED, default_threads, given_or_found
from bench.memory import retain_freed_memory
from gatedrnn.core.data import sample_windows
from gatedrnn.train.config import TrainConfig
from gatedrnn.train.loop import build_model, make_optimizer, pick_device, set_determinism, train_model


def resolve_vocab(args) -> None:
    """``args.vocab`` (and where it comes from) when the command line did not give it; once."""
    if getattr(args, "vocab_source", None) is None:
        found = given_or_found(getattr(args, "vocab", None))
        args.vocab, args.vocab_source = found.size, found.source


def setup_torch(args) -> torch.device:
    resolve_vocab(args)
    threads = args.threads if args.threads is not None else default_threads()
    args.threads = threads
    torch.set_num_threads(threads)
    # opt-in (the train job does not: resumed runs would differ); process-wide, so for every contender
    args.retained = retain_freed_memory() if args.retain else False
    device = pick_device(args.device)
    set_determinism(device)
    return device


def header(args, device: torch.device, what: str) -> None:
    cfg = TrainConfig()
    print(
        f"# {what}: device {device}, {args.threads} thread(s) "
        f"(torch {torch.__version__}, mkldnn {'on' if torch.backends.mkldnn.enabled else 'off'}, "
        f"freed memory {'retained' if args.retained else 'returned to the OS'}), "
        f"batch {cfg.batch_size} x {cfg.seq_len}, V {args.vocab} ({args.vocab_source}), "
        f"embed {cfg.embed_dim}, {args.rounds} interleaved rounds; medians"
    )
    if device.type == "cpu":
        print(f"# load average at start: {load_average()}")


class BareLoop:
    """The bare PyTorch step on the same module and optimizer as the workflow's."""

    def __init__(self, cell, hidden, vocab, cfg, device, train_ids, build=build_model, optim=make_optimizer):
        self.cfg, self.device = cfg, device
        self.model = build(cell, hidden, vocab, SEED, cfg).to(device)
        self.optimizer = optim(self.model, cfg)
        batch = sample_windows(train_ids, cfg.batch_size, cfg.seq_len, torch.Generator().manual_seed(SEED))
        batch = batch.to(device)
        self.inputs, self.targets = batch[:, :-1], batch[:, 1:].reshape(-1)

    def loss(self) -> torch.Tensor:
        logits, _ = self.model(self.inputs)
        return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), self.targets)

    def step(self) -> None:
        loss = self.loss()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip_norm)
        self.optimizer.step()

    def forward_backward(self) -> None:
        self.model.zero_grad(set_to_none=True)
        self.loss().backward()

    def steps(self, n: int, fn: Callable[[], None]) -> Sample:
        def run():
            for _ in range(n):
                fn()

        return timed(run, self.device)


def workflow_steps(cell, hidden, vocab, cfg, n, device, train_ids, val_ids) -> Sample:
    """Marginal time of n steps of train_model: a (1 + n)-step run minus a 1-step run
    (each evaluates at step 0 and at its last step; no checkpoints)."""

    def run(steps):
        c = dataclasses.replace(cfg, steps=steps, eval_every=steps)
        return timed(
            lambda: train_model(
                cell=cell,
                hidden=hidden,
                seed=SEED,
                vocab_size=vocab,
                train_ids=train_ids,
                val_ids=val_ids,
                cfg=c,
                device=str(device),
                log=lambda message: None,
            ),
            device,
        )

    long, short = run(1 + n), run(1)
    return Sample(long.wall - short.wall, long.cpu - short.cpu, long.faults - short.faults)
