"""The non-training share of a real ``train_model`` run (the second table of ``train-step``)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from unittest import mock

from bench.common import label, parse_models, synchronize
from bench.grid import CORPUS, SEED, load_config
from gatedrnn.train import loop as train_mod
from gatedrnn.train.config import TrainConfig
from gatedrnn.train.loop import train_model


def cadence_counts(steps: int, eval_every: int, checkpoint_every: int) -> tuple[int, int]:
    """(evaluations, checkpoints) of a train_model run from step 0 (mirrors the loop's conditions)."""
    evals = 1 + sum(1 for s in range(1, steps + 1) if s % eval_every == 0 or s == steps)
    ckpts = sum(1 for s in range(1, steps + 1) if s % checkpoint_every == 0 and s < steps)
    return evals, ckpts


def instrumented_run(cell, hidden, vocab, cfg, checkpoint_every, device, train_ids, val_ids) -> dict:
    """One real train_model run with its evaluation, checkpointing, sampling and logging timed."""
    spent: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    first_eval: list[float] = []

    def wrap(name, fn, sync=False):
        def wrapper(*a, **k):
            if name == "evaluate" and not first_eval:
                first_eval.append(time.perf_counter())
            if sync:
                synchronize(device)
            t = time.perf_counter()
            out = fn(*a, **k)
            if sync:
                synchronize(device)
            spent[name] += time.perf_counter() - t
            calls[name] += 1
            return out

        return wrapper

    with (
        tempfile.TemporaryDirectory(prefix="gatedrnn-bench-") as tmp,
        open(Path(tmp) / "train.log", "w") as log_file,
        mock.patch.object(train_mod, "evaluate", wrap("evaluate", train_mod.evaluate, sync=True)),
        mock.patch.object(train_mod, "atomic_torch_save", wrap("checkpoint", train_mod.atomic_torch_save)),
        mock.patch.object(train_mod, "prune_checkpoints", wrap("checkpoint", train_mod.prune_checkpoints)),
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
            vocab_size=vocab,
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
    provenance = CORPUS.with_suffix(".json")
    if CORPUS.exists() and provenance.exists():
        from gatedrnn.io.reading import corpus_splits

        t = time.perf_counter()
        config = load_config()
        corpus_splits(
            CORPUS, provenance, float(config["split"]["train_fraction"]), config["train"]["vocabulary"]
        )
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
        r = instrumented_run(cell, hidden, args.vocab, run_cfg, checkpoint_every, device, train_ids, val_ids)
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
