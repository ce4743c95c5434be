"""Reading the workflow's corpus files back: the text, its provenance, the vocabulary
and the contiguous train/validation split.

Apart from :mod:`gatedrnn.io.corpus` (fetching, verifying, assembling) so that the
jobs that only read the corpus (training, gate extraction) do not run, and so do not
depend on, the download code (:mod:`gatedrnn.code_version`).
"""

from __future__ import annotations

import json
from pathlib import Path

from gatedrnn.core.data import Vocabulary, split_train_val, vocabulary_coverage_problem


def load_corpus(corpus_path, provenance_path, vocabulary: str) -> tuple[str, dict, Vocabulary]:
    """The text, its provenance and the model's vocabulary ``vocabulary`` (config
    ``train.vocabulary``); a text that vocabulary cannot read is refused, naming the
    characters outside it."""
    text = Path(corpus_path).read_text(encoding="utf-8")
    provenance = json.loads(Path(provenance_path).read_text())
    if problem := vocabulary_coverage_problem(vocabulary, set(text), str(corpus_path)):
        raise ValueError(problem)
    return text, provenance, Vocabulary.named(vocabulary, text)


def corpus_splits(corpus_path, provenance_path, train_fraction: float, vocabulary: str):
    """(vocabulary, train ids, validation ids, provenance) of the workflow's corpus, in
    the model's vocabulary ``vocabulary``."""
    text, provenance, vocab = load_corpus(corpus_path, provenance_path, vocabulary)
    train_ids, val_ids = split_train_val(vocab.encode(text), train_fraction)
    return vocab, train_ids, val_ids, provenance
