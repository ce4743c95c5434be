"""The scoreboard of regimes: which training protocol reproduces the study.

The study published neither its optimizer, nor its learning rate, nor its corpus
file. Every claim with an ``across_regimes`` view (the trained gate statistics and
losses of families C, D and E) is judged under each regime of the regime tables
(the regime sweep's optimizer and window points, and the same optimizer points on
the small corpus) exactly as
the ledger judges it (:func:`gatedrnn.claims.judge.regime_judgements`, the claim's
own band), and each regime gets one row: how many values it reproduces, how many
findings hold, how many values differ and findings fail, and one distance,

    band_distance = sqrt(mean over the values judged of d^2),
    d = |value - published| / the band's half-width, on the band's scale,

so a regime whose every value sits on its band's edge scores 1, and one at the
published values 0. Regimes rank by agreements (values reproduced plus findings
holding), then by the distance: the first row is the best-matching regime.

Whether a regime reproduces the loss table and the gate statistics is read apart:
a view is about the loss when it reads a loss column (LOSS_COLUMNS), else about
the gates.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from gatedrnn.claims.judge import regime_judgements
from gatedrnn.claims.spec import REGIME_COLUMN, Claim

# The regime table's columns that are about the loss (the rest describe the gates).
LOSS_COLUMNS = frozenset({"best_val_loss", "last_val_loss", "best_step", "steps", "gru_minus_lstm"})
# What a verdict counts as on the scoreboard: (kind of claim, verdict) -> column.
TALLIES = {
    ("value", "within"): "values_reproduced",
    ("value", "exact"): "values_reproduced",
    ("finding", "holds"): "findings_hold",
    ("value", "differs"): "values_differ",
    ("finding", "fails"): "findings_fail",
}
POINT_COLUMNS = ["regime", "dataset", "optimizer", "lr", "steps", "batch_size", "seq_len", "seeds"]
# A regime table written before the window axes has no windows: its scoreboard has none.
WINDOW_COLUMNS = ("batch_size", "seq_len")
SCOREBOARD_COLUMNS = [
    "rank",
    *POINT_COLUMNS,
    "claims_judged",
    "values_reproduced",
    "findings_hold",
    "values_differ",
    "findings_fail",
    "not_judged",
    "agreements",
    "band_distance",
    "loss_values_reproduced",
    "loss_values",
    "gate_values_reproduced",
    "gate_values",
    "reproduces_loss",
    "reproduces_gates",
    "best",
]


def view_family(claim: Claim) -> str:
    """``loss`` when the claim's regime view reads a loss column, else ``gates``."""
    columns = {selector.column for selector in claim.regime_view.selectors()}
    return "loss" if columns & LOSS_COLUMNS else "gates"


def regime_frame(*tables: pd.DataFrame) -> pd.DataFrame:
    """The regime tables as one (a table without ``dataset`` is on the corpus)."""
    frames = []
    for table in tables:
        table = table.copy()
        if "dataset" not in table.columns:
            table.insert(list(table.columns).index(REGIME_COLUMN) + 1, "dataset", "default")
        frames.append(table)
    return pd.concat(frames, ignore_index=True)


def regime_verdicts(
    claims: list[Claim], tables: Mapping[str, pd.DataFrame], names: Mapping[str, str], regimes: pd.DataFrame
) -> pd.DataFrame:
    """One row per (claim with a regime view, regime): ``id, kind, family, regime,
    verdict, value, band_distance``; ``tables``: the claims' own tables (their bands)."""
    order = list(dict.fromkeys(regimes[REGIME_COLUMN]))
    rows = []
    for claim in claims:
        if claim.regime_view is None:
            continue
        filled = claim.fill(names)
        family = view_family(filled)
        for regime, found in regime_judgements(filled, regimes, order, tables).items():
            rows.append(
                {
                    "id": claim.id,
                    "kind": claim.kind,
                    "family": family,
                    "regime": regime,
                    "verdict": found.verdict,
                    "value": found.value,
                    "band_distance": found.band_distance(claim.published),
                }
            )
    return pd.DataFrame(rows, columns=["id", "kind", "family", "regime", "verdict", "value", "band_distance"])


def rms(values) -> float:
    values = np.asarray([v for v in values if not math.isnan(v)], dtype=np.float64)
    return float(np.sqrt(np.mean(values**2))) if len(values) else math.nan


def scoreboard(verdicts: pd.DataFrame, regimes: pd.DataFrame) -> pd.DataFrame:
    """One row per regime (``SCOREBOARD_COLUMNS``), best first (see the module)."""
    columns = [c for c in SCOREBOARD_COLUMNS if c not in WINDOW_COLUMNS or c in regimes.columns]
    rows = []
    for position, regime in enumerate(dict.fromkeys(regimes[REGIME_COLUMN])):
        point = regimes[regimes[REGIME_COLUMN] == regime].iloc[0]
        mine = verdicts[verdicts["regime"] == regime]
        row = {column: point[column] for column in POINT_COLUMNS if column != "seeds" and column in columns}
        row["seeds"] = int(regimes.loc[regimes[REGIME_COLUMN] == regime, "seeds"].min())
        row["claims_judged"] = len(mine)
        for column in dict.fromkeys(TALLIES.values()):
            row[column] = 0
        for kind, verdict in zip(mine["kind"], mine["verdict"], strict=True):
            if (kind, verdict) in TALLIES:
                row[TALLIES[kind, verdict]] += 1
        row["not_judged"] = int(mine["verdict"].isin(["missing", "diverged"]).sum())
        row["agreements"] = row["values_reproduced"] + row["findings_hold"]
        row["band_distance"] = rms(mine["band_distance"])
        values = mine[mine["kind"] == "value"]
        for family, prefix in (("loss", "loss"), ("gates", "gate")):
            judged = values[values["family"] == family]
            reproduced = int(judged["verdict"].isin(["within", "exact"]).sum())
            row[f"{prefix}_values_reproduced"] = reproduced
            row[f"{prefix}_values"] = len(judged)
            row[f"reproduces_{family}"] = bool(len(judged)) and reproduced == len(judged)
        row["_order"] = position
        rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return pd.DataFrame(columns=columns)
    distance = table["band_distance"].fillna(math.inf)
    table = table.assign(_distance=distance).sort_values(
        ["agreements", "_distance", "_order"], ascending=[False, True, True], kind="stable"
    )
    table["rank"] = range(1, len(table) + 1)
    table["best"] = table["rank"] == 1
    return table.reindex(columns=columns).reset_index(drop=True)


def best_regimes(table: pd.DataFrame, n: int) -> list[str]:
    """The ``n`` best-ranked regimes of a scoreboard."""
    return list(table.sort_values("rank")[REGIME_COLUMN].head(n))


def confirmation(
    chosen: list[str],
    points: list[Mapping],
    seed_rows: list[Mapping],
    claims: list[Claim],
    tables: Mapping[str, pd.DataFrame],
    models: Mapping,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``chosen`` regimes (the front's and those near it,
    :func:`gatedrnn.claims.front.regimes_to_confirm`) scored again on ``seed_rows``
    (their models at more seeds, :func:`gatedrnn.tables.regime_sweep.seed_row`): the
    new scoreboard, and the regime-table rows it judged (the seeds' means).
    ``points``: every sweep point of either corpus."""
    # imported here: the workflow reads best_regimes while planning, without torch
    from gatedrnn.tables.regime_sweep import regime_table

    by_name = {point["regime"]: point for point in points}
    regimes = regime_frame(regime_table([by_name[r] for r in chosen], seed_rows))
    return scoreboard(regime_verdicts(claims, tables, models, regimes), regimes), regimes
