"""What a training job asks of the scheduler: memory from its shape (no torch).

``train.mem_mb: null`` asks for the job's estimated peak (:mod:`gatedrnn.core.memory`,
calibrated on this machine class to within about 10 %) plus :data:`MEMORY_MARGIN`;
a number is taken as given, and a job whose estimate exceeds it is refused before
it runs (it would be killed by the scheduler, or by the machine, mid-training). So is
a job whose estimate exceeds the memory it can have at all: ``--resources mem_mb``
(a profile's ``resources:``), else, run locally, the machine's total.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path

from gatedrnn.core.memory import estimate_train_peak_mb
from gatedrnn.core.vocabularies import vocabulary_size
from gatedrnn.core.widths import resolve_width

# Above the estimate: its error against measured peaks was -7 % to +11 %, and glibc's
# arenas make a peak jump by tens of MB between close shapes.
MEMORY_MARGIN = 0.20


def estimated_train_mb(cell: str, width_token: str, train: Mapping, provenance: Mapping) -> float:
    """The estimated peak (MiB) of one training job: its cell, width token and train
    config, on the corpus ``provenance`` (corpus.json: characters, vocab_size) describes.
    The model's vocabulary is the run's own (``train["vocabulary"]``)."""
    vocab = vocabulary_size(train["vocabulary"], provenance["vocab_size"])
    width = resolve_width(
        width_token, cell, vocab, train["embed_dim"], train["layers"], train["readout_norm"]
    )
    return estimate_train_peak_mb(
        cell=cell,
        width=width,
        vocab_size=vocab,
        corpus_chars=int(provenance["characters"]),
        embed_dim=train["embed_dim"],
        layers=train["layers"],
        readout_norm=train["readout_norm"],
        batch_size=train["batch_size"],
        seq_len=train["seq_len"],
        val_windows=train["val_windows"],
        optimizer=train["optimizer"],
    )


def machine_memory_mb() -> int | None:
    """This machine's memory (MiB): its physical total, or its control group's limit
    (a container's) where that is lower. None where the system does not say."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        total = min(total, int(limit)) if limit.isdigit() else total
    except OSError:
        pass
    return total // (1 << 20)


def refuse_above_limit(estimate: float, limit: tuple[int, str] | None, job: str) -> None:
    """Refuse a job whose estimated peak exceeds ``limit`` (MiB, what sets it) before it
    starts: Snakemake would cap its ``mem_mb`` to ``--resources`` silently and start it,
    and it would die in the allocator mid-training."""
    if limit is not None and estimate > limit[0]:
        raise ValueError(
            f"{job} is estimated to peak at {estimate:.0f} MB, above {limit[1]} ({limit[0]} MB): "
            "it would be killed mid-training; give it more memory (snakemake --resources mem_mb=...) "
            "on a machine that has it, or shrink the job (train.batch_size, train.val_windows, widths)"
        )


def train_mem_mb(
    configured: int | None,
    cell: str,
    width_token: str,
    train: Mapping,
    provenance: Mapping,
    limit: tuple[int, str] | None = None,
) -> int:
    """The job's ``mem_mb``: the configured value, or the estimate plus the margin.
    Refuses a configured value below the estimate, naming the key, both numbers and the
    fix, and an estimate above ``limit`` (:func:`refuse_above_limit`)."""
    estimate = estimated_train_mb(cell, width_token, train, provenance)
    job = (
        f"a {cell}_{width_token} training job on this corpus ({provenance['characters']} characters, "
        f"{provenance['vocab_size']} distinct)"
    )
    refuse_above_limit(estimate, limit, job)
    if configured is None:
        return math.ceil(estimate * (1 + MEMORY_MARGIN))
    if configured < estimate:
        enough = math.ceil(estimate * (1 + MEMORY_MARGIN))
        raise ValueError(
            f"train.mem_mb is {configured} MB, but a {cell}_{width_token} training job on this corpus "
            f"({provenance['characters']} characters, {provenance['vocab_size']} distinct) is estimated to "
            f"peak at {estimate:.0f} MB; set train.mem_mb to at least {enough} or to null (the estimate "
            "plus 20 %)"
        )
    return int(configured)


# The peak bytes per character of a generated text while it is built (its pieces, their
# join and the cut; measured 4.06 for the synthetic corpus with tracemalloc), rounded up.
GENERATION_BYTES_PER_CHAR = 5


def generated_text_problems(plan, limit: tuple[int, str] | None) -> list[str]:
    """Each text the config generates (the synthetic corpus, the copy task) whose
    building alone would need more memory than ``limit`` (MiB, what sets it): it is
    built in memory, and would run until the machine ran out (a dry run passed it)."""
    from gatedrnn.plan.checks import known_texts

    if limit is None:
        return []
    problems = []
    for dataset, text, chars, _ in known_texts(plan):
        needed = chars * GENERATION_BYTES_PER_CHAR / (1 << 20)
        if dataset != "small_corpus" and needed > limit[0]:
            problems.append(
                f"{text} would need about {needed:,.1f} MB to generate, above {limit[1]} "
                f"({limit[0]:,} MB): it is built in memory; give it at most "
                f"{limit[0] * (1 << 20) // GENERATION_BYTES_PER_CHAR:,} characters"
            )
    return problems
