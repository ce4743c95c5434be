"""The alphabet check: which vocabulary the study's printed parameter counts imply,
and which choice of corpus files comes closest to it (issue #17, "which protocol did
the study use?").

A model's parameter count is linear in the vocabulary size V: the embedding has
``V x embed_dim`` weights, the output layer ``H x V + V``, and the recurrent layers do
not depend on V. The slope and intercept are read off the project's own closed form
(:func:`gatedrnn.core.sizes.model_parameters`) at two vocabulary sizes, so the implied
V of a published count is ``(count - intercept) / slope``: a real number, which an
integer vocabulary matches only if the study counted parameters as this project does.

The candidates are fnmatch patterns over the members of the corpus inventory
(:mod:`gatedrnn.io.inventory`); a candidate's text is its members joined with one
blank line, as :func:`gatedrnn.io.corpus.assemble` joins them, so its alphabet is the
members' union plus the newline of the joint when there is more than one member.

Every function takes plain data (claims already reduced to dicts by
:func:`gatedrnn.claims.counts.published_counts`) and returns rows or a DataFrame.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from gatedrnn.core.sizes import model_parameters

# The joint between two members (gatedrnn.io.corpus.assemble).
JOINT = "\n\n"

COLUMNS = [
    "kind",
    "name",
    "model",
    "cell",
    "width",
    "width_from",
    "published_params",
    "implied_vocab",
    "nearest_vocab",
    "nearest_params",
    "params_difference",
    "params_at_corpus_vocab",
    "extra_per_unit",
    "pattern",
    "members",
    "skipped_members",
    "characters",
    "vocab_size",
    "distance",
    "closest",
]


def vocabulary_line(cell: str, width: int, embed_dim: int = 128, layers: int = 1) -> tuple[int, int]:
    """(slope, intercept) of the parameter count against the vocabulary size:
    ``model_parameters(cell, width, V) == intercept + slope * V`` for every V."""
    at_one = model_parameters(cell, width, 1, embed_dim, layers)
    slope = model_parameters(cell, width, 2, embed_dim, layers) - at_one
    intercept = at_one - slope
    # The solve below is only right if the closed form is linear in V; a change to
    # the model (say, a tied output layer) must fail here, not give a wrong V.
    probe = 1000
    if model_parameters(cell, width, probe, embed_dim, layers) != intercept + slope * probe:
        raise ValueError(f"the parameter count of {cell} width {width} is not linear in the vocabulary size")
    return slope, intercept


def implied_vocabulary(
    published: float, cell: str, width: int, embed_dim: int = 128, layers: int = 1
) -> dict[str, float | int]:
    """The vocabulary size that gives ``published`` parameters (a real number), the
    nearest integer vocabulary (at least 1), its count, and the published count minus it."""
    slope, intercept = vocabulary_line(cell, width, embed_dim, layers)
    implied = (published - intercept) / slope
    if not math.isfinite(implied) or implied <= 0:
        raise ValueError(
            f"{published} parameters are fewer than a {cell} of width {width} has without any "
            f"vocabulary ({intercept + slope}); check the published count, the width, train.embed_dim "
            "and train.layers"
        )
    nearest = max(1, math.floor(implied + 0.5))
    nearest_params = model_parameters(cell, width, nearest, embed_dim, layers)
    return {
        "implied_vocab": implied,
        "nearest_vocab": nearest,
        "nearest_params": nearest_params,
        "params_difference": published - nearest_params,
    }


def joint_fit(counts: Sequence[Mapping], embed_dim: int = 128, layers: int = 1) -> dict | None:
    """One vocabulary V and ``k`` extra parameters per hidden unit for every published
    count at once: the least-squares solution of ``count_i = intercept_i + slope_i V +
    k width_i`` (each model's own line, :func:`vocabulary_line`), then both rounded to
    integers and the largest count those integers miss by. ``k`` stands for what this
    project's model lacks and the study's had in proportion to the width (a norm's
    scale and shift, a learned initial state); None with fewer than two counts or
    widths that cannot tell V from k."""
    if len(counts) < 2:
        return None
    lines = [vocabulary_line(c["cell"], int(c["width"]), embed_dim, layers) for c in counts]
    design = np.array([[slope, int(c["width"])] for (slope, _), c in zip(lines, counts, strict=True)], float)
    target = np.array(
        [c["published"] - intercept for (_, intercept), c in zip(lines, counts, strict=True)], float
    )
    if np.linalg.matrix_rank(design) < 2:
        return None
    (vocab, extra), *_ = np.linalg.lstsq(design, target, rcond=None)
    whole_vocab, whole_extra = max(1, math.floor(vocab + 0.5)), math.floor(extra + 0.5)
    missed = [
        c["published"] - (intercept + slope * whole_vocab + whole_extra * int(c["width"]))
        for (slope, intercept), c in zip(lines, counts, strict=True)
    ]
    return {
        "kind": "joint_fit",
        "name": "one vocabulary and k parameters per hidden unit for every count",
        "implied_vocab": float(vocab),
        "nearest_vocab": whole_vocab,
        "extra_per_unit": float(extra),
        # the count the integer (V, k) misses by most (0: every count exactly)
        "params_difference": max(missed, key=abs),
    }


def joined_alphabet(members: Sequence[Mapping]) -> tuple[int, str]:
    """(characters, sorted distinct characters) of the members' texts joined with a
    blank line, from the inventory's per-member records alone."""
    if not members:
        return 0, ""
    characters = sum(m["characters"] for m in members) + len(JOINT) * (len(members) - 1)
    alphabet = set().union(*(m["vocabulary"] for m in members))
    if len(members) > 1:
        alphabet |= set(JOINT)
    return characters, "".join(sorted(alphabet))


def matching(records: Sequence[Mapping], pattern: str) -> list[Mapping]:
    """The records whose name matches the fnmatch ``pattern`` (case-sensitive, as the corpus rule)."""
    return [r for r in records if fnmatch.fnmatchcase(r["name"], pattern)]


def distance(vocab_size: float, implied: Sequence[float]) -> float:
    """Mean absolute difference between a vocabulary size and each implied one (NaN if none)."""
    if not implied:
        return math.nan
    return sum(abs(vocab_size - v) for v in implied) / len(implied)


def published_rows(
    counts: Sequence[Mapping], corpus_vocab: int, embed_dim: int = 128, layers: int = 1
) -> list[dict]:
    """One row per published count ({claim, model, cell, width, width_from, published})."""
    rows = []
    for count in counts:
        cell, width = count["cell"], int(count["width"])
        rows.append(
            {
                "kind": "published",
                "name": count["claim"],
                "model": count["model"],
                "cell": cell,
                "width": width,
                "width_from": count["width_from"],
                "published_params": count["published"],
                **implied_vocabulary(count["published"], cell, width, embed_dim, layers),
                "params_at_corpus_vocab": model_parameters(cell, width, corpus_vocab, embed_dim, layers),
            }
        )
    return rows


def candidate_rows(inventory: Mapping, candidates: Mapping[str, str], implied: Sequence[float]) -> list[dict]:
    """One row per candidate corpus choice: the members its pattern matches, the
    matching members the corpus rule could not use (``skipped``: not UTF-8, links),
    the joined text's length and alphabet size, and the distance to the implied vocabularies."""
    rows = []
    for name, pattern in candidates.items():
        members = matching(inventory["members"], pattern)
        characters, alphabet = joined_alphabet(members)
        rows.append(
            {
                "kind": "candidate",
                "name": name,
                "pattern": pattern,
                "members": len(members),
                "skipped_members": len(matching(inventory["skipped"], pattern)),
                "characters": characters,
                "vocab_size": len(alphabet),
                # a pattern that matches nothing is no choice at all
                "distance": distance(len(alphabet), implied) if members else math.nan,
            }
        )
    finite = [row["distance"] for row in rows if not math.isnan(row["distance"])]
    best = min(finite, default=math.nan)
    for row in rows:  # several only on a tie (e.g. two patterns matching the same members)
        row["closest"] = row["distance"] == best
    return rows


def configured_row(inventory: Mapping, provenance: Mapping, members_pattern: str, implied) -> dict:
    """The configured corpus (``data/corpus.json``), checked against the inventory: the
    corpus rule's own choice (``corpus.members`` for an archive, the whole text
    otherwise) must give the same length and alphabet from the inventory's records."""
    chosen = matching(inventory["members"], members_pattern) if inventory["archive"] else inventory["members"]
    characters, alphabet = joined_alphabet(chosen)
    if (characters, alphabet) != (provenance["characters"], provenance["vocabulary"]):
        raise ValueError(
            f"the corpus inventory gives {characters} characters and {len(alphabet)} distinct for the "
            f"configured corpus, data/corpus.json {provenance['characters']} and {provenance['vocab_size']}: "
            "they were built from different sources or settings; rebuild both (snakemake --forcerun corpus "
            "corpus_inventory)"
        )
    return {
        "kind": "configured",
        "name": "corpus",
        "pattern": members_pattern if inventory["archive"] else "",
        "members": len(chosen),
        "skipped_members": 0,
        "characters": provenance["characters"],
        "vocab_size": provenance["vocab_size"],
        "distance": distance(provenance["vocab_size"], implied),
        "closest": False,
    }


def alphabet_check_table(
    counts: Sequence[Mapping],
    inventory: Mapping,
    candidates: Mapping[str, str],
    provenance: Mapping,
    members_pattern: str,
    embed_dim: int = 128,
    layers: int = 1,
) -> pd.DataFrame:
    """The published counts (kind ``published``), their joint fit (``joint_fit``), the
    candidates (``candidate``) and the configured corpus (``configured``) in one table
    of :data:`COLUMNS`; a column that does not apply to a kind is empty."""
    published = published_rows(counts, provenance["vocab_size"], embed_dim, layers)
    implied = [row["implied_vocab"] for row in published]
    fit = joint_fit(counts, embed_dim, layers)
    rows = [
        *published,
        *([fit] if fit is not None else []),
        *candidate_rows(inventory, candidates, implied),
        configured_row(inventory, provenance, members_pattern, implied),
    ]
    table = pd.DataFrame(rows, columns=COLUMNS)
    integers = ["width", "published_params", "nearest_vocab", "nearest_params", "params_difference"]
    integers += ["params_at_corpus_vocab", "members", "skipped_members", "characters", "vocab_size"]
    return table.astype({column: "Int64" for column in integers})
