"""``threads``: the cores split into jobs x threads (separate processes), process settings,
and whether a setting changes the trained bytes."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict

import torch

from bench.common import Sample, interleave, label, load_average, med, parse_models, usable_cores
from bench.grid import synthetic_split
from bench.harness import BareLoop
from bench.memory import ENV_VARIANTS, retain_freed_memory
from bench.variants import short_run_state
from gatedrnn.train.config import TrainConfig


def cmd_worker(args) -> None:
    """Internal: one process of `threads`; warms up, waits for 'go' on stdin, times n bare steps."""
    torch.set_num_threads(args.threads)
    if args.retain:
        retain_freed_memory()
    cfg = TrainConfig()
    train_ids, _ = synthetic_split(args.vocab)
    loop = BareLoop(args.cell, args.hidden, args.vocab, cfg, torch.device("cpu"), train_ids)
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
    torch.set_num_threads(args.threads)
    if args.retain:
        retain_freed_memory()
    train_ids, val_ids = synthetic_split(args.vocab)
    state, _ = short_run_state(
        args.cell, args.hidden, args.vocab, "baseline", args.steps, train_ids, val_ids, torch.device("cpu")
    )
    digest = hashlib.sha256()
    for key in sorted(state):
        digest.update(key.encode())
        digest.update(state[key].contiguous().numpy().tobytes())
    print(digest.hexdigest(), flush=True)


def state_hash(cell, hidden, vocab, threads, steps, env_name) -> str:
    cmd = [sys.executable, "-m", "bench", "_state_hash", "--cell", cell, "--hidden", str(hidden)]
    cmd += ["--vocab", str(vocab)]
    cmd += ["--threads", str(threads), "--steps", str(steps)] + (["--retain"] if env_name == "retain" else [])
    env = {**os.environ, **ENV_VARIANTS[env_name]}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return proc.stdout.strip().splitlines()[-1]


def run_group(
    procs: int, threads: int, cell: str, hidden: int, vocab: int, steps: int, env_name: str
) -> dict:
    env = {**os.environ, **ENV_VARIANTS[env_name]}
    cmd = [sys.executable, "-m", "bench", "_worker", "--cell", cell, "--hidden", str(hidden)]
    cmd += ["--vocab", str(vocab)]
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
    print(f"# load average: {load_average()}")
    print(
        f"{'model':<10} {'jobs x threads':<15} {'env':<12} {'tokens/s (all jobs)':>19} "
        f"{'CPU ms/step':>11} {'faults/step':>11}"
    )
    for cell, hidden in parse_models(args.models) if args.rounds > 0 else []:
        contenders, extra = {}, defaultdict(list)
        for key in layouts:

            def go(k=key, c=cell, h=hidden, extra=extra):
                r = run_group(k[0], k[1], c, h, args.vocab, args.steps, k[2])
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
            hashes = {k: state_hash(cell, hidden, args.vocab, k[0], args.repro_steps, k[1]) for k in settings}
            rerun = state_hash(cell, hidden, args.vocab, settings[0][0], args.repro_steps, settings[0][1])
            print(
                f"{label(cell, hidden)}: "
                + ", ".join(f"{t} thread(s) env {env}: {h[:16]}" for (t, env), h in hashes.items())
                + f"; rerun of the first: {'same' if rerun == hashes[settings[0]] else 'DIFFERENT'}"
            )
