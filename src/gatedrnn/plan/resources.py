"""What a training job asks of the scheduler: memory from its shape (no torch).

``train.mem_mb: null`` asks for the job's estimated peak (:mod:`gatedrnn.core.memory`,
calibrated on this machine class to within about 10 %) plus :data:`MEMORY_MARGIN`;
a number is taken as given, and a job whose estimate exceeds it is refused before
it runs (it would be killed by the scheduler, or by the machine, mid-training).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from gatedrnn.core.data import vocabulary_size
from gatedrnn.core.memory import estimate_train_peak_mb
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


def train_mem_mb(
    configured: int | None, cell: str, width_token: str, train: Mapping, provenance: Mapping
) -> int:
    """The job's ``mem_mb``: the configured value, or the estimate plus the margin.
    Refuses a configured value below the estimate, naming the key, both numbers and the fix."""
    estimate = estimated_train_mb(cell, width_token, train, provenance)
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
