"""``variants``: oneDNN, a time-major layout, Adam's variants and torch.compile; bit-identity."""

from __future__ import annotations

import contextlib
import math
import time
from unittest import mock

import torch
from torch import nn

from bench.common import interleave, label, med, parse_models
from bench.grid import SEED, synthetic_split
from bench.harness import BareLoop, header, setup_torch
from gatedrnn.core.model import CharModel
from gatedrnn.train import loop as train_mod
from gatedrnn.train.config import TrainConfig
from gatedrnn.train.loop import build_model, make_optimizer, train_model


class TimeMajor(CharModel):
    """The same module fed time-major (seq, batch, feature): what a contiguous layout buys."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.rnn.batch_first = False

    def forward(self, tokens, state=None):
        out, state = self.rnn(self.embed(tokens.t()), state)
        return self.head(out).transpose(0, 1), state


def variant_setup(variant: str):
    """(context manager factory, build_model replacement or None, make_optimizer replacement or None)."""
    ctx = contextlib.nullcontext
    build = optim = None
    if variant == "mkldnn off":

        @contextlib.contextmanager
        def ctx():
            with torch.backends.mkldnn.flags(enabled=False):
                yield

    elif variant == "time-major":

        def build(cell, hidden, vocab_size, seed, cfg):
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                return TimeMajor(vocab_size, cell, hidden, cfg.embed_dim, cfg.layers)

    elif variant in ("adam for-loop", "adam foreach", "adam fused"):
        kw = {
            "adam for-loop": {"foreach": False},
            "adam foreach": {"foreach": True},
            "adam fused": {"fused": True},
        }
        kw = kw[variant]

        def optim(model, cfg):
            return torch.optim.Adam(model.parameters(), lr=cfg.lr, **kw)

    elif variant != "baseline" and variant != "torch.compile":
        raise ValueError(f"unknown variant {variant!r}")
    return ctx, build, optim


def short_run_state(cell, hidden, vocab, variant, steps, train_ids, val_ids, device) -> tuple[dict, list]:
    ctx, build, optim = variant_setup(variant)
    cfg = TrainConfig(steps=steps, eval_every=steps, val_windows=8)
    patches = [mock.patch.object(train_mod, "build_model", build)] if build else []
    patches += [mock.patch.object(train_mod, "make_optimizer", optim)] if optim else []
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        stack.enter_context(ctx())
        result = train_model(
            cell=cell,
            hidden=hidden,
            seed=SEED,
            vocab_size=vocab,
            train_ids=train_ids,
            val_ids=val_ids,
            cfg=cfg,
            device=str(device),
            log=lambda message: None,
        )
    return result.model.state_dict(), result.history


def same_state(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def cmd_variants(args) -> None:
    device = setup_torch(args)
    header(args, device, "variants")
    cfg = TrainConfig()
    train_ids, val_ids = synthetic_split(args.vocab)
    variants = [v.strip() for v in args.variants.split(",")]
    n = args.steps
    models = parse_models(args.models)
    print(
        f"{'model':<10} {'variant':<14} {'ms/step wall':>12} {'ms/step CPU':>11} "
        f"{'x base wall':>11} {'x base CPU':>10}"
    )
    for cell, hidden in models:
        loops, ctxs = {}, {}
        for variant in variants:
            if variant == "torch.compile":
                continue
            ctx, build, optim = variant_setup(variant)
            loop = BareLoop(
                cell,
                hidden,
                args.vocab,
                cfg,
                device,
                train_ids,
                build or build_model,
                optim or make_optimizer,
            )
            loops[variant], ctxs[variant] = loop, ctx

        def timer(loop, ctx):
            def go():
                with ctx():
                    return loop.steps(n, loop.step)

            return go

        contenders = {v: timer(loops[v], ctxs[v]) for v in loops}
        for fn in contenders.values():
            fn()
        res = interleave(contenders, args.rounds)
        base = res.get("baseline")
        for v, samples in res.items():
            w, c = med(samples, "wall") / n, med(samples, "cpu") / n
            bw = med(base, "wall") / n if base else math.nan
            bc = med(base, "cpu") / n if base else math.nan
            print(
                f"{label(cell, hidden):<10} {v:<14} {w * 1e3:>12.1f} {c * 1e3:>11.1f} "
                f"{w / bw:>11.3f} {c / bc:>10.3f}"
            )
        if "torch.compile" in variants:
            compile_variant(cell, hidden, args.vocab, cfg, device, train_ids, n, args)

    if args.repro_steps > 0:
        print()
        print(
            f"# Bit-reproducibility: train_model for {args.repro_steps} steps (val_windows 8), "
            "state_dicts compared with torch.equal"
        )
        print(f"{'model':<10} {'variant':<14} {'run == rerun':>12} {'== baseline':>11} {'max |diff|':>11}")
        for cell, hidden in models:
            base, _ = short_run_state(
                cell, hidden, args.vocab, "baseline", args.repro_steps, train_ids, val_ids, device
            )
            for v in variants:
                if v == "torch.compile":
                    continue
                a, _ = short_run_state(
                    cell, hidden, args.vocab, v, args.repro_steps, train_ids, val_ids, device
                )
                b, _ = short_run_state(
                    cell, hidden, args.vocab, v, args.repro_steps, train_ids, val_ids, device
                )
                diff = max((a[k].float() - base[k].float()).abs().max().item() for k in a)
                print(
                    f"{label(cell, hidden):<10} {v:<14} {str(same_state(a, b)):>12} "
                    f"{str(same_state(a, base)):>11} {diff:>11.2e}"
                )


def compile_variant(cell, hidden, vocab, cfg, device, train_ids, n, args) -> None:
    """torch.compile of the model's forward (and so its backward). Without ``--allow-rnn``
    dynamo does not trace a frame that calls nn.RNN/GRU/LSTM, so the model runs eagerly."""
    loop = BareLoop(cell, hidden, vocab, cfg, device, train_ids)
    eager = BareLoop(cell, hidden, vocab, cfg, device, train_ids)
    with contextlib.suppress(AttributeError):
        torch._dynamo.config.allow_rnn = args.allow_rnn
    compiled = torch.compile(loop.model)

    def step():
        logits, _ = compiled(loop.inputs)
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), loop.targets)
        loop.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(loop.model.parameters(), cfg.clip_norm)
        loop.optimizer.step()

    t = time.perf_counter()
    try:
        step()
    except Exception as err:  # compile may not support this module/platform
        print(f"{label(cell, hidden):<10} torch.compile failed: {type(err).__name__}: {str(err)[:200]}")
        return
    first = time.perf_counter() - t
    eager.step()  # one step each from the same start: are the weights the same bytes?
    same = same_state(loop.model.state_dict(), eager.model.state_dict())
    step()
    res = interleave(
        {"compiled": lambda: loop.steps(n, step), "eager": lambda: eager.steps(n, eager.step)}, args.rounds
    )
    w, c = med(res["compiled"], "wall") / n, med(res["compiled"], "cpu") / n
    ew, ec = med(res["eager"], "wall") / n, med(res["eager"], "cpu") / n
    name = "compile" + (" rnn" if args.allow_rnn else "")
    print(
        f"{label(cell, hidden):<10} {name:<14} {w * 1e3:>12.1f} {c * 1e3:>11.1f} {w / ew:>11.3f} "
        f"{c / ec:>10.3f}  (first step incl. compile {first:.1f} s; ratio to an eager loop timed beside "
        f"it; weights after one step {'identical to' if same else 'DIFFERENT from'} eager)"
    )
