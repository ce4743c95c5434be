"""Round two's constraints (registered in :data:`gatedrnn.plan.checks.CHECKS`): its
corpus sizes are texts the workflow can cut and train on."""

from __future__ import annotations

from collections.abc import Iterable

from gatedrnn.core.fits import window_problems
from gatedrnn.plan.checks import check
from gatedrnn.plan.round_two import round_two_enabled

SIZES = "protocol.round_two.small_corpus_chars"


def _sizes(plan) -> list[int]:
    """Round two's corpus sizes, when some small-corpus regime could be on its front."""
    if not round_two_enabled(plan.config) or not plan.corpus_size_points:
        return []
    return plan.config["protocol"]["round_two"]["small_corpus_chars"]


@check("protocol.round_two: its corpus sizes are shorter than a synthetic corpus")
def sizes_shorter(plan) -> Iterable[str]:
    corpus = plan.config["corpus"]
    if corpus["source"] != "synthetic":
        return
    total = corpus["synthetic_chars"]
    if longer := [chars for chars in _sizes(plan) if chars >= total]:
        yield (
            f"{SIZES} has {', '.join(map(str, longer))}, not below the synthetic corpus's {total} characters "
            "(corpus.synthetic_chars): each is the corpus's first characters; set them below that"
        )


@check("protocol.round_two: its corpus sizes hold the windows and the probe")
def sizes_hold_windows(plan) -> Iterable[str]:
    config = plan.config
    train, probe = config["train"], config["probe"]
    for chars in _sizes(plan):
        problems = window_problems(
            f"round two's corpus of {chars} characters ({SIZES})",
            chars,
            config["split"]["train_fraction"],
            seq_len=train["seq_len"],
            val_windows=train["val_windows"],
            probe_lines=probe["lines"],
            probe_length=probe["length"],
        )
        yield from problems[:1]  # one line per size: the first that does not fit
