"""How far each regime is from the study: a standardised distance in two blocks.

The scoreboard (:mod:`gatedrnn.claims.scoreboard`) counts claims; this module
measures. Every quantity the study printed and the regime tables hold is one
*summary* (:data:`SUMMARIES`, each a column of one cell's rows of the regime tables,
listed in docs/protocol-scoreboard.md), on its natural scale: nats for a loss,
logit for a gate value, log for a half-life. A summary is in one of two blocks:

- ``loss``: the LSTM's and the budget-matched GRU's best validation loss (D3) and
  the gap between them;
- ``gates``: the quantiles of every sigmoid gate (C2: LSTM i, f, o; D1: GRU z, r)
  and the forget gate's unit half-lives (C3).

For a regime, each summary gives one term,

    z^2 = (x_regime - x_study)^2 / max(v_run / n_regime + v_study / n_study, floor^2),

where ``v_run`` is this run's seed variance of the quantity (the grid's seeds, the
claim's own table: every regime is taken to share the default protocol's seed
noise), ``v_study`` the study's where it printed seeds (the D3 losses; 0 elsewhere),
``n`` the seeds each value is a mean or median of, and ``floor`` (:data:`FLOOR_SD`,
per scale) the least spread a term is given when neither side states one. A
block's distance is the mean of its terms: about 1 when the regime differs from
the study by seed noise alone. A block is scored only when the regime table has
every one of its columns (regime tables from before the gate quantiles have no
gate block: :func:`block_distances` says why).

The interval of a block's distance is a parametric bootstrap (:data:`BOOTSTRAP`):
every value drawn again within its own seed noise (normal, the variances above),
the distance recomputed, its 2.5 and 97.5 percentiles, less the noise the redraw
itself adds (a redrawn squared difference carries its variance once more: the mean
of ``(v_run / n + v_study / n) / denominator`` over the terms), the lower end at
least 0. Uncentred, the interval sat one noise unit above its distance, and a regime
that matched the study closely printed a distance below its own interval. Each
regime has its own generator, seeded from the fixed seed and the regime's name, so
its interval is bit-identical whatever else is scored beside it.
"""

from __future__ import annotations

import fnmatch
import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gatedrnn.claims.spec import Claim
from gatedrnn.core import exact_math

# The least standard deviation of a term, per scale (the denominator's floor): a
# loss is printed to 4 decimals (0.002 nats is below the study's smallest seed spread);
# a gate value and a half-life to about 5 % (logit or log 0.05).
FLOOR_SD = {"nats": 0.002, "logit": 0.05, "log": 0.05}
# The bootstrap of a block's distance: replicates, fixed seed, interval.
BOOTSTRAP = {"replicates": 2000, "seed": 48, "level": 0.95}
# A gate value is saturated below 0.05 or above 0.95 (the regime tables' *_saturated).
SATURATION = (0.05, 0.95)
BLOCKS = ("loss", "gates")
QUANTILES = ("p5", "p25", "p50", "p75", "p95")


@dataclass(frozen=True)
class Summary:
    """One quantity: ``column`` of the regime tables' ``cell`` rows, against claim
    ``claim`` (``minus``: the claim subtracted, for a gap); ``seeds_claim``: the
    study's printed seeds (``minus_seeds``: those subtracted)."""

    name: str
    block: str
    cell: str
    column: str
    scale: str
    claim: str
    minus: str | None = None
    seeds_claim: str | None = None
    minus_seeds: str | None = None


def _summaries() -> tuple[Summary, ...]:
    loss = "D3.gru_vs_lstm.{}.median"
    seeds = "D3.gru_vs_lstm.{}.median"  # the median claims publish the study's seeds (issue #47)
    out = [
        Summary("lstm_loss", "loss", "lstm", "best_val_loss", "nats", loss.format("lstm"),
                seeds_claim=seeds.format("lstm")),
        Summary("gru_budget_loss", "loss", "gru", "best_val_loss", "nats", loss.format("gru_budget"),
                seeds_claim=seeds.format("gru_budget")),
        Summary("gru_minus_lstm", "loss", "lstm", "gru_minus_lstm", "nats", loss.format("gru_budget"),
                minus=loss.format("lstm"), seeds_claim=seeds.format("gru_budget"),
                minus_seeds=seeds.format("lstm")),
    ]  # fmt: skip
    for gate in ("input", "forget", "output"):
        out += [
            Summary(f"lstm_{gate}_{q}", "gates", "lstm", f"{gate}_{q}", "logit", f"C2.lstm_gates.{gate}.{q}")
            for q in QUANTILES
        ]
    for gate in ("update", "reset"):
        out += [
            Summary(f"gru_{gate}_{q}", "gates", "gru", f"{gate}_{q}", "logit", f"D1.gru_gates.{gate}.{q}")
            for q in ("p5", "p50", "p95")  # the study printed these three
        ]
    out += [
        Summary(f"lstm_{name}", "gates", "lstm", name, "log", f"C3.lstm_forget_units.{name}")
        for name in ("half_life_median", "half_life_max")
    ]
    return tuple(out)


SUMMARIES = _summaries()


def natural(values, scale: str) -> np.ndarray:
    """Values on their scale: nats as they are, logit of a gate value, log of a half-life."""
    x = np.asarray(values, dtype=np.float64)
    if scale == "logit":
        x = np.clip(x, 1e-6, 1 - 1e-6)
        return exact_math.log(x) - exact_math.log1p(-x)
    if scale == "log":
        return exact_math.log(x)
    return x


def _seed_values(claim: Claim, tables: Mapping[str, pd.DataFrame], names: Mapping[str, str]) -> np.ndarray:
    """This run's value of ``claim`` at every seed of its own table (a ``seed_*``
    column per seed, or a row per seed)."""
    selector = claim.selector.fill(names)
    table = tables[selector.table]
    rows = table
    for key, value in selector.where.items():
        rows = rows[rows[key].astype(str) == str(value)]
    if "*" in selector.column:  # seed_*: one column per seed
        columns = [c for c in table.columns if fnmatch.fnmatchcase(c, selector.column)]
        return rows[columns].to_numpy(dtype=np.float64).ravel()
    return rows[selector.column].to_numpy(dtype=np.float64)


def _variance(values: np.ndarray) -> float:
    values = values[~np.isnan(values)]
    return float(np.var(values, ddof=1)) if len(values) > 1 else 0.0


@dataclass(frozen=True)
class Target:
    """A summary's study side: its value and spread on the natural scale, and the
    run's seed variance."""

    summary: Summary
    study: float
    study_variance: float
    study_seeds: int
    run_variance: float
    run_seeds: int


def targets(
    claims: list[Claim], tables: Mapping[str, pd.DataFrame], names: Mapping[str, str]
) -> list[Target]:
    """Every summary's study value and both variances (``tables``: the claims' own
    tables, which hold the grid's seeds)."""
    by_id = {c.id: c for c in claims}
    out = []
    for s in SUMMARIES:
        claim = by_id[s.claim]
        run = _seed_values(claim, tables, names)
        study_seeds = (
            np.asarray(by_id[s.seeds_claim].published, dtype=np.float64) if s.seeds_claim else np.array([])
        )
        published = float(np.median(claim.published))  # the study's seeds: their median
        if s.minus:
            minus = by_id[s.minus]
            run = run - _seed_values(minus, tables, names)  # seed k of one model minus seed k of the other
            published -= float(np.median(minus.published))
            if s.minus_seeds:
                study_seeds = study_seeds - np.asarray(by_id[s.minus_seeds].published, dtype=np.float64)
        out.append(
            Target(
                summary=s,
                study=float(natural(published, s.scale)),
                study_variance=_variance(natural(study_seeds, s.scale)),
                study_seeds=max(len(study_seeds), 1),
                run_variance=_variance(natural(run, s.scale)),
                run_seeds=len(run),
            )
        )
    return out


TERM_COLUMNS = ["regime", "block", "summary", "column", "scale", "seeds", "value", "study", "run_variance",
                "study_variance", "denominator", "floored", "z2"]  # fmt: skip


def terms(regimes: pd.DataFrame, found: list[Target]) -> pd.DataFrame:
    """One row per (regime, summary) whose column the regime tables have: the regime's
    value and the study's on the natural scale, the denominator, and z^2."""
    rows = []
    for regime in dict.fromkeys(regimes["regime"]):
        mine = regimes[regimes["regime"] == regime]
        for t in found:
            s = t.summary
            row = mine[mine["cell"] == s.cell]
            if s.column not in regimes.columns or row.empty:
                continue
            seeds = int(row["seeds"].iloc[0]) if "seeds" in row else 1
            value = float(natural(row[s.column].iloc[0], s.scale))
            variance = t.run_variance / max(seeds, 1) + t.study_variance / t.study_seeds
            floor, gap = FLOOR_SD[s.scale], value - t.study  # squares as products: exact IEEE, no pow()
            denominator = max(variance, floor * floor)
            rows.append(
                {"regime": regime, "block": s.block, "summary": s.name, "column": s.column, "scale": s.scale,
                 "seeds": seeds, "value": value, "study": t.study, "run_variance": t.run_variance,
                 "study_variance": t.study_variance, "denominator": denominator,
                 "floored": denominator > variance, "z2": gap * gap / denominator}
            )  # fmt: skip
    return pd.DataFrame(rows, columns=TERM_COLUMNS)


def _bootstrap(
    block: pd.DataFrame, targets_by_name: Mapping[str, Target], regime: str
) -> tuple[float, float]:
    """The block's distance redrawn within the seed noise of each side (module docstring)."""
    generator = np.random.default_rng(
        np.random.SeedSequence([BOOTSTRAP["seed"], zlib.crc32(regime.encode())])
    )
    n = BOOTSTRAP["replicates"]
    run_sd = np.array([math.sqrt(targets_by_name[s].run_variance / max(k, 1))
                       for s, k in zip(block["summary"], block["seeds"], strict=True)])  # fmt: skip
    study_sd = np.array([math.sqrt(targets_by_name[s].study_variance / targets_by_name[s].study_seeds)
                         for s in block["summary"]])  # fmt: skip
    difference = (block["value"] - block["study"]).to_numpy()
    draws = difference + generator.standard_normal((n, len(block))) * run_sd
    draws = draws - generator.standard_normal((n, len(block))) * study_sd
    denominator = block["denominator"].to_numpy()
    distances = np.mean(draws**2 / denominator, axis=1)
    # the redraw adds each term's noise variance to its squared difference on average
    added = float(np.mean((run_sd**2 + study_sd**2) / denominator))
    tail = (1 - BOOTSTRAP["level"]) / 2 * 100
    low, high = np.percentile(distances, [tail, 100 - tail]) - added
    return max(float(low), 0.0), max(float(high), 0.0)


def missing_columns(regimes: pd.DataFrame, block: str, found: list[Target]) -> list[str]:
    """The columns of ``block``'s summaries that the regime tables lack."""
    return [
        t.summary.column
        for t in found
        if t.summary.block == block and t.summary.column not in regimes.columns
    ]


def diverged_words(rows: pd.DataFrame) -> str:
    """``: its training diverged (lstm_w325, gru_budget325 by step 4)`` where some
    model of the regime's rows has a diverged seed and no trained one; else ``""``."""
    if "diverged_seeds" not in rows.columns:
        return ""
    lost = rows[(rows["diverged_seeds"].fillna(0) > 0) & (rows["seeds"].fillna(0) == 0)]
    if lost.empty:
        return ""
    step = int(lost["diverged_at_step"].min())
    return f": its training diverged ({', '.join(lost['model'].astype(str))} by step {step})"


def block_distances(regimes: pd.DataFrame, found: list[Target]) -> pd.DataFrame:
    """One row per regime: each block's distance, interval and terms, or why it is
    not scored (``<block>_unscored``)."""
    table = terms(regimes, found)
    by_name = {t.summary.name: t for t in found}
    expected = {block: sum(t.summary.block == block for t in found) for block in BLOCKS}
    rows = []
    for regime in dict.fromkeys(regimes["regime"]):
        row: dict = {"regime": regime}
        for block in BLOCKS:
            mine = table[(table["regime"] == regime) & (table["block"] == block)]
            scored = mine.dropna(subset=["z2"])
            missing = missing_columns(regimes, block, found)
            reason = ""
            if missing:
                reason = (f"the regime tables lack {len(missing)} of its {expected[block]} columns "
                          f"({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''})")  # fmt: skip
            elif len(scored) < expected[block]:
                reason = f"{expected[block] - len(scored)} of its {expected[block]} values are missing or NaN"
                reason += diverged_words(regimes[regimes["regime"] == regime])
            if reason:
                row |= {block: math.nan, f"{block}_low": math.nan, f"{block}_high": math.nan,
                        f"{block}_terms": len(scored), f"{block}_unscored": reason}  # fmt: skip
                continue
            low, high = _bootstrap(scored, by_name, regime)
            row |= {block: float(scored["z2"].mean()), f"{block}_low": low, f"{block}_high": high,
                    f"{block}_terms": len(scored), f"{block}_unscored": ""}  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows)


def _lower_gamma_regularised(a: float, x: float) -> float:
    """P(a, x), by its power series (converges for every x > 0; ample for a chi-square)."""
    if x <= 0:
        return 0.0
    term = total = 1.0 / a
    n = 0
    while abs(term) > 1e-15 * abs(total):
        n += 1
        term *= x / (a + n)
        total += term
    return float(total * exact_math.exp(-x + a * exact_math.log(x) - exact_math.ln_gamma_half_integer(a)))


def seed_noise_limit(terms: int, level: float = 0.95) -> float:
    """The distance of ``terms`` terms that seed noise alone stays below with
    probability ``level``: the quantile of chi-square(terms) / terms (each z^2 of a
    regime trained like the study is chi-square with one degree of freedom)."""
    low, high = 0.0, 10.0 * terms + 100.0
    for _ in range(200):  # bisection on the CDF, P(k/2, x/2)
        mid = (low + high) / 2
        if _lower_gamma_regularised(terms / 2, mid / 2) < level:
            low = mid
        else:
            high = mid
    return (low + high) / 2 / terms


def grid_rows(claims: list[Claim], tables: Mapping[str, pd.DataFrame], names: Mapping[str, str],
              regime: str) -> pd.DataFrame:  # fmt: skip
    """The grid's own models (the default protocol, every seed) as regime-table rows:
    each summary's column the mean over seeds of the claim's own table, as the regime
    tables average them, so that the gate block is scored for the default protocol
    wherever the regime tables lack the gate quantiles."""
    by_id = {c.id: c for c in claims}
    rows: dict[str, dict] = {}
    for s in SUMMARIES:
        values = _seed_values(by_id[s.claim], tables, names)
        if s.minus:
            values = values - _seed_values(by_id[s.minus], tables, names)
        row = rows.setdefault(s.cell, {"regime": regime, "cell": s.cell, "seeds": len(values)})
        row[s.column] = float(np.mean(values))
        row["seeds"] = min(row["seeds"], len(values))
    return pd.DataFrame(list(rows.values()))
