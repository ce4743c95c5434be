"""What a training job checks before it trains: the constraints the config alone
could not settle.

The plan (:mod:`gatedrnn.plan.checks`) refuses, when the config is loaded, every
stated constraint it can see, the windows against a text whose length the config
fixes included. A corpus fetched from the package index, a URL or a file has a
length and a vocabulary only once the corpus job has made it; the training job is
the first that reads it, so it checks them here, before it builds a model, with the
plan's arithmetic and messages (:mod:`gatedrnn.core.fits`): the key, its value, the
limit and the fix. It also refuses ``train.device: cuda`` on a machine whose job sees
no GPU.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import torch

from gatedrnn.core.data import vocabulary_coverage_problem
from gatedrnn.core.fits import vocabulary_problem, window_problems


def corpus_problems(
    corpus_path,
    provenance_path,
    *,
    regime: str,
    train_config: Mapping,
    train_fraction: float,
    probe_length: int,
    overrides: Mapping | None = None,
) -> list[str]:
    """What does not fit in the corpus a job trains on: its training and validation
    windows, the probe lines its gates will be read on, the vocabulary the
    perturbation measures need, and the model's vocabulary (``train.vocabulary``: a
    fixed one must hold every corpus character). Lengths and characters come from the
    corpus's provenance record.
    ``overrides``: the regime's own keys under ``regimes`` (a regime that sets seq_len
    is named as ``regimes.<regime>.seq_len``, otherwise ``train.seq_len``)."""
    provenance = json.loads(Path(provenance_path).read_text())
    characters = provenance["characters"]
    text = f"{corpus_path} (corpus.source {provenance['source']}, {characters} characters)"
    keys = {
        key: f"regimes.{regime}.{key}" if key in (overrides or {}) else f"train.{key}"
        for key in ("seq_len", "val_windows", "vocabulary")
    }
    problems = window_problems(
        text,
        characters,
        train_fraction,
        seq_len=train_config["seq_len"],
        val_windows=train_config["val_windows"],
        probe_length=probe_length,
        keys=keys,
    )
    coverage = vocabulary_coverage_problem(
        train_config["vocabulary"], provenance["vocabulary"], text, keys["vocabulary"]
    )
    vocabulary = vocabulary_problem(provenance["vocab_size"], text)
    return problems + [problem for problem in (coverage, vocabulary) if problem]


def device_problem(device: str) -> str | None:
    """``train.device: cuda`` needs a GPU this job can use."""
    if device != "cuda" or torch.cuda.is_available():
        return None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "<unset>")
    return (
        f"train.device is 'cuda', but this job sees no usable GPU (CUDA_VISIBLE_DEVICES={visible}); "
        "set train.device: auto (CUDA when present, else the CPU), or run the training jobs on "
        "GPU nodes (snakemake --profile profiles/slurm-gpu)"
    )


def check_before_training(
    corpus_path,
    provenance_path,
    *,
    regime: str,
    train_config: Mapping,
    train_fraction: float,
    device: str,
    probe_length: int,
    overrides: Mapping | None = None,
) -> None:
    """Refuse (ValueError, every problem at once) a training job whose corpus or device
    breaks a constraint; silent when all is well. The rule script calls it first."""
    problems = corpus_problems(
        corpus_path,
        provenance_path,
        regime=regime,
        train_config=train_config,
        train_fraction=train_fraction,
        probe_length=probe_length,
        overrides=overrides,
    )
    device_refusal = device_problem(device)
    problems += [device_refusal] if device_refusal else []
    if len(problems) == 1:
        raise ValueError(f"regime {regime!r}: {problems[0]}")
    if problems:
        raise ValueError(
            f"regime {regime!r} breaks {len(problems)} constraints:\n"
            + "\n".join(f"  - {problem}" for problem in problems)
        )
