"""Vocabulary, the contiguous train/validation split, and window sampling.

The model's vocabulary (config ``train.vocabulary``) is ``printable``, the 100
symbols of Python's ``string.printable`` in that order (the study's V = 100,
docs/experiments.md), or ``corpus``, the corpus's own characters sorted by code
point. A corpus character outside a fixed vocabulary is refused before training
(:func:`vocabulary_coverage_problem`).

Everything here is a pure function of its arguments: the training windows come
from a ``torch.Generator`` the caller owns (and checkpoints), the validation and
probe windows sit at fixed, evenly spaced offsets.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

import numpy as np
import torch

# The fixed vocabularies by name; "corpus" is the text's own.
FIXED_VOCABULARIES = {"printable": string.printable}
VOCABULARIES = (*FIXED_VOCABULARIES, "corpus")


@dataclass(frozen=True)
class Vocabulary:
    """Distinct characters; ids are positions in that order."""

    chars: str

    @classmethod
    def from_text(cls, text: str) -> Vocabulary:
        """The text's own characters, sorted by code point."""
        return cls("".join(sorted(set(text))))

    @classmethod
    def named(cls, name: str, text: str) -> Vocabulary:
        """The vocabulary ``name`` (config ``train.vocabulary``) for a model of ``text``."""
        if name == "corpus":
            return cls.from_text(text)
        if name not in FIXED_VOCABULARIES:
            raise ValueError(unknown_vocabulary(name))
        return cls(FIXED_VOCABULARIES[name])

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> torch.Tensor:
        """Ids of ``text`` (int64). Vectorised over code points: a job encodes the
        whole 5-million-character corpus, which a per-character dict lookup makes
        a visible share of a short job's wall time."""
        try:
            codes = _code_points(self.chars)
            points = _code_points(text)
        except UnicodeEncodeError as err:  # a lone surrogate: never in a UTF-8 corpus
            raise ValueError(f"character {err.object[err.start]!r} is not in the vocabulary") from None
        # id of every code point up to the largest in the vocabulary; -1: not in it
        table = np.full(int(codes.max()) + 2 if len(codes) else 1, -1, dtype=np.int64)
        table[codes] = np.arange(len(codes))
        ids = table[np.minimum(points, len(table) - 1)]
        if len(ids) and ids.min() < 0:
            unknown = text[int(np.argmin(ids))]
            raise ValueError(f"character {unknown!r} is not in the vocabulary")
        return torch.from_numpy(ids)

    def decode(self, ids) -> str:
        return "".join(self.chars[int(i)] for i in ids)


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


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)


def split_train_val(ids: torch.Tensor, train_fraction: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Contiguous split: the first ``train_fraction`` for training, the rest for validation."""
    if not 0.0 < train_fraction < 1.0:
        raise ValueError(f"train_fraction must lie in (0, 1), got {train_fraction}")
    cut = int(len(ids) * train_fraction)
    return ids[:cut], ids[cut:]


def even_offsets(n_positions: int, count: int, length: int) -> np.ndarray:
    """``count`` window starts, evenly spaced, each window of ``length`` fitting inside."""
    last = n_positions - length
    if last < 0:
        raise ValueError(
            f"a window of {length} characters does not fit in {n_positions} characters; "
            "use a larger corpus or a shorter seq_len"
        )
    return np.linspace(0, last, count).round().astype(np.int64)


def fixed_windows(ids: torch.Tensor, count: int, length: int) -> torch.Tensor:
    """``count`` windows of ``length`` ids at evenly spaced offsets, shape (count, length)."""
    starts = torch.from_numpy(even_offsets(len(ids), count, length))
    return ids[starts[:, None] + torch.arange(length)]


def validation_windows(val_ids: torch.Tensor, count: int, seq_len: int) -> torch.Tensor:
    """Fixed validation windows of ``seq_len + 1`` ids (inputs and shifted targets)."""
    return fixed_windows(val_ids, count, seq_len + 1)


def probe_windows(val_ids: torch.Tensor, count: int = 32, length: int = 128) -> torch.Tensor:
    """The probe set for every gate statistic: ``count`` lines of ``length`` characters
    at evenly spaced offsets of the validation split (32 x 128 = 4,096 positions)."""
    return fixed_windows(val_ids, count, length)


def sample_windows(
    train_ids: torch.Tensor, batch_size: int, seq_len: int, generator: torch.Generator
) -> torch.Tensor:
    """A batch of ``seq_len + 1`` id windows at uniformly random starts, shape (B, seq_len + 1)."""
    high = len(train_ids) - seq_len
    if high < 1:
        raise ValueError(
            f"the training split ({len(train_ids)} characters) is shorter than one window "
            f"of {seq_len + 1}; use a larger corpus or a shorter seq_len"
        )
    starts = torch.randint(0, high, (batch_size,), generator=generator)
    return train_ids[starts[:, None] + torch.arange(seq_len + 1)]
