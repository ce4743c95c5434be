"""Corpus variants: texts cut from the workflow's corpus.

The corpus-size axis (``protocol.small_corpus``) asks whether the study trained on a
corpus of about a million characters (the size of the widely used "tiny Shakespeare"
file): its validation loss bottomed out at 800 steps, which at 32 x 128 characters a
step is three passes over a million characters but less than one over this corpus.
The small corpus is the corpus's first ``chars`` characters, cut back to the end of a
line: a contiguous stretch of the same package's plays (alphabetical order, so the
first plays whole), which the same contiguous split then divides into training and
validation text. Nothing random: the same corpus and ``chars`` give the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from gatedrnn.errors import CorpusError
from gatedrnn.io.files import atomic_write_bytes, sha256_bytes
from gatedrnn.io.reading import load_corpus


def corpus_prefix(text: str, chars: int) -> str:
    """The first ``chars`` characters of ``text``, cut back to the last newline among
    them (the newline kept), so no line is split; all of them if none is a newline."""
    if chars < 1:
        raise CorpusError(f"protocol.small_corpus.chars must be at least 1, got {chars}")
    if chars >= len(text):
        raise CorpusError(
            f"protocol.small_corpus.chars is {chars}, not below the corpus's {len(text)} characters: "
            "the small corpus is the corpus's first characters; set it below the corpus's length"
        )
    head = text[:chars]
    end = head.rfind("\n")
    return head if end < 0 else head[: end + 1]


def write_prefix_corpus(corpus_path, provenance_path, chars: int, text_out, provenance_out) -> dict:
    """Write the first ``chars`` characters of the corpus (:func:`corpus_prefix`) and
    its provenance record (what it was cut from, its checksum and vocabulary); on any
    error neither file exists."""
    for path in (text_out, provenance_out):
        Path(path).unlink(missing_ok=True)
    text, parent, _ = load_corpus(corpus_path, provenance_path, "corpus")  # as written, checksum checked
    small = corpus_prefix(text, chars)
    encoded = small.encode("utf-8")
    provenance = {
        "source": f"prefix of {parent.get('source', 'the corpus')} corpus",
        "parent_corpus_sha256": parent["corpus_sha256"],
        "parent_characters": len(text),
        "chars_requested": chars,
        "corpus_sha256": sha256_bytes(encoded),
        "bytes": len(encoded),
        "characters": len(small),
        "vocabulary": "".join(sorted(set(small))),
        "vocab_size": len(set(small)),
    }
    atomic_write_bytes(text_out, encoded)
    atomic_write_bytes(provenance_out, (json.dumps(provenance, indent=2, sort_keys=True) + "\n").encode())
    return provenance
