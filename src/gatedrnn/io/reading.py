"""Reading the workflow's corpus files back: the text, its provenance, the vocabulary
and the contiguous train/validation split.

Apart from :mod:`gatedrnn.io.corpus` (fetching, verifying, assembling) so that the
jobs that only read the corpus (training, gate extraction) do not run, and so do not
depend on, the download code (:mod:`gatedrnn.code_version`).
"""

from __future__ import annotations

import json
from pathlib import Path

from gatedrnn.core.data import Vocabulary, split_train_val


def load_corpus(corpus_path, provenance_path) -> tuple[str, dict, Vocabulary]:
    text = Path(corpus_path).read_text(encoding="utf-8")
    provenance = json.loads(Path(provenance_path).read_text())
    return text, provenance, Vocabulary.from_text(text)


def corpus_splits(corpus_path, provenance_path, train_fraction: float):
    """(vocabulary, train ids, validation ids, provenance) of the workflow's corpus."""
    text, provenance, vocab = load_corpus(corpus_path, provenance_path)
    train_ids, val_ids = split_train_val(vocab.encode(text), train_fraction)
    return vocab, train_ids, val_ids, provenance
