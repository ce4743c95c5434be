"""Whether a config is a toy run, and the note every page and ledger of one opens with.

A toy run (``config/smoke.yaml``) trains tiny models for a few dozen steps on prose the
project generates: it shows that every rule runs, and its values set beside the study's
say nothing about the study. Decided from the config alone: the corpus is synthetic."""

from __future__ import annotations


def is_toy(config: dict) -> bool:
    return (config.get("corpus") or {}).get("source") == "synthetic"


def toy_note(config: dict) -> str:
    """One paragraph for the top of a page the run writes; empty for a real run."""
    if not is_toy(config):
        return ""
    corpus, train = config["corpus"], config["train"]
    widths = config.get("grid", {}).get("reference_width")
    return (
        "A toy run on a generated corpus: its verdicts mean nothing. "
        f"It trained on {int(corpus.get('synthetic_chars', 0)):,} characters of prose the project "
        f"generates (corpus.source: synthetic), at width {widths}, for {train['steps']} steps. "
        "The study's numbers come from full-size models trained on Shakespeare (config/config.yaml), "
        "so a value or finding here that agrees or differs with the study's shows only that every "
        "rule ran, not whether the study reproduces."
    )
