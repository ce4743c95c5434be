"""Text the project makes itself, for runs with no network (the smoke config, tests).

``synthetic_prose`` writes play-like lines: a speaker's name in capitals, then
sentences drawn from a small fixed lexicon by a seeded generator. It has the
shape of the real corpus (names, punctuation, blank lines, newlines) at any size.
"""

from __future__ import annotations

import numpy as np

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
