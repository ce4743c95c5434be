"""From files to a trained model and back: what the ``train`` rule does.

Kept apart from :mod:`gatedrnn.train.loop` (the loop) so that the loop stays free of
file formats, and the rule script stays a single call.

Files of one run (``<regime>/<model>_s<seed>`` below ``results/models`` and
``results/checkpoints``):

- ``model.pt``, ``history.csv``, ``summary.json``: the rule's outputs. A run whose
  training diverged still writes all three, marked: ``summary.json`` has
  ``"diverged": true`` and the step and loss (:func:`gatedrnn.train.loop.summarise`),
  ``history.csv`` the validations before that step, ``model.pt`` the weights that
  loss was computed with (the diverging step's update not applied). Consumers must
  skip summaries with ``diverged`` (and name them).
- ``checkpoint_step<k>.pt``: resumable states while the run trains; deleted when it ends.
- ``final_state.pt`` (beside the checkpoints, kept): the whole state after the last
  step, where a longer run of the same protocol starts (``prefix_summary``;
  :mod:`gatedrnn.train.prefix` picks which). Not written by a diverged run. Deleting
  it costs time only: the longer run then trains those steps itself, to the same bytes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import pandas as pd
import torch

from gatedrnn.core.registry import cell_name, is_import_path
from gatedrnn.core.widths import resolve_width
from gatedrnn.io.files import atomic_torch_save, atomic_write_bytes
from gatedrnn.io.reading import corpus_splits
from gatedrnn.io.records import read_summary
from gatedrnn.train.checkpoints import FINAL_STATE_NAME
from gatedrnn.train.config import TrainConfig, config_hash, hashed_protocol
from gatedrnn.train.loop import summarise, train_model


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
    prefix_summary=None,
    numerics: dict | None = None,
    log=print,
) -> dict:
    """Train one model and write ``outputs.model``, ``.history`` and ``.summary``.

    ``prefix_summary``: the ``summary.json`` of the same model trained under a
    shorter regime of the same protocol (the rule's ``prefix`` input: a path, or a
    list of none or one); the run starts from that run's ``final_state.pt``
    (:func:`prefix_state_path`) at its last step.

    ``threads`` (config ``train.threads``) is part of the numeric protocol: CPU
    kernels split their sums by thread, so the same model trained on 1 and on 2
    threads differs in the last bits. The job therefore always runs on
    ``threads``, even when Snakemake scheduled it on fewer cores
    (``scheduled_threads``, e.g. under ``--cores 1``), and says so in its log.

    ``numerics``: what the kernels ran under (:func:`gatedrnn.numerics.check_in_force`),
    recorded in the summary as it is.
    """
    if scheduled_threads is not None and scheduled_threads < threads:
        log(
            f"note: scheduled on {scheduled_threads} core(s) but running {threads} threads "
            "(train.threads) so that the result does not depend on --cores"
        )
    torch.set_num_threads(threads)
    cfg = TrainConfig(**train_config)
    vocab, train_ids, val_ids, provenance = corpus_splits(
        corpus_path, provenance_path, train_fraction, cfg.vocabulary
    )
    width = resolve_width(width_token, cell, len(vocab), cfg.embed_dim, cfg.layers, cfg.readout_norm)
    identity = {
        "cell": cell,
        "width": width,
        "seed": seed,
        "corpus_sha256": provenance["corpus_sha256"],
        "train_fraction": train_fraction,
        "threads": threads,
    }
    name = cell_name(cell)  # a plug-in's class name in lower case; a built-in's own
    log(f"{cell} width {width} ({width_token}) seed {seed} regime {regime}; {threads} threads")
    for output in (outputs.model, outputs.history, outputs.summary):
        Path(output).parent.mkdir(parents=True, exist_ok=True)

    checkpoint_dir = Path(checkpoint_dir)
    # this run is (re)made: a final state from an earlier run of it is stale
    if (checkpoint_dir / FINAL_STATE_NAME).is_file():
        (checkpoint_dir / FINAL_STATE_NAME).unlink()
    start_from, prefix_regime, prefix = None, None, None
    if prefix_summary is not None and not isinstance(prefix_summary, str | os.PathLike):
        (prefix_summary,) = list(prefix_summary) or [None]  # the rule's input: a list of 0 or 1
    if prefix_summary:
        prefix_regime = read_summary(prefix_summary)["regime"]
        start_from = prefix_state_path(checkpoint_dir, prefix_regime)
        log(f"the first steps are those of regime {prefix_regime}: starting from {start_from}")

    started = time.perf_counter()
    result = train_model(
        cell=cell,
        hidden=width,
        seed=seed,
        vocab_size=len(vocab),
        train_ids=train_ids,
        val_ids=val_ids,
        cfg=cfg,
        checkpoint_dir=checkpoint_dir,
        checkpoint_every=checkpoint_every,
        identity=identity,
        device=device,
        log=log,
        start_from=start_from,
        final_state=checkpoint_dir / FINAL_STATE_NAME,
        on_divergence="record",
    )
    wall = time.perf_counter() - started
    if result.prefix_from is not None:
        prefix = {"regime": prefix_regime, "step": result.prefix_from}

    summary = summarise(
        result,
        cell=name,
        width=width,
        seed=seed,
        extra={
            "model": f"{name}_{width_token}",
            **({"cell_path": cell} if is_import_path(cell) else {}),
            "width_token": width_token,
            "regime": regime,
            "vocab_size": len(vocab),
            "train_config": asdict(cfg),
            "config_hash": config_hash({"train": hashed_protocol(cfg), "identity": identity}),
            "corpus_sha256": provenance["corpus_sha256"],
            "resumed_from_step": result.resumed_from,
            **({"prefix_from": prefix} if prefix else {}),
            "wall_seconds": wall,
            "threads": threads,
            "slurm_job_id": os.environ.get("SLURM_JOB_ID"),
            "numerics": numerics,
        },
    )
    atomic_torch_save(result.model.state_dict(), Path(outputs.model))
    history = pd.DataFrame(result.history, columns=["step", "train_loss", "val_loss"])
    atomic_write_bytes(outputs.history, history.to_csv(index=False).encode())
    atomic_write_bytes(outputs.summary, (json.dumps(summary, indent=2) + "\n").encode())
    remove_spent_checkpoints(checkpoint_dir)  # the model is final; checkpoints are spent
    if result.diverged_at_step is not None:
        log(
            f"WARNING: DIVERGED at step {result.diverged_at_step} (training loss "
            f"{result.diverged_loss:.6g}); outputs written in diverged form (summary.json "
            f'"diverged": true, best_val_loss NaN); {wall:.1f} s'
        )
    else:
        log(f"best val_loss {result.best_val_loss:.4f} at step {result.best_step}; {wall:.1f} s")
    return summary


def prefix_state_path(checkpoint_dir, prefix_regime: str) -> Path:
    """The same model's ``final_state.pt`` under ``prefix_regime``: checkpoint directories
    are ``<root>/<regime>/<model>_s<seed>`` (the train rule's ``checkpoint_dir``)."""
    checkpoint_dir = Path(checkpoint_dir)
    return checkpoint_dir.parent.parent / prefix_regime / checkpoint_dir.name / FINAL_STATE_NAME


def remove_spent_checkpoints(checkpoint_dir) -> None:
    """Everything in the run's checkpoint directory but its final state (the directory
    itself when nothing is left)."""
    checkpoint_dir = Path(checkpoint_dir)
    if not checkpoint_dir.is_dir():
        return
    for path in checkpoint_dir.iterdir():
        if path.name == FINAL_STATE_NAME:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        checkpoint_dir.rmdir()  # only when empty
