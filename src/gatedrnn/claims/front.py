"""The Pareto front of regimes: loss distance against gate distance.

Each regime has two standardised distances from the study (:mod:`gatedrnn.claims.distance`),
each with an interval. A regime is on the front when no other regime is at least as
close on both blocks and closer on one; a regime is *near* the front when, for some
regime on it, its interval reaches that regime's on both blocks (lower end at or below
the other's upper end): seed noise could put it on the front. Those are the regimes
trained at more seeds before anything is called the answer (``protocol_confirmation``).
A regime is called ``best`` only where it is closest on both blocks at once.

When some regime has no gate block (regime tables from before the gate quantiles),
the front is read on the loss block alone, and the table says so. A regime scored on
neither block (its training diverged: round two's SGD at lr 1 clipped at 5 does by
step 4) is off the front, near nothing and decides neither which blocks the front is
read on nor whether another regime is on it; its ``*_unscored`` say why.

Every row says how many seeds its distances rest on (``seeds``: the fewest of its
models') and whether that is every seed of ``protocol.confirm.seeds`` (``confirmed``):
a regime that is not is never called the answer (:mod:`gatedrnn.report.protocol_answer`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gatedrnn.claims.distance import BLOCKS, Target, block_distances, targets

POINT_COLUMNS = ["regime", "dataset", "optimizer", "lr", "steps", "batch_size", "seq_len", "seeds"]
DISTANCE_COLUMNS = [
    *POINT_COLUMNS,
    *(f"{block}{suffix}" for block in BLOCKS for suffix in ("", "_low", "_high", "_terms", "_unscored")),
    "front_on",
    "on_front",
    "near_front",
    "best",
    "confirmed",
]


def scored_on_any(table: pd.DataFrame) -> pd.Series:
    """Whether each regime has a distance on at least one block (False: it diverged)."""
    return table[list(BLOCKS)].notna().any(axis=1)


def front_blocks(table: pd.DataFrame) -> tuple[str, ...]:
    """The blocks the front is read on: both when every regime scored at all has both."""
    scored = table[scored_on_any(table)] if len(table) else table
    return tuple(b for b in BLOCKS if scored[b].notna().all()) if len(scored) else ()


def on_front(table: pd.DataFrame, blocks: tuple[str, ...]) -> list[bool]:
    """Whether each row is non-dominated on ``blocks`` (smaller is closer); a row
    missing a block's distance is neither on the front nor dominates another."""
    values = table[list(blocks)].to_numpy(float)
    complete = ~np.isnan(values).any(axis=1)
    flags = []
    for i, mine in enumerate(values):
        dominated = any(
            complete[j] and all(other <= mine) and any(other < mine)
            for j, other in enumerate(values)
            if j != i
        )
        flags.append(bool(len(blocks)) and bool(complete[i]) and not dominated)
    return flags


def near(table: pd.DataFrame, blocks: tuple[str, ...]) -> list[bool]:
    """Whether each row's interval reaches a front regime's on every block."""
    front = table[table["on_front"]]
    flags = []
    for row in table.to_dict("records"):
        flags.append(
            bool(len(blocks))
            and any(all(row[f"{b}_low"] <= f[f"{b}_high"] for b in blocks) for f in front.to_dict("records"))
        )
    return flags


def distance_table(regimes: pd.DataFrame, found: list[Target], *, confirm_seeds: int) -> pd.DataFrame:
    """One row per regime of ``regimes`` (the regime tables as one, each regime's
    point and seeds): ``DISTANCE_COLUMNS``, in the regimes' order; ``found``: the
    study's side of every summary (:func:`gatedrnn.claims.distance.targets`);
    ``confirm_seeds``: how many seeds confirm a regime (``protocol.confirm.seeds``)."""
    distances = block_distances(regimes, found)
    points = regimes.drop_duplicates("regime").set_index("regime")
    seeds = regimes.groupby("regime", sort=False)["seeds"].min()
    table = distances.copy()
    for column in POINT_COLUMNS[1:]:
        if column == "seeds":
            table[column] = [int(seeds[r]) for r in table["regime"]]
        elif column in points.columns:
            table[column] = [points.loc[r, column] for r in table["regime"]]
    blocks = front_blocks(table)
    table["front_on"] = " and ".join(blocks)
    table["on_front"] = on_front(table, blocks)
    table["near_front"] = near(table, blocks) if blocks else False
    closest = {b: table[b].min() for b in BLOCKS}
    table["best"] = [
        len(blocks) == len(BLOCKS) and all(row[b] == closest[b] for b in BLOCKS)
        for row in table.to_dict("records")
    ]
    table["confirmed"] = [int(seeds[r]) >= confirm_seeds for r in table["regime"]]
    return table.reindex(
        columns=[c for c in DISTANCE_COLUMNS if c in table.columns or c not in POINT_COLUMNS]
    )


def regimes_to_confirm(table: pd.DataFrame) -> list[str]:
    """The regimes on the front and near it, closest on the loss first."""
    chosen = table[table["on_front"].astype(bool) | table["near_front"].astype(bool)]
    order = chosen.assign(_loss=chosen["loss"].fillna(math.inf)).sort_values("_loss", kind="stable")
    return list(order["regime"])


def with_confirmation(regimes: pd.DataFrame, confirmed: pd.DataFrame | None) -> pd.DataFrame:
    """The regime rows with each confirmed regime's rows (more seeds) in place of its first."""
    if confirmed is None or confirmed.empty:
        return regimes
    kept = regimes[~regimes["regime"].isin(set(confirmed["regime"]))]
    merged = pd.concat([kept, confirmed.reindex(columns=regimes.columns)], ignore_index=True)
    order = {r: i for i, r in enumerate(dict.fromkeys(regimes["regime"]))}
    return merged.sort_values("regime", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)


def protocol_front(
    regimes: pd.DataFrame, claims, tables, names, confirmed: pd.DataFrame | None = None, *, confirm_seeds: int
) -> pd.DataFrame:
    """The distance table of ``regimes`` (the regime tables as one), the ``confirmed``
    regimes' rows (more seeds) in place of their first where given; ``confirm_seeds``:
    how many seeds confirm a regime."""
    found = targets(claims, tables, names)
    return distance_table(with_confirmation(regimes, confirmed), found, confirm_seeds=confirm_seeds)


# Round two's table (protocol_round_two.csv): the distance table's columns, then these.
ROUND_COLUMNS = ["round", "from_regime", "axis", "value"]


def both_rounds(
    first: pd.DataFrame,
    confirmed: pd.DataFrame | None,
    second: pd.DataFrame,
    planned: pd.DataFrame,
    claims,
    tables,
    names,
    *,
    confirm_seeds: int,
) -> pd.DataFrame:
    """The distance table over both rounds of the protocol search, the front read over
    all: round one's regimes (``first``), then round two's, ``confirmed``'s rows (either
    round's regimes at more seeds) in place of their first; round two's (``second``:
    its regime table; ``planned``: its points,
    :func:`gatedrnn.plan.round_two.round_two_points`). ``ROUND_COLUMNS`` last: the
    round (1 or 2), and a round-two regime's ``from_regime``, ``axis`` and ``value``;
    ``confirmed``: the regime rests on ``confirm_seeds`` seeds or more."""
    regimes = first
    if not second.empty:
        regimes = pd.concat([regimes, second.reindex(columns=regimes.columns)], ignore_index=True)
    regimes = with_confirmation(regimes, confirmed)  # either round's regimes: round two's confirmation
    table = distance_table(regimes, targets(claims, tables, names), confirm_seeds=confirm_seeds)
    points = planned.set_index("regime")
    table["round"] = [2 if regime in points.index else 1 for regime in table["regime"]]
    for column in ROUND_COLUMNS[1:]:
        table[column] = [points[column].get(regime) for regime in table["regime"]]
    return table


def later_confirmation(earlier: pd.DataFrame, later: pd.DataFrame) -> pd.DataFrame:
    """Two confirmations' regime rows as one: round one's (``earlier``) and round two's
    (``later``), a regime in both taking the later's rows."""
    kept = earlier[~earlier["regime"].isin(set(later["regime"]))]
    return pd.concat([kept, later.reindex(columns=earlier.columns)], ignore_index=True)
