"""The alphabet check: which model and vocabulary the study's printed parameter counts
imply, whether the configured model reproduces them, and which choice of corpus files
comes closest to the implied vocabulary (issues #17 and #27).

A model's parameter count is linear in the vocabulary size V: the embedding has
``V x embed_dim`` weights, the output layer ``H x V + V``, and the recurrent layers do
not depend on V. The slope and intercept are read off the project's own closed form
(:func:`gatedrnn.core.sizes.model_parameters`, the configured read-out) at two
vocabulary sizes, so the implied V of a published count is ``(count - intercept) /
slope``: a real number, which an integer vocabulary matches only if the study counted
parameters as the configured model does.

The derivation (:func:`derivation_rows`) solves the counts from PyTorch's bare cells
alone (two bias vectors per gate block, nothing between the layer and the read-out):
two cells at one width differ by gate blocks only, which gives the embedding size E;
what is left of each count, ``V (E + 1) + H (V + k)``, gives V and the parameters per
hidden unit k the bare model lacks (docs/experiments.md: the study's LayerNorm).

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

from gatedrnn.core.sizes import GATE_BLOCKS, READOUT_NORM_PER_UNIT, model_parameters

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
    "configured_params",
    "configured_difference",
    "value",
    "configured_value",
    "how",
    "reproduces",
]


def vocabulary_line(
    cell: str, width: int, embed_dim: int = 128, layers: int = 1, readout_norm: str = "layernorm"
) -> tuple[int, int]:
    """(slope, intercept) of the parameter count against the vocabulary size:
    ``model_parameters(cell, width, V) == intercept + slope * V`` for every V."""

    def params(vocab: int) -> int:
        return model_parameters(cell, width, vocab, embed_dim, layers, readout_norm)

    at_one = params(1)
    slope = params(2) - at_one
    intercept = at_one - slope
    # The solve below is only right if the closed form is linear in V; a change to
    # the model (say, a tied output layer) must fail here, not give a wrong V.
    probe = 1000
    if params(probe) != intercept + slope * probe:
        raise ValueError(f"the parameter count of {cell} width {width} is not linear in the vocabulary size")
    return slope, intercept


def implied_vocabulary(
    published: float,
    cell: str,
    width: int,
    embed_dim: int = 128,
    layers: int = 1,
    readout_norm: str = "layernorm",
) -> dict[str, float | int]:
    """The vocabulary size that gives ``published`` parameters (a real number), the
    nearest integer vocabulary (at least 1), its count, and the published count minus it."""
    slope, intercept = vocabulary_line(cell, width, embed_dim, layers, readout_norm)
    implied = (published - intercept) / slope
    if not math.isfinite(implied) or implied <= 0:
        raise ValueError(
            f"{published} parameters are fewer than a {cell} of width {width} has without any "
            f"vocabulary ({intercept + slope}); check the published count, the width, train.embed_dim "
            "and train.layers"
        )
    nearest = max(1, math.floor(implied + 0.5))
    nearest_params = model_parameters(cell, width, nearest, embed_dim, layers, readout_norm)
    return {
        "implied_vocab": implied,
        "nearest_vocab": nearest,
        "nearest_params": nearest_params,
        "params_difference": published - nearest_params,
    }


def joint_fit(
    counts: Sequence[Mapping], embed_dim: int = 128, layers: int = 1, readout_norm: str = "layernorm"
) -> dict | None:
    """One vocabulary V and ``k`` extra parameters per hidden unit for every published
    count at once: the least-squares solution of ``count_i = intercept_i + slope_i V +
    k width_i`` (each model's own line, :func:`vocabulary_line`), then both rounded to
    integers and the largest count those integers miss by. ``k`` stands for what the
    configured model lacks and the study's had in proportion to the width (0 when the
    configured model has it); None with fewer than two counts or widths that cannot tell
    V from k."""
    if len(counts) < 2:
        return None
    lines = [vocabulary_line(c["cell"], int(c["width"]), embed_dim, layers, readout_norm) for c in counts]
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


def derivation_rows(counts: Sequence[Mapping], configured: Mapping, layers: int = 1) -> list[dict]:
    """The one-layer model the counts fix, from PyTorch-style cells alone (kind
    ``derivation``: name, value, configured_value, how).

    A cell of ``blocks`` gate blocks has ``blocks H (E + H + b)`` recurrent parameters (b
    bias vectors per block). Two counts at one width whose cells differ in blocks give
    ``E + b``; what is left of each count, ``V (E + 1) + H (V + k)`` (embedding, read-out
    and k parameters per hidden unit beyond the cell), fitted on the widths, gives ``V (E
    + 1)`` and ``V + k``. Whole numbers with ``b, k >= 0`` then leave the integer
    solutions (E, b, V, k); ``solutions`` says how many there are. Empty for stacked
    layers, or without two cells at one width and two widths."""
    widths = sorted({int(c["width"]) for c in counts})
    pair = next(
        ((a, b) for a in counts for b in counts
         if int(a["width"]) == int(b["width"]) and GATE_BLOCKS[a["cell"]] > GATE_BLOCKS[b["cell"]]),
        None,
    )  # fmt: skip
    if layers != 1 or pair is None or len(widths) < 2:
        return []
    a, b = pair
    h, extra_blocks = int(a["width"]), GATE_BLOCKS[a["cell"]] - GATE_BLOCKS[b["cell"]]
    gap = a["published"] - b["published"]
    embed_plus_biases = gap / (extra_blocks * h) - h
    rests = [c["published"] - GATE_BLOCKS[c["cell"]] * int(c["width"]) * (embed_plus_biases + int(c["width"]))
             for c in counts]  # fmt: skip
    design = np.array([[1.0, int(c["width"])] for c in counts])
    (at_zero, per_unit), *_ = np.linalg.lstsq(design, np.array(rests, float), rcond=None)
    # whole (E, b, V, k) with E + b, V (E + 1) and V + k as solved, b >= 0 and k >= 0
    solutions = [
        (
            e,
            round(embed_plus_biases) - e,
            round(at_zero) // (e + 1),
            round(per_unit) - round(at_zero) // (e + 1),
        )
        for e in range(round(embed_plus_biases) + 1)
        if round(at_zero) % (e + 1) == 0 and round(at_zero) // (e + 1) <= round(per_unit)
    ]
    embed, biases, vocab, extra = min(solutions, key=lambda x: abs(x[0] - configured["embed_dim"]),
                                      default=(math.nan,) * 4)  # fmt: skip
    missed = [
        c["published"]
        - (GATE_BLOCKS[c["cell"]] * int(c["width"]) * (embed + biases + int(c["width"]))
           + vocab * (embed + 1) + int(c["width"]) * (vocab + extra))
        for c in counts
    ]  # fmt: skip
    unique = "the only whole solution" if len(solutions) == 1 else f"one of {len(solutions)} whole solutions"
    steps = [
        ("embed_plus_biases", embed_plus_biases, None,
         f"{a['model']} minus {b['model']} = {gap:,} = {extra_blocks} x {h} x (E + b + {h}): the gate "
         "blocks alone at one width"),
        ("rest_per_unit", per_unit, None,
         "each count minus its recurrent layers, fitted on the widths: grows by V + k per hidden unit"),
        ("rest_at_width_0", at_zero, None, "the same fit at width 0: V (E + 1), embedding and read-out bias"),
        ("embed_dim", embed, configured["embed_dim"], f"E: {unique} with b >= 0, k >= 0"),
        ("biases_per_gate_block", biases, 2, "b = (E + b) - E (PyTorch's b_ih and b_hh: 2)"),
        ("vocab_size", vocab, configured["vocab_size"], "V = V (E + 1) / (E + 1)"),
        ("per_unit_params", extra, READOUT_NORM_PER_UNIT[configured["readout_norm"]],
         "k = (V + k) - V: per hidden unit beyond the cell (LayerNorm(H): a gain and a shift)"),
        ("solutions", len(solutions), 1, "whole (E, b, V, k) that give every count"),
        ("largest_miss", max(missed, key=abs), 0, "the count those E, b, V, k miss by most"),
    ]  # fmt: skip
    return [
        {
            "kind": "derivation",
            "name": name,
            "value": float(value),
            "how": how,
            "configured_value": None if want is None else float(want),
        }  # fmt: skip
        for name, value, want, how in steps
    ]


def configured_model_row(counts: Sequence[Mapping], configured: Mapping, layers: int = 1) -> dict:
    """Whether the configured model reproduces every published count (``reproduces``),
    and the count it misses by most (``configured_difference``)."""
    missed = [c["published"] - configured_count(c, configured, layers) for c in counts]
    return {
        "kind": "configured_model",
        "name": (
            f"Embedding({configured['vocab_size']}, {configured['embed_dim']}) -> cell -> "
            + ("LayerNorm(H) -> " if configured["readout_norm"] == "layernorm" else "")
            + f"Linear(H, {configured['vocab_size']}) (train.vocabulary {configured['vocabulary']}, "
            f"train.readout_norm {configured['readout_norm']})"
        ),
        "configured_difference": max(missed, key=abs),
        "reproduces": all(m == 0 for m in missed),
    }


def configured_count(count: Mapping, configured: Mapping, layers: int = 1) -> int:
    return model_parameters(
        count["cell"], int(count["width"]), configured["vocab_size"], configured["embed_dim"], layers,
        configured["readout_norm"],
    )  # fmt: skip


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
    counts: Sequence[Mapping], corpus_vocab: int, configured: Mapping, layers: int = 1
) -> list[dict]:
    """One row per published count ({claim, model, cell, width, width_from, published}):
    its implied vocabulary with the configured read-out, its count on the corpus's own
    vocabulary, and the configured model's count."""
    embed_dim, norm = configured["embed_dim"], configured["readout_norm"]
    rows = []
    for count in counts:
        cell, width = count["cell"], int(count["width"])
        mine = configured_count(count, configured, layers)
        rows.append(
            {
                "kind": "published",
                "name": count["claim"],
                "model": count["model"],
                "cell": cell,
                "width": width,
                "width_from": count["width_from"],
                "published_params": count["published"],
                **implied_vocabulary(count["published"], cell, width, embed_dim, layers, norm),
                "params_at_corpus_vocab": model_parameters(
                    cell, width, corpus_vocab, embed_dim, layers, norm
                ),
                "configured_params": mine,
                "configured_difference": count["published"] - mine,
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
    configured: Mapping,
    layers: int = 1,
) -> pd.DataFrame:
    """The published counts (kind ``published``), the model they fix (``derivation``),
    whether the configured model reproduces them (``configured_model``), their joint fit
    (``joint_fit``), the candidates (``candidate``) and the configured corpus
    (``configured``) in one table of :data:`COLUMNS`; a column that does not apply to a
    kind is empty. ``configured``: the grid's ``embed_dim``, ``readout_norm``,
    ``vocabulary`` and its ``vocab_size``."""
    published = published_rows(counts, provenance["vocab_size"], configured, layers)
    implied = [row["implied_vocab"] for row in published]
    fit = joint_fit(counts, configured["embed_dim"], layers, configured["readout_norm"])
    rows = [
        *published,
        *derivation_rows(counts, configured, layers),
        configured_model_row(counts, configured, layers),
        *([fit] if fit is not None else []),
        *candidate_rows(inventory, candidates, implied),
        configured_row(inventory, provenance, members_pattern, implied),
    ]
    table = pd.DataFrame(rows, columns=COLUMNS)
    integers = ["width", "published_params", "nearest_vocab", "nearest_params", "params_difference"]
    integers += ["params_at_corpus_vocab", "members", "skipped_members", "characters", "vocab_size"]
    integers += ["configured_params", "configured_difference"]
    return table.astype({column: "Int64" for column in integers})
