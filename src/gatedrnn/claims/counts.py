"""Published parameter counts as plain records, for the alphabet check
(:mod:`gatedrnn.tables.alphabet`): which model each count is of, at which width.

The claims come filled (:meth:`gatedrnn.claims.spec.Claim.fill`), so each selector's
``model`` is a model id of this config (``gru_budget325``). A literal width token
(``w325``) is the width; a budget token stands for whatever width the study matched,
which is itself a published claim (a claim whose column is ``width`` on the same
model: ``A4.matched_widths.gru_budget.width``), never this run's matched width.
"""

from __future__ import annotations

from collections.abc import Sequence

from gatedrnn.claims.spec import Claim, ClaimError
from gatedrnn.core.conventions import WIDTH_TOKEN


def _number(value, claim: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
        raise ClaimError(f"claim {claim}: a parameter count or width is a whole number, not {value!r}")
    return int(value)


def _model(claim: Claim) -> str:
    where = claim.selector.where
    if set(where) != {"model"} or not isinstance(where["model"], str):
        raise ClaimError(f"claim {claim.id}: select one model (`where: {{model: ...}}`), not {dict(where)}")
    return where["model"]


def published_widths(claims: Sequence[Claim]) -> dict[str, tuple[int, str]]:
    """model id -> (published width, claim id) of every claim whose column is ``width``."""
    widths: dict[str, tuple[int, str]] = {}
    for claim in claims:
        if claim.selector is None or claim.selector.column != "width" or claim.rule == "new":
            continue
        model, width = _model(claim), _number(claim.published, claim.id)
        if model in widths and widths[model][0] != width:
            raise ClaimError(
                f"claims {widths[model][1]} and {claim.id} publish different widths of {model}: "
                f"{widths[model][0]} and {width}"
            )
        widths.setdefault(model, (width, claim.id))
    return widths


def published_counts(claims: Sequence[Claim], table: str, column: str = "params") -> list[dict]:
    """One record per claim on ``column`` of ``table``, in the claims' order:
    ``{claim, model, cell, width, width_from, published}`` (``width_from``: "model id"
    or the id of the claim that published the width)."""
    widths = published_widths(claims)
    records = []
    for claim in claims:
        selector = claim.selector
        if selector is None or selector.table != table or selector.column != column or claim.rule == "new":
            continue
        model = _model(claim)
        cell, token = model.rsplit("_", 1)  # cells may hold "_" (gru_noreset)
        match = WIDTH_TOKEN.match(token)
        if match is None:
            raise ClaimError(f"claim {claim.id}: {model!r} is no model id (<cell>_w<H> or <cell>_budget<R>)")
        if match["literal"]:
            width, width_from = int(match["literal"]), "model id"
        elif model in widths:
            width, width_from = widths[model]
        else:
            raise ClaimError(
                f"claim {claim.id}: {model} has a matched width, and no claim publishes it; add one "
                f"(column: width, where: {{model: ...}}) to workflow/resources/published.yaml"
            )
        records.append(
            {
                "claim": claim.id,
                "model": model,
                "cell": cell,
                "width": width,
                "width_from": width_from,
                "published": _number(claim.published, claim.id),
            }
        )
    if not records:
        raise ClaimError(f"no claim publishes column {column!r} of {table}; nothing to check against")
    return records
