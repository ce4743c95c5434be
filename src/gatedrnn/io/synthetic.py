"""Text the project makes itself, for runs with no network (the smoke config, tests).

``synthetic_prose`` writes play-like lines: a speaker's name in capitals, then
sentences drawn from a small fixed lexicon by a seeded generator. It has the
shape of the real corpus (names, punctuation, blank lines, newlines) at any size.
``copy_task`` writes a long-memory task (a key repeated ``distance`` characters
later) and ``write_copy_task_corpus`` stores it with its provenance record.
"""

from __future__ import annotations

import json

import numpy as np

from gatedrnn.io.files import atomic_write_bytes, sha256_bytes

SPEAKERS = ("HAMLET", "OPHELIA", "KING", "QUEEN", "HORATIO", "LAERTES", "FOOL")
WORDS = (
    "the and my lord to of you that is in not it me what this be his with your "
    "but for have he so will thou thy as do shall all good now are come sir "
    "love heart night king death speak well let here more than sweet eyes "
    "tell know must time make man like say give hath upon world fair noble"
).split()
ENDINGS = (".", ".", ".", ",", "?", "!", ";", ":")


def synthetic_prose(chars: int, seed: int = 0) -> str:
    """At least ``chars`` characters of play-like text, cut to exactly ``chars``."""
    if chars < 1:
        raise ValueError(f"synthetic corpus size must be positive, got {chars}")
    rng = np.random.default_rng(seed)
    pieces: list[str] = []
    total = 0
    while total < chars:
        speech = [rng.choice(SPEAKERS) + ".", "\n"]
        for _ in range(int(rng.integers(1, 5))):
            words = [str(w) for w in rng.choice(WORDS, size=int(rng.integers(3, 10)))]
            words[0] = words[0].capitalize()
            speech.append(" ".join(words) + str(rng.choice(ENDINGS)) + "\n")
        speech.append("\n")
        block = "".join(speech)
        pieces.append(block)
        total += len(block)
    return "".join(pieces)[:chars]


# ------------------------------------------------------------- a long-memory task

COPY_KEYS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
COPY_FILLERS = "abcdefghijklmnopqrstuvwxyz"


def copy_task(chars: int, distance: int, seed: int = 0, keys: int = 8, fillers: int = 4) -> str:
    """A corpus whose every record needs a memory of ``distance`` characters.

    Records ``K f_1 .. f_{distance-1} K "\\n"``: a key ``K`` (one of the first
    ``keys`` capitals, uniform) at position ``p`` of the record is repeated at
    ``p + distance``; between them ``distance - 1`` filler letters (uniform over
    the first ``fillers`` lowercase letters, independent of everything), and a
    newline ends the record (``distance + 2`` characters). Keys and filler are
    drawn by a seeded generator; the text is cut to exactly ``chars``.

    The second key is fully determined by the first, ``distance`` characters
    back, and by nothing nearer: a model whose memory fades within a few
    characters predicts it at chance (``ln keys`` nats) however well it models
    the rest (:func:`copy_task_loss_bounds`).
    """
    if chars < 1:
        raise ValueError(f"copy-task corpus size must be positive, got {chars}")
    if distance < 2:
        raise ValueError(f"the copy distance must be at least 2 (one filler character), got {distance}")
    if not 2 <= keys <= len(COPY_KEYS) or not 1 <= fillers <= len(COPY_FILLERS):
        raise ValueError(
            f"keys must lie in 2..{len(COPY_KEYS)} and fillers in 1..{len(COPY_FILLERS)}, "
            f"got keys={keys}, fillers={fillers}"
        )
    rng = np.random.default_rng(seed)
    length = distance + 2
    records = -(-chars // length)
    key_ids = rng.integers(0, keys, size=records)
    filler_ids = rng.integers(0, fillers, size=(records, distance - 1))
    key_chars = np.array(list(COPY_KEYS[:keys]))
    filler_chars = np.array(list(COPY_FILLERS[:fillers]))
    table = np.empty((records, length), dtype="<U1")
    table[:, 0] = key_chars[key_ids]
    table[:, 1:distance] = filler_chars[filler_ids]
    table[:, distance] = key_chars[key_ids]
    table[:, distance + 1] = "\n"
    return "".join(table.ravel())[:chars]


def recall_positions(text: str, distance: int) -> np.ndarray:
    """Positions ``t`` of ``text`` holding a key whose copy source, ``text[t - distance]``,
    is inside ``text``: where a copy-task model must remember (0-based)."""
    keys = np.array([c in COPY_KEYS for c in text], dtype=bool)
    t = np.arange(distance, len(text))
    return t[keys[t] & keys[t - distance]]


def copy_task_loss_bounds(distance: int, keys: int = 8, fillers: int = 4) -> dict[str, float]:
    """Per-character loss (nats) on :func:`copy_task` text of a model that knows its
    structure: ``perfect`` (remembers the key: only the first key and the filler
    are uncertain) and ``no_key_memory`` (counts positions perfectly but guesses the
    repeated key: ``ln keys`` more per record); ``recall_chance`` is ``ln keys``,
    the loss at a recall position without the memory."""
    length = distance + 2
    filler = (distance - 1) * np.log(fillers)
    return {
        "perfect": float((filler + np.log(keys)) / length),
        "no_key_memory": float((filler + 2 * np.log(keys)) / length),
        "recall_chance": float(np.log(keys)),
    }


def write_copy_task_corpus(
    text_path, provenance_path, chars: int, distance: int, seed: int, keys: int, fillers: int
) -> dict:
    """Write :func:`copy_task` text and a provenance record shaped like
    :func:`gatedrnn.io.corpus.build_corpus`'s (``corpus_sha256``, ``vocab_size``, ...)."""
    text = copy_task(chars, distance, seed, keys, fillers)
    encoded = text.encode("utf-8")
    provenance = {
        "source": "copy_task",
        "chars_requested": chars,
        "distance": distance,
        "keys": keys,
        "fillers": fillers,
        "seed": seed,
        "loss_bounds": copy_task_loss_bounds(distance, keys, fillers),
        "members": [],
        "corpus_sha256": sha256_bytes(encoded),
        "bytes": len(encoded),
        "characters": len(text),
        "vocabulary": "".join(sorted(set(text))),
        "vocab_size": len(set(text)),
    }
    atomic_write_bytes(text_path, encoded)
    atomic_write_bytes(provenance_path, (json.dumps(provenance, indent=2, sort_keys=True) + "\n").encode())
    return provenance
