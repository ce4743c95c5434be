"""Benchmarks of the workflow's own code, run on demand: ``python -m gatedrnn.bench <subcommand>``.

Nothing here is a test: every subcommand prints a table and asserts nothing.
Contenders are timed in interleaved rounds (the order rotates each round) and
reported as medians and ratios, so that a machine shared with other work
slows them alike. Each timing is taken twice: wall clock (``perf_counter``)
and the process's CPU time (user + system, ``process_time``); on a busy
machine the CPU time of a one-thread run is the steadier of the two.

Subcommands (``--help`` on each lists its flags; all take ``--threads``,
``--device auto|cpu|cuda`` where they train, and ``--steps``/``--rounds``):

``train-step``
    tokens/s of :func:`gatedrnn.train.loop.train_model` itself (the marginal cost
    of a step: a run of 1 + n steps minus a run of 1 step, both with the
    same two evaluations, so sampling, ``loss.item()`` and the divergence
    check are in), of a bare PyTorch loop (same module and optimizer, one
    fixed batch: forward, loss, ``zero_grad``, backward, clip, ``step``) and
    of forward + backward alone, for every grid model at V = 84; the
    floating-point work of a step and the fraction of the CPU's peak it
    reaches; then the share of a real ``train_model`` run (real eval and
    checkpoint cadence) spent outside the training step, measured and
    projected to a full job.
``eval``
    :func:`gatedrnn.train.loop.evaluate` on the validation windows against a bare
    ``no_grad`` and an ``inference_mode`` forward, and what validation costs a job.
``dag``
    ``snakemake -n --nolock`` on the full default DAG against ``snakemake --version``.
``overhead``
    a finished run's ``results/benchmarks/train`` files against its jobs'
    ``summary.json``: per-job overhead outside ``train_model``, the run's span
    against its jobs' compute.
``variants``
    what oneDNN (``torch.backends.mkldnn``), a time-major layout, Adam's
    ``foreach``/``fused`` and ``torch.compile`` do for a CPU step, and whether
    each leaves the trained bytes unchanged.
``threads``
    throughput of the machine's cores split into jobs x threads (separate
    processes, started together), and glibc malloc tuning.

The synthetic corpus is uniform random ids (no download needed): a step's
cost does not depend on the text.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import torch
from torch import nn

from gatedrnn.core.data import sample_windows, validation_windows
from gatedrnn.core.model import GATE_BLOCKS, CharModel, count_parameters
from gatedrnn.train import loop as train_mod
from gatedrnn.train.loop import (
    TrainConfig,
    build_model,
    make_optimizer,
    pick_device,
    set_determinism,
    train_model,
)

VOCAB = 84  # distinct characters of the default corpus
GRID = (("lstm", 325), ("gru", 381), ("gru", 325), ("rnn", 686))
SEED = 0
MALLOC_ENV = {
    # Serve the step's large temporaries from the heap and keep it: no mmap/munmap
    # and no page zeroing per step. glibc reads these when the process starts.
    "MALLOC_MMAP_THRESHOLD_": str(1 << 30),
    "MALLOC_TRIM_THRESHOLD_": str(1 << 32),
    "MALLOC_TOP_PAD_": str(1 << 28),
}
# Process settings of the `threads` subcommand: environment variables, or (retain)
# gatedrnn.train.loop.retain_freed_memory() called in the process (the train job does not).
ENV_VARIANTS = {"-": {}, "malloc": MALLOC_ENV, "omp-passive": {"OMP_WAIT_POLICY": "PASSIVE"}, "retain": {}}


# --- timing ------------------------------------------------------------------------


@dataclasses.dataclass
class Sample:
    wall: float
    cpu: float
    faults: float = math.nan  # minor page faults (resource.getrusage), where counted


def minor_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def timed(fn: Callable[[], object], device: torch.device) -> Sample:
    _sync(device)
    w0, c0, f0 = time.perf_counter(), time.process_time(), minor_faults()
    fn()
    _sync(device)
    return Sample(time.perf_counter() - w0, time.process_time() - c0, minor_faults() - f0)


def interleave(contenders: dict[str, Callable[[], Sample]], rounds: int) -> dict[str, list[Sample]]:
    """Each round runs every contender once; the order rotates round to round (ABC, BCA, CAB...)."""
    names = list(contenders)
    out: dict[str, list[Sample]] = {n: [] for n in names}
    for r in range(rounds if names else 0):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            out[name].append(contenders[name]())
    return out


def med(samples: list[Sample], attr: str) -> float:
    return statistics.median(getattr(s, attr) for s in samples)


def spread(samples: list[Sample], attr: str) -> str:
    values = sorted(getattr(s, attr) for s in samples)
    return f"{values[0]:.3g}..{values[-1]:.3g}"


# --- the machine ---------------------------------------------------------------------


def cpu_peak_gflops(cores: int, fma_units: int = 2) -> tuple[float, str]:
    """Single-precision peak = cores x GHz x lanes x 2 (an FMA is 2 flops) x FMA units per core."""
    flags, ghz, source = set(), None, ""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    info = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    info = {k.strip(): v.strip() for k, v in info.items()}
    flags = set(info.get("Flags", "").split())
    if info.get("CPU max MHz"):
        ghz, source = float(info["CPU max MHz"]) / 1000, "lscpu CPU max MHz"
    elif m := re.search(r"@\s*([\d.]+)\s*GHz", info.get("Model name", "")):
        ghz, source = float(m.group(1)), "model name"
    elif info.get("BogoMIPS"):
        ghz, source = float(info["BogoMIPS"]) / 2000, "BogoMIPS / 2 (the TSC rate)"
    if ghz is None:
        return math.nan, "unknown frequency"
    lanes = 16 if "avx512f" in flags else 8 if "avx2" in flags else 4
    peak = cores * ghz * lanes * 2 * fma_units
    how = (
        f"{cores} core(s) x {ghz:.2f} GHz ({source}) x {lanes} fp32 lanes "
        f"({'AVX-512' if lanes == 16 else 'AVX2' if lanes == 8 else 'SSE'}) x 2 (FMA) "
        f"x {fma_units} FMA unit(s)/core = {peak:.0f} GFLOP/s"
    )
    return peak, how


def step_flops(cell: str, hidden: int, vocab: int, embed: int, layers: int, tokens: int) -> dict:
    """Matrix-multiply FLOPs of one forward and of one training step (forward + backward).

    Per token, each weight matrix W (out x in) costs 2 * in * out in the forward pass
    and twice that in the backward pass (gradient with respect to its input and to W),
    so a step is 3 x forward. The embedding is a gather (no FLOPs); the gate
    nonlinearities, the softmax and Adam are elementwise (about 1 % more, not counted).
    """
    blocks = GATE_BLOCKS[cell]
    forward = 0
    for layer in range(layers):
        d_in = embed if layer == 0 else hidden
        forward += 2 * tokens * blocks * hidden * (d_in + hidden)
    forward += 2 * tokens * hidden * vocab
    return {"forward": forward, "step": 3 * forward}


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# --- shared set-up -----------------------------------------------------------------------


def synthetic_split(vocab: int = VOCAB, n_train: int = 1_000_000, n_val: int = 100_000, seed: int = SEED):
    ids = torch.randint(0, vocab, (n_train + n_val,), generator=torch.Generator().manual_seed(seed))
    return ids[:n_train], ids[n_train:]


def label(cell: str, hidden: int) -> str:
    return f"{cell} w{hidden}"


def parse_models(text: str) -> list[tuple[str, int]]:
    models = []
    for item in text.split(","):
        cell, width = item.split(":")
        models.append((cell.strip(), int(width)))
    return models


def default_threads() -> int:
    """config/config.yaml's train.threads (the protocol's), else 1."""
    path = Path("config/config.yaml")
    if path.exists():
        import yaml

        with contextlib.suppress(Exception):
            return int(yaml.safe_load(path.read_text())["train"]["threads"])
    return 1


def setup_torch(args) -> torch.device:
    threads = args.threads if args.threads is not None else default_threads()
    args.threads = threads
    torch.set_num_threads(threads)
    # opt-in (the train job does not: resumed runs would differ); process-wide, so for every contender
    args.retained = train_mod.retain_freed_memory() if args.retain else False
    device = pick_device(args.device)
    set_determinism(device)
    return device


def header(args, device: torch.device, what: str) -> None:
    cfg = TrainConfig()
    print(
        f"# {what}: device {device}, {args.threads} thread(s) "
        f"(torch {torch.__version__}, mkldnn {'on' if torch.backends.mkldnn.enabled else 'off'}, "
        f"freed memory {'retained' if args.retained else 'returned to the OS'}), "
        f"batch {cfg.batch_size} x {cfg.seq_len}, V {VOCAB}, embed {cfg.embed_dim}, "
        f"{args.rounds} interleaved rounds; medians"
    )
    if device.type == "cpu":
        print(f"# load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


class BareLoop:
    """The bare PyTorch step on the same module and optimizer as the workflow's."""

    def __init__(self, cell, hidden, cfg, device, train_ids, build=build_model, optim=make_optimizer):
        self.cfg, self.device = cfg, device
        self.model = build(cell, hidden, VOCAB, SEED, cfg).to(device)
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


def workflow_steps(cell, hidden, cfg, n, device, train_ids, val_ids) -> Sample:
    """Marginal time of n steps of train_model: a (1 + n)-step run minus a 1-step run
    (each evaluates at step 0 and at its last step; no checkpoints)."""

    def run(steps):
        c = dataclasses.replace(cfg, steps=steps, eval_every=steps)
        return timed(
            lambda: train_model(
                cell=cell,
                hidden=hidden,
                seed=SEED,
                vocab_size=VOCAB,
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


# --- train-step ------------------------------------------------------------------------


STEP_CONTENDERS = ("train_model", "bare", "fwd+bwd")


def contender_timing(contender, cell, hidden, n, device, train_ids, val_ids) -> Sample:
    """Warm one contender up, then time n of its steps (train_model: marginal, see workflow_steps)."""
    cfg = TrainConfig()
    if contender == "train_model":
        workflow_steps(cell, hidden, cfg, 1, device, train_ids, val_ids)
        return workflow_steps(cell, hidden, cfg, n, device, train_ids, val_ids)
    bare = BareLoop(cell, hidden, cfg, device, train_ids)
    fn = bare.step if contender == "bare" else bare.forward_backward
    fn()  # warm-up (oneDNN primitives, allocator)
    return bare.steps(n, fn)


def cmd_step_worker(args) -> None:
    """Internal: one timing of `train-step` (default mode) in a fresh process; prints JSON."""
    device = setup_torch(args)
    train_ids, val_ids = synthetic_split()
    s = contender_timing(args.contender, args.cell, args.hidden, args.steps, device, train_ids, val_ids)
    print(json.dumps(dataclasses.asdict(s)), flush=True)


def isolated_timing(contender, cell, hidden, args) -> Sample:
    cmd = [sys.executable, "-m", "gatedrnn.bench", "_step", "--contender", contender, "--cell", cell]
    cmd += ["--hidden", str(hidden), "--steps", str(args.steps), "--threads", str(args.threads)]
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
    train_ids, val_ids = synthetic_split()
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
            bare = BareLoop(cell, hidden, cfg, device, train_ids)
            bare.step()  # warm-up (oneDNN primitives, allocator)
            workflow_steps(cell, hidden, cfg, 1, device, train_ids, val_ids)
            contenders = {
                "train_model": lambda c=cell, h=hidden: workflow_steps(
                    c, h, cfg, n, device, train_ids, val_ids
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
        flops = step_flops(cell, hidden, VOCAB, cfg.embed_dim, cfg.layers, tokens)["step"]
        params = count_parameters(build_model(cell, hidden, VOCAB, SEED, cfg))
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


# --- non-training share -------------------------------------------------------------------


def cadence_counts(steps: int, eval_every: int, checkpoint_every: int) -> tuple[int, int]:
    """(evaluations, checkpoints) of a train_model run from step 0 (mirrors the loop's conditions)."""
    evals = 1 + sum(1 for s in range(1, steps + 1) if s % eval_every == 0 or s == steps)
    ckpts = sum(1 for s in range(1, steps + 1) if s % checkpoint_every == 0 and s < steps)
    return evals, ckpts


def instrumented_run(cell, hidden, cfg, checkpoint_every, device, train_ids, val_ids) -> dict:
    """One real train_model run with its evaluation, checkpointing, sampling and logging timed."""
    spent: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    first_eval: list[float] = []

    def wrap(name, fn, sync=False):
        def wrapper(*a, **k):
            if name == "evaluate" and not first_eval:
                first_eval.append(time.perf_counter())
            if sync:
                _sync(device)
            t = time.perf_counter()
            out = fn(*a, **k)
            if sync:
                _sync(device)
            spent[name] += time.perf_counter() - t
            calls[name] += 1
            return out

        return wrapper

    with (
        tempfile.TemporaryDirectory(prefix="gatedrnn-bench-") as tmp,
        open(Path(tmp) / "train.log", "w") as log_file,
        mock.patch.object(train_mod, "evaluate", wrap("evaluate", train_mod.evaluate, sync=True)),
        mock.patch.object(train_mod, "atomic_torch_save", wrap("checkpoint", train_mod.atomic_torch_save)),
        mock.patch.object(train_mod, "_prune_checkpoints", wrap("checkpoint", train_mod._prune_checkpoints)),
        mock.patch.object(train_mod, "sample_windows", wrap("sampling", train_mod.sample_windows)),
    ):

        def log(message):  # like the rule's log: a line to a file, flushed
            t = time.perf_counter()
            log_file.write(message + "\n")
            log_file.flush()
            spent["log"] += time.perf_counter() - t
            calls["log"] += 1

        start = time.perf_counter()
        train_model(
            cell=cell,
            hidden=hidden,
            seed=SEED,
            vocab_size=VOCAB,
            train_ids=train_ids,
            val_ids=val_ids,
            cfg=cfg,
            checkpoint_dir=Path(tmp) / "ckpt",
            checkpoint_every=checkpoint_every,
            device=str(device),
            log=log,
        )
        total = time.perf_counter() - start
    spent["setup"] = first_eval[0] - start
    calls["checkpoint"] //= 2  # save + prune per checkpoint
    return {"total": total, "spent": dict(spent), "calls": dict(calls)}


def job_setup_seconds() -> tuple[float | None, float | None]:
    """Import time of the train rule's modules (fresh interpreter) and corpus read + encode
    of data/corpus.txt when it exists: what a job spends before train_model."""
    code = "import time; t=time.perf_counter(); import gatedrnn.train.pipeline; print(time.perf_counter()-t)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    imports = float(proc.stdout.strip()) if proc.returncode == 0 else None
    corpus = None
    if Path("data/corpus.txt").exists() and Path("data/corpus.json").exists():
        from gatedrnn.io.reading import corpus_splits

        t = time.perf_counter()
        corpus_splits("data/corpus.txt", "data/corpus.json", 0.9)
        corpus = time.perf_counter() - t
    return imports, corpus


def share_table(args, device, cfg, train_ids, val_ids) -> None:
    full = TrainConfig()
    checkpoint_every = args.checkpoint_every
    run_cfg = dataclasses.replace(cfg, steps=args.share_steps)
    evals_run, ckpts_run = cadence_counts(run_cfg.steps, run_cfg.eval_every, checkpoint_every)
    evals_job, ckpts_job = cadence_counts(full.steps, full.eval_every, checkpoint_every)
    imports, corpus = job_setup_seconds()
    print(
        f"# Non-training share: a real train_model run of {run_cfg.steps} steps at the real cadence "
        f"(eval every {run_cfg.eval_every} on {run_cfg.val_windows} windows: {evals_run} evaluations; "
        f"checkpoint every {checkpoint_every}: {ckpts_run} checkpoint(s)), projected to a full job "
        f"of {full.steps} steps ({evals_job} evaluations, {ckpts_job} checkpoints)."
    )
    print(
        f"{'model':<10} {'run s':>7} {'setup':>6} {'eval':>6} {'ckpt':>6} {'sample':>6} {'log':>6} "
        f"{'s/step':>7} | {'share':>6} | {'job: proj.':>10} {'+imports+corpus':>15}"
    )
    for cell, hidden in parse_models(args.share_models or args.models):
        r = instrumented_run(cell, hidden, run_cfg, checkpoint_every, device, train_ids, val_ids)
        sp, calls = r["spent"], r["calls"]
        other = sum(sp.get(k, 0.0) for k in ("setup", "evaluate", "checkpoint", "sampling", "log"))
        train_s = (r["total"] - other) / run_cfg.steps
        t_eval = sp["evaluate"] / calls["evaluate"]
        t_ckpt = sp.get("checkpoint", 0.0) / max(calls.get("checkpoint", 0), 1)
        per_step = (sp["sampling"] + sp.get("log", 0.0)) / run_cfg.steps
        job_other = sp["setup"] + evals_job * t_eval + ckpts_job * t_ckpt + full.steps * per_step
        job_total = job_other + full.steps * train_s
        extra = (imports or 0.0) + (corpus or 0.0)
        print(
            f"{label(cell, hidden):<10} {r['total']:>7.1f} {sp['setup']:>6.2f} {sp['evaluate']:>6.2f} "
            f"{sp.get('checkpoint', 0.0):>6.2f} {sp['sampling']:>6.3f} {sp.get('log', 0.0):>6.3f} "
            f"{train_s:>7.3f} | {100 * other / r['total']:>5.2f}% | {100 * job_other / job_total:>9.2f}% "
            f"{100 * (job_other + extra) / (job_total + extra):>14.2f}%"
        )
    print(
        "setup = train_model's start to its first evaluation (model, optimizer, windows); eval/ckpt = "
        "all calls (seconds); s/step = the rest of the loop per step (the training step itself)."
    )
    print(
        f"A job also imports its modules ({imports:.2f} s in a fresh interpreter) and reads and encodes "
        + (
            f"the corpus ({corpus:.2f} s for data/corpus.txt)."
            if corpus is not None
            else "the corpus (absent here)."
        )
        if imports is not None
        else "Import time could not be measured."
    )


# --- eval ------------------------------------------------------------------------------------


def cmd_eval(args) -> None:
    device = setup_torch(args)
    header(args, device, "eval")
    cfg = TrainConfig()
    train_ids, val_ids = synthetic_split()
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
        bare = BareLoop(cell, hidden, cfg, device, train_ids)
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


# --- dag -----------------------------------------------------------------------------------------


def cmd_dag(args) -> None:
    snakemake = shutil.which("snakemake", path=str(Path(sys.executable).parent)) or "snakemake"
    commands = {
        "snakemake -n --nolock": [snakemake, "-n", "--nolock", *args.snakemake_args],
        "snakemake --version": [snakemake, "--version"],
    }
    jobs = None

    def run(cmd):
        def go():
            before = os.times()
            t = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=args.root)
            wall = time.perf_counter() - t
            after = os.times()
            if proc.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
            nonlocal jobs
            if m := re.search(r"^total\s+(\d+)\s*$", proc.stdout + proc.stderr, re.M):
                jobs = int(m.group(1))
            cpu = (after.children_user - before.children_user) + (
                after.children_system - before.children_system
            )
            return Sample(wall, cpu)

        return go

    contenders = {name: run(cmd) for name, cmd in commands.items()}
    for fn in contenders.values():
        fn()  # warm the page cache
    res = interleave(contenders, args.rounds)
    print(f"# dag: {args.rounds} interleaved rounds in {Path(args.root).resolve()}; medians (min..max)")
    print(f"# load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'command':<24} {'wall s':>7} {'range':>13} {'CPU s':>7}")
    for name, samples in res.items():
        print(
            f"{name:<24} {med(samples, 'wall'):>7.2f} {spread(samples, 'wall'):>13} "
            f"{med(samples, 'cpu'):>7.2f}"
        )
    plan = med(res["snakemake -n --nolock"], "wall") - med(res["snakemake --version"], "wall")
    print(f"jobs in the DAG: {jobs}; planning beyond Snakemake's own start-up: {plan:.2f} s wall")
    start = res["snakemake --version"]
    if med(start, "wall") - med(start, "cpu") > 3:
        print(
            "Snakemake's start-up waits far longer than it computes. If SLURM's client is installed "
            "but its controller is not reachable, snakemake-executor-plugin-slurm's import runs "
            "`scontrol show config` (10 s timeout) on every invocation: start the controller, or "
            "run with SLURM_CONF=/dev/null when not submitting to SLURM (bench/README.md)."
        )


# --- overhead --------------------------------------------------------------------------------------


def read_benchmark(path: Path) -> dict | None:
    with open(path) as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    if not rows:
        return None
    row = rows[-1]

    def num(key):
        try:
            return float(row[key])
        except (KeyError, ValueError, TypeError):
            return math.nan

    return {
        "s": num("s"),
        "cpu_time": num("cpu_time"),
        "mean_load": num("mean_load"),
        "max_rss": num("max_rss"),
    }


def cmd_overhead(args) -> None:
    root = Path(args.root)
    bench_dir = root / "results" / "benchmarks" / "train"
    files = sorted(bench_dir.rglob("*.tsv")) if bench_dir.is_dir() else []
    if not files:
        print(f"No benchmark files under {bench_dir}: run the workflow first (each train job writes one).")
        return
    rows = []
    for path in files:
        rec = read_benchmark(path)
        if rec is None:
            continue
        regime = path.parent.name
        summary_path = root / "results" / "models" / regime / path.stem / "summary.json"
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
        end = path.stat().st_mtime
        rows.append(
            {
                "job": f"{regime}/{path.stem}",
                **rec,
                "train_model_s": summary.get("wall_seconds", math.nan),
                "threads": summary.get("threads", math.nan),
                "resumed": summary.get("resumed_from_step"),
                "start": end - rec["s"],
                "end": end,
            }
        )
    print(f"# overhead: {len(rows)} train job(s) from {bench_dir}")
    width = max(len(r["job"]) for r in rows) + 1
    print(
        f"{'job':<{width}} {'job s':>8} {'train_model s':>13} {'outside':>8} {'share':>6} "
        f"{'threads':>7} {'CPU/wall':>8} {'max RSS MB':>10}"
    )
    for r in rows:
        outside = r["s"] - r["train_model_s"]
        print(
            f"{r['job']:<{width}} {r['s']:>8.1f} {r['train_model_s']:>13.1f} {outside:>8.1f} "
            f"{100 * outside / r['s']:>5.1f}% {r['threads']:>7} {r['cpu_time'] / r['s']:>8.2f} "
            f"{r['max_rss']:>10.0f}" + ("  (resumed)" if r["resumed"] is not None else "")
        )
    span = max(r["end"] for r in rows) - min(r["start"] for r in rows)
    busy = sum(r["s"] * (r["threads"] if r["threads"] == r["threads"] else 1) for r in rows)
    cores = args.cores or usable_cores()
    ideal = busy / cores
    outside = sum(r["s"] - r["train_model_s"] for r in rows if r["train_model_s"] == r["train_model_s"])
    print()
    print(
        f"sum of job wall times {sum(r['s'] for r in rows):.1f} s; of their train_model time "
        f"{sum(r['train_model_s'] for r in rows):.1f} s; outside train_model {outside:.1f} s "
        f"({100 * outside / sum(r['s'] for r in rows):.2f} %)"
    )
    print(
        f"span of the train jobs (first start to last end, from file times): {span:.1f} s; "
        f"job-seconds x threads / {cores} cores = {ideal:.1f} s if the cores were always full: "
        f"the schedule's overhead (idle cores, gaps between jobs) is {span - ideal:.1f} s "
        f"({100 * (span - ideal) / span:.1f} % of the span). Spans of separate runs add their gaps."
    )
    print("CPU/wall = cpu_time / s of the job (Snakemake's benchmark): about the threads it kept busy.")


# --- variants (item 3 of the performance issue) ----------------------------------------------------


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


def short_run_state(cell, hidden, variant, steps, train_ids, val_ids, device) -> tuple[dict, list]:
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
            vocab_size=VOCAB,
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
    train_ids, val_ids = synthetic_split()
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
                cell, hidden, cfg, device, train_ids, build or build_model, optim or make_optimizer
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
            compile_variant(cell, hidden, cfg, device, train_ids, n, args)

    if args.repro_steps > 0:
        print()
        print(
            f"# Bit-reproducibility: train_model for {args.repro_steps} steps (val_windows 8), "
            "state_dicts compared with torch.equal"
        )
        print(f"{'model':<10} {'variant':<14} {'run == rerun':>12} {'== baseline':>11} {'max |diff|':>11}")
        for cell, hidden in models:
            base, _ = short_run_state(cell, hidden, "baseline", args.repro_steps, train_ids, val_ids, device)
            for v in variants:
                if v == "torch.compile":
                    continue
                a, _ = short_run_state(cell, hidden, v, args.repro_steps, train_ids, val_ids, device)
                b, _ = short_run_state(cell, hidden, v, args.repro_steps, train_ids, val_ids, device)
                diff = max((a[k].float() - base[k].float()).abs().max().item() for k in a)
                print(
                    f"{label(cell, hidden):<10} {v:<14} {str(same_state(a, b)):>12} "
                    f"{str(same_state(a, base)):>11} {diff:>11.2e}"
                )


def compile_variant(cell, hidden, cfg, device, train_ids, n, args) -> None:
    """torch.compile of the model's forward (and so its backward). Without ``--allow-rnn``
    dynamo does not trace a frame that calls nn.RNN/GRU/LSTM, so the model runs eagerly."""
    loop = BareLoop(cell, hidden, cfg, device, train_ids)
    eager = BareLoop(cell, hidden, cfg, device, train_ids)
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


# --- threads and process-level settings -------------------------------------------------------------


def cmd_worker(args) -> None:
    """Internal: one process of `threads`; warms up, waits for 'go' on stdin, times n bare steps."""
    torch.set_num_threads(args.threads)
    if args.retain:
        train_mod.retain_freed_memory()
    cfg = TrainConfig()
    train_ids, _ = synthetic_split()
    loop = BareLoop(args.cell, args.hidden, cfg, torch.device("cpu"), train_ids)
    loop.step()
    loop.step()
    print("ready", flush=True)
    sys.stdin.readline()
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    s = loop.steps(args.steps, loop.step)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"wall": s.wall, "cpu": s.cpu, "minflt": r1.ru_minflt - r0.ru_minflt}), flush=True)


def cmd_state_hash(args) -> None:
    """Internal: train_model for a few steps under this process's environment; print the weights' sha256."""
    import hashlib

    torch.set_num_threads(args.threads)
    if args.retain:
        train_mod.retain_freed_memory()
    train_ids, val_ids = synthetic_split()
    state, _ = short_run_state(
        args.cell, args.hidden, "baseline", args.steps, train_ids, val_ids, torch.device("cpu")
    )
    digest = hashlib.sha256()
    for key in sorted(state):
        digest.update(key.encode())
        digest.update(state[key].contiguous().numpy().tobytes())
    print(digest.hexdigest(), flush=True)


def state_hash(cell, hidden, threads, steps, env_name) -> str:
    cmd = [sys.executable, "-m", "gatedrnn.bench", "_state_hash", "--cell", cell, "--hidden", str(hidden)]
    cmd += ["--threads", str(threads), "--steps", str(steps)] + (["--retain"] if env_name == "retain" else [])
    env = {**os.environ, **ENV_VARIANTS[env_name]}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return proc.stdout.strip().splitlines()[-1]


def run_group(procs: int, threads: int, cell: str, hidden: int, steps: int, env_name: str) -> dict:
    env = {**os.environ, **ENV_VARIANTS[env_name]}
    cmd = [sys.executable, "-m", "gatedrnn.bench", "_worker", "--cell", cell, "--hidden", str(hidden)]
    cmd += ["--threads", str(threads), "--steps", str(steps)] + (["--retain"] if env_name == "retain" else [])
    workers = [
        subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(procs)
    ]
    for w in workers:
        if w.stdout.readline().strip() != "ready":
            raise RuntimeError("a benchmark worker failed to start")
    t = time.perf_counter()
    for w in workers:
        w.stdin.write("go\n")
        w.stdin.flush()
    results = [json.loads(w.stdout.readline()) for w in workers]
    span = time.perf_counter() - t
    for w in workers:
        w.wait(timeout=60)
    return {
        "span": span,
        "wall": max(r["wall"] for r in results),
        "cpu": sum(r["cpu"] for r in results),
        "minflt": sum(r["minflt"] for r in results) / (procs * steps),
        "steps": procs * steps,
    }


def cmd_threads(args) -> None:
    cores = usable_cores()
    cfg = TrainConfig()
    tokens = cfg.batch_size * cfg.seq_len
    # (jobs, threads per job, environment name)
    layouts = [(cores // t, t, "-") for t in sorted({1, 2, cores}) if t <= cores]
    if args.malloc:
        layouts.append((cores, 1, "malloc"))
        if cores > 1:
            layouts += [(1, 1, "-"), (1, 1, "malloc")]
    if args.omp_passive and cores > 1:
        layouts.append((1, cores, "omp-passive"))
    if args.layouts:  # e.g. "1x1,1x1:malloc,1x2:omp-passive"
        layouts = []
        for item in args.layouts.split(","):
            shape, _, env = item.strip().partition(":")
            procs, threads = (int(x) for x in shape.split("x"))
            layouts.append((procs, threads, env or "-"))
    print(
        f"# threads: {cores} usable core(s); each layout runs jobs x threads processes together, "
        f"{args.steps} bare steps each; {args.rounds} interleaved rounds; medians"
    )
    print(f"# load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"{'model':<10} {'jobs x threads':<15} {'env':<12} {'tokens/s (all jobs)':>19} "
        f"{'CPU ms/step':>11} {'faults/step':>11}"
    )
    for cell, hidden in parse_models(args.models) if args.rounds > 0 else []:
        contenders, extra = {}, defaultdict(list)
        for key in layouts:

            def go(k=key, c=cell, h=hidden, extra=extra):
                r = run_group(k[0], k[1], c, h, args.steps, k[2])
                extra[k].append(r)
                return Sample(r["wall"], r["cpu"])

            contenders[key] = go
        res = interleave(contenders, args.rounds)
        for (procs, threads, env), samples in res.items():
            steps = procs * args.steps
            wall = med(samples, "wall")
            faults = statistics.median(r["minflt"] for r in extra[(procs, threads, env)])
            print(
                f"{label(cell, hidden):<10} {f'{procs} x {threads}':<15} {env:<12} "
                f"{steps * tokens / wall:>19.0f} {med(samples, 'cpu') / steps * 1e3:>11.1f} {faults:>11.0f}"
            )
    print(
        "tokens/s = all jobs' tokens / the slowest job's time; "
        "CPU ms/step = CPU seconds of all jobs per step."
    )
    for name, env in ENV_VARIANTS.items():
        if env:
            print(f"env {name}: {' '.join(f'{k}={v}' for k, v in env.items())}")
    if args.repro_steps > 0:
        print()
        print(
            f"# Bit-identity: train_model for {args.repro_steps} steps in a fresh process per setting; "
            "sha256 of the weights (first 16 hex digits)"
        )
        settings = sorted({(t, env) for _, t, env in layouts})
        for cell, hidden in parse_models(args.models):
            hashes = {k: state_hash(cell, hidden, k[0], args.repro_steps, k[1]) for k in settings}
            rerun = state_hash(cell, hidden, settings[0][0], args.repro_steps, settings[0][1])
            print(
                f"{label(cell, hidden)}: "
                + ", ".join(f"{t} thread(s) env {env}: {h[:16]}" for (t, env), h in hashes.items())
                + f"; rerun of the first: {'same' if rerun == hashes[settings[0]] else 'DIFFERENT'}"
            )


# --- command line ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gatedrnn.bench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    grid = ",".join(f"{c}:{w}" for c, w in GRID)

    def common(p, steps, rounds, device=True):
        p.add_argument(
            "--threads", type=int, default=None, help="torch threads (default: config train.threads)"
        )
        p.add_argument("--steps", type=int, default=steps, help="steps (or passes) per timing")
        p.add_argument("--rounds", type=int, default=rounds, help="interleaved rounds (medians over them)")
        p.add_argument("--models", default=grid, help=f"cell:width,... (default {grid})")
        p.add_argument(
            "--checkpoint-every", type=int, default=100, help="the workflow's train.checkpoint_every"
        )
        if device:
            p.add_argument("--device", default="auto", help="auto (CUDA when present) | cpu | cuda")
        p.add_argument(
            "--retain",
            action="store_true",
            help="call gatedrnn.train.loop.retain_freed_memory() first (the train job does not)",
        )

    p = sub.add_parser("train-step", help="tokens/s of the training step, bare loop, non-training share")
    common(p, steps=4, rounds=5)
    p.add_argument("--fma-units", type=int, default=2, help="FMA units per core for the peak estimate")
    p.add_argument("--share-steps", type=int, default=200, help="steps of the instrumented run (0: skip)")
    p.add_argument("--share-models", default="lstm:325", help="models of the instrumented run")
    p.add_argument(
        "--in-process",
        action="store_true",
        help="time every contender in this process (default: a fresh process per timing)",
    )
    p.set_defaults(func=cmd_train_step)

    p = sub.add_parser("_step", help=argparse.SUPPRESS)
    p.add_argument("--contender", choices=STEP_CONTENDERS, required=True)
    p.add_argument("--cell", required=True)
    p.add_argument("--hidden", type=int, required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--device", default="auto")
    p.add_argument("--retain", action="store_true")
    p.set_defaults(func=cmd_step_worker)

    p = sub.add_parser("eval", help="the evaluation pass against a bare forward")
    common(p, steps=2, rounds=5)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("dag", help="snakemake -n time for the full default DAG")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--root", default=".", help="workflow directory")
    p.add_argument("snakemake_args", nargs="*", help="more arguments for snakemake -n (after --)")
    p.set_defaults(func=cmd_dag)

    p = sub.add_parser("overhead", help="a finished run's benchmark files against its jobs' compute")
    p.add_argument("--root", default=".", help="workflow directory (reads results/benchmarks/train)")
    p.add_argument("--cores", type=int, default=None, help="cores the run had (default: this machine's)")
    p.set_defaults(func=cmd_overhead)

    p = sub.add_parser("variants", help="oneDNN, layout, Adam foreach/fused, torch.compile; bit-identity")
    common(p, steps=3, rounds=5)
    p.add_argument(
        "--variants",
        default="baseline,mkldnn off,time-major,adam for-loop,adam fused",
        help="comma-separated; also: torch.compile",
    )
    p.add_argument("--allow-rnn", action="store_true", help="torch.compile: let dynamo trace into the RNN")
    p.add_argument("--repro-steps", type=int, default=5, help="steps of the bit-identity runs (0: skip)")
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser("threads", help="jobs x threads on this machine's cores (separate processes)")
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--models", default="lstm:325,gru:381")
    p.add_argument("--malloc", action="store_true", help="also compare glibc malloc tuning")
    p.add_argument(
        "--omp-passive", action="store_true", help="also 1 job x all cores, OMP_WAIT_POLICY=PASSIVE"
    )
    p.add_argument(
        "--repro-steps", type=int, default=0, help="bit-identity runs of this many steps (0: skip)"
    )
    p.add_argument("--layouts", default=None, help='instead: e.g. "2x1,1x2,1x1:malloc,1x2:omp-passive"')
    p.set_defaults(func=cmd_threads)

    p = sub.add_parser("_state_hash", help=argparse.SUPPRESS)
    p.add_argument("--cell", required=True)
    p.add_argument("--hidden", type=int, required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--retain", action="store_true")
    p.set_defaults(func=cmd_state_hash)

    p = sub.add_parser("_worker", help=argparse.SUPPRESS)
    p.add_argument("--cell", required=True)
    p.add_argument("--hidden", type=int, required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--retain", action="store_true")
    p.set_defaults(func=cmd_worker)

    args = parser.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
