"""The model's vocabularies by name (config ``train.vocabulary``), without torch: the
plan, the widths and the memory estimate need their sizes before any model exists.

``printable``: the 100 symbols of Python's ``string.printable``, in that order (the
study's V = 100, docs/experiments.md). ``corpus``: the corpus's own characters, sorted
by code point (:class:`gatedrnn.core.data.Vocabulary`).
"""

from __future__ import annotations

import string

# The fixed vocabularies by name; "corpus" is the text's own.
FIXED_VOCABULARIES = {"printable": string.printable}
VOCABULARIES = (*FIXED_VOCABULARIES, "corpus")


def unknown_vocabulary(name: str) -> str:
    return f"unknown vocabulary {name!r}; choose one of {', '.join(VOCABULARIES)}"


def vocabulary_size(name: str, corpus_vocab_size: int) -> int:
    """How many symbols a model of vocabulary ``name`` reads and predicts, on a corpus of
    ``corpus_vocab_size`` distinct characters (its corpus.json ``vocab_size``)."""
    if name == "corpus":
        return int(corpus_vocab_size)
    if name not in FIXED_VOCABULARIES:
        raise ValueError(unknown_vocabulary(name))
    return len(FIXED_VOCABULARIES[name])


def vocabulary_coverage_problem(
    name: str, corpus_chars, corpus: str = "the corpus", key: str = "train.vocabulary"
) -> str | None:
    """Why a model of vocabulary ``name`` (set by the config key ``key``) cannot read
    ``corpus_chars`` (the corpus's distinct characters): the characters outside it, and
    the fix. None when it can."""
    if name == "corpus":
        return None
    if name not in FIXED_VOCABULARIES:
        return unknown_vocabulary(name)
    outside = sorted(set(corpus_chars) - set(FIXED_VOCABULARIES[name]))
    if not outside:
        return None
    shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in outside[:20])
    more = f" and {len(outside) - 20} more" if len(outside) > 20 else ""
    return (
        f"{corpus} has {len(outside)} character(s) outside the {name!r} vocabulary ({key}): "
        f"{shown}{more}; set {key} to 'corpus' (the corpus's own characters) or use a text "
        f"without them"
    )
