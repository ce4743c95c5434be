"""From files to a trained model and back: what the ``train`` rule does.

Kept apart from :mod:`gatedrnn.train.loop` (the loop) so that the loop stays free of
file formats, and the rule script stays a single call.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import pandas as pd
import torch

from gatedrnn.core.widths import resolve_width
from gatedrnn.io.files import atomic_torch_save, atomic_write_bytes
from gatedrnn.io.reading import corpus_splits
from gatedrnn.train.loop import TrainConfig, config_hash, summarise, train_model


def train_one(
    *,
    corpus_path,
    provenance_path,
    cell: str,
    width_token: str,
    seed: int,
    regime: str,
    train_config: dict,
    train_fraction: float,
    checkpoint_dir,
    checkpoint_every: int,
    device: str,
    threads: int,
    outputs,
    scheduled_threads: int | None = None,
    log=print,
) -> dict:
    """Train one model and write ``outputs.model``, ``.history`` and ``.summary``.

    ``threads`` (config ``train.threads``) is part of the numeric protocol: CPU
    kernels split their sums by thread, so the same model trained on 1 and on 2
    threads differs in the last bits. The job therefore always runs on
    ``threads``, even when Snakemake scheduled it on fewer cores
    (``scheduled_threads``, e.g. under ``--cores 1``), and says so in its log.
    """
    if scheduled_threads is not None and scheduled_threads < threads:
        log(
            f"note: scheduled on {scheduled_threads} core(s) but running {threads} threads "
            "(train.threads) so that the result does not depend on --cores"
        )
    torch.set_num_threads(threads)
    cfg = TrainConfig(**train_config)
    vocab, train_ids, val_ids, provenance = corpus_splits(corpus_path, provenance_path, train_fraction)
    width = resolve_width(width_token, cell, len(vocab), cfg.embed_dim, cfg.layers)
    identity = {
        "cell": cell,
        "width": width,
        "seed": seed,
        "corpus_sha256": provenance["corpus_sha256"],
        "train_fraction": train_fraction,
        "threads": threads,
    }
    log(f"{cell} width {width} ({width_token}) seed {seed} regime {regime}; {threads} threads")
    for output in (outputs.model, outputs.history, outputs.summary):
        Path(output).parent.mkdir(parents=True, exist_ok=True)

    started = time.perf_counter()
    result = train_model(
        cell=cell,
        hidden=width,
        seed=seed,
        vocab_size=len(vocab),
        train_ids=train_ids,
        val_ids=val_ids,
        cfg=cfg,
        checkpoint_dir=Path(checkpoint_dir),
        checkpoint_every=checkpoint_every,
        identity=identity,
        device=device,
        log=log,
    )
    wall = time.perf_counter() - started

    summary = summarise(
        result,
        cell=cell,
        width=width,
        seed=seed,
        extra={
            "model": f"{cell}_{width_token}",
            "width_token": width_token,
            "regime": regime,
            "vocab_size": len(vocab),
            "train_config": asdict(cfg),
            "config_hash": config_hash({"train": asdict(cfg), "identity": identity}),
            "corpus_sha256": provenance["corpus_sha256"],
            "resumed_from_step": result.resumed_from,
            "wall_seconds": wall,
            "threads": threads,
            "slurm_job_id": os.environ.get("SLURM_JOB_ID"),
        },
    )
    atomic_torch_save(result.model.state_dict(), Path(outputs.model))
    history = pd.DataFrame(result.history, columns=["step", "train_loss", "val_loss"])
    atomic_write_bytes(outputs.history, history.to_csv(index=False).encode())
    atomic_write_bytes(outputs.summary, (json.dumps(summary, indent=2) + "\n").encode())
    shutil.rmtree(checkpoint_dir, ignore_errors=True)  # the model is final; checkpoints are spent
    log(f"best val_loss {result.best_val_loss:.4f} at step {result.best_step}; {wall:.1f} s")
    return summary
