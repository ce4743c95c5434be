"""Budget-matched widths, computed from the vocabulary (never typed in).

A width token in a model name is either ``w<H>`` (literal width H) or
``budget<R>``: the largest width whose model has no more parameters than the
reference LSTM of width R on the same vocabulary.
"""

from __future__ import annotations

from gatedrnn.core.conventions import WIDTH_TOKEN
from gatedrnn.core.registry import name_problem
from gatedrnn.core.sizes import model_parameters

REFERENCE_CELL = "lstm"


def matched_width(
    cell: str,
    reference_width: int,
    vocab_size: int,
    embed_dim: int = 128,
    layers: int = 1,
    readout_norm: str = "layernorm",
) -> int:
    """Largest H with params(cell, H) <= params(lstm, reference_width), both with the
    same read-out."""
    if problem := name_problem(cell):
        raise ValueError(problem)

    def params(c: str, h: int) -> int:
        return model_parameters(c, h, vocab_size, embed_dim, layers, readout_norm)

    budget = params(REFERENCE_CELL, reference_width)
    if params(cell, 1) > budget:
        raise ValueError(f"no {cell} width fits the budget of {budget} parameters")
    # params grow strictly with H: bisect on [lo, hi) with lo feasible, hi infeasible.
    lo, hi = 1, 2
    while params(cell, hi) <= budget:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if params(cell, mid) <= budget:
            lo = mid
        else:
            hi = mid
    return lo


def resolve_width(
    token: str,
    cell: str,
    vocab_size: int,
    embed_dim: int = 128,
    layers: int = 1,
    readout_norm: str = "layernorm",
) -> int:
    """The integer width a token stands for on this vocabulary."""
    m = WIDTH_TOKEN.match(token)
    if m is None:
        raise ValueError(
            f"width token {token!r} is neither 'w<H>' (e.g. w325) nor 'budget<R>' (e.g. budget325)"
        )
    if m["literal"]:
        return int(m["literal"])
    return matched_width(cell, int(m["budget"]), vocab_size, embed_dim, layers, readout_norm)
