"""Reading the workflow's corpus files back: the text, its provenance, the vocabulary
and the contiguous train/validation split.

Apart from :mod:`gatedrnn.io.corpus` (fetching, verifying, assembling) so that the
jobs that only read the corpus (training, gate extraction) do not run, and so do not
depend on, the download code (:mod:`gatedrnn.code_version`).
"""

from __future__ import annotations

from pathlib import Path

from gatedrnn.core.data import Vocabulary, split_train_val
from gatedrnn.core.vocabularies import vocabulary_coverage_problem
from gatedrnn.errors import CorpusError
from gatedrnn.io.files import read_json, sha256_bytes


def read_corpus_text(corpus_path, provenance: dict, provenance_path) -> str:
    """The corpus text exactly as the corpus rule wrote it: bytes decoded once, so
    line endings stay as they are (``read_text`` would turn ``\\r\\n`` into ``\\n``
    and train on a vocabulary the record does not list). Its sha256 is measured and
    must be the one ``corpus.json`` records: a hand-edited text is refused, not
    trained on under the old text's checksum."""
    data = Path(corpus_path).read_bytes()
    measured = sha256_bytes(data)
    recorded = provenance.get("corpus_sha256")
    if measured != recorded:
        raise CorpusError(
            f"{corpus_path} has sha256 {measured}, but {provenance_path} records {recorded}: "
            "the text changed after the corpus rule wrote it. Delete both files and rerun to "
            "remake them from the config (to train on your own text, set `corpus.source: file` "
            "and `corpus.path`)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        message = f"{corpus_path} is not valid UTF-8 (byte {err.start}); delete it and rerun"
        raise CorpusError(message) from None


def load_corpus(corpus_path, provenance_path, vocabulary: str) -> tuple[str, dict, Vocabulary]:
    """The text (checked against its record, :func:`read_corpus_text`), its provenance
    and the model's vocabulary ``vocabulary`` (config ``train.vocabulary``); a text that
    vocabulary cannot read is refused, naming the characters outside it."""
    provenance = read_json(provenance_path, "corpus provenance record")
    text = read_corpus_text(corpus_path, provenance, provenance_path)
    if problem := vocabulary_coverage_problem(vocabulary, set(text), str(corpus_path)):
        raise ValueError(problem)
    return text, provenance, Vocabulary.named(vocabulary, text)


def corpus_splits(corpus_path, provenance_path, train_fraction: float, vocabulary: str):
    """(vocabulary, train ids, validation ids, provenance) of the workflow's corpus, in
    the model's vocabulary ``vocabulary``."""
    text, provenance, vocab = load_corpus(corpus_path, provenance_path, vocabulary)
    train_ids, val_ids = split_train_val(vocab.encode(text), train_fraction)
    return vocab, train_ids, val_ids, provenance
