"""Two ledgers side by side: the counts per family of each, and every claim whose
verdict changed. Used to say what a rebuilt reference changed against the one it
replaced (``python -m gatedrnn.reference changes --old OLD/claims.csv``)."""

from __future__ import annotations

import pandas as pd

from gatedrnn.claims.ledger import COUNTS, verdict_counts
from gatedrnn.claims.render import family_name
from gatedrnn.report.results_page import markdown_table


def family_counts_beside(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """One row per family (and ``all``): each count as ``old → new``."""
    families = sorted(set(old["experiment"].str[0]) | set(new["experiment"].str[0]))
    rows = []
    for family in [*families, None]:
        if family is None:
            before, after = verdict_counts(old), verdict_counts(new)
        else:
            before = verdict_counts(old[old["experiment"].str[0] == family])
            after = verdict_counts(new[new["experiment"].str[0] == family])
        row = {"family": "all" if family is None else family_name(family)}
        row |= {label: f"{before[label]} → {after[label]}" for label, _, _ in COUNTS}
        rows.append(row)
    return pd.DataFrame(rows)


def verdict_changes(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """The claims whose verdict differs between the two ledgers, matched on ``id``,
    with both values: a claim in one ledger only is listed with ``-`` for the other."""
    keep = ["id", "description", "published", "reproduced", "verdict"]
    # matched on id alone: a claim whose wording or published value was edited is one row
    both = old[keep].merge(new[keep], on="id", how="outer", suffixes=("_old", "_new"))
    for column in ("description", "published"):
        both[column] = both[f"{column}_new"].fillna(both[f"{column}_old"])
    both = both.astype(object).where(both.notna(), "-")
    changed = both[both["verdict_old"].astype(str) != both["verdict_new"].astype(str)]
    columns = ["id", "description", "published", "reproduced_old", "verdict_old", "reproduced_new",
               "verdict_new"]  # fmt: skip
    return changed[columns].sort_values("id").reset_index(drop=True)


def render_changes(old: pd.DataFrame, new: pd.DataFrame) -> str:
    """Markdown: the counts per family, old → new, then the changed verdicts."""
    changes = verdict_changes(old, new)
    lines = [f"Counts per family, old ({len(old)} claims) → new ({len(new)} claims):", "",
             markdown_table(family_counts_beside(old, new)), "",
             f"{len(changes)} verdicts changed:", ""]  # fmt: skip
    if not changes.empty:
        lines += [markdown_table(changes), ""]
    return "\n".join(lines)
