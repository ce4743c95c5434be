"""The same claims judged on two sets of tables: which verdicts change when another
run's (or another model's) tables stand in for some of the ledger's.

Only the claims that read nothing but the tables both sets hold are judged; every
other claim reads the same tables under either set, so its verdict cannot change.
Each is judged exactly as the ledger judges it (:func:`gatedrnn.claims.judge.judge`,
its own band); the new findings (``rule: new``) have no verdict to change.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import PurePosixPath

import pandas as pd

from gatedrnn.claims.judge import judge
from gatedrnn.claims.select import read
from gatedrnn.claims.spec import Claim, NoMatch

COLUMNS = ["id", "table", "study_value", "old_value", "study_verdict", "old_verdict"]


def claim_value(claim: Claim, tables: Mapping[str, pd.DataFrame]) -> float:
    """The number a value claim reads (NaN for a finding, a range or a missing row)."""
    # a finding (its `compare`) has no one number, though it may inherit a group's selector
    if claim.selector is None or claim.compare is not None or claim.tolerance.get("overlap"):
        return math.nan
    try:
        value = read(claim.selector, tables[claim.selector.table])
    except NoMatch:
        return math.nan
    return float(value) if isinstance(value, int | float) else math.nan


def verdicts_on_both(
    claims: list[Claim],
    study: Mapping[str, pd.DataFrame],
    old: Mapping[str, pd.DataFrame],
    names: Mapping[str, str],
) -> pd.DataFrame:
    """One row per claim that reads only tables both ``study`` and ``old`` hold (keyed
    by the claims' table paths), in the claims' order: ``COLUMNS``."""
    shared = set(study) & set(old)
    rows = []
    for claim in claims:
        filled = claim.fill(names)
        if claim.rule == "new" or not set(filled.tables()) <= shared:
            continue
        rows.append(
            {
                "id": claim.id,
                "table": "; ".join(PurePosixPath(t).name for t in filled.tables()),
                "study_value": claim_value(filled, study),
                "old_value": claim_value(filled, old),
                "study_verdict": judge(filled, study)["verdict"],
                "old_verdict": judge(filled, old)["verdict"],
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)
