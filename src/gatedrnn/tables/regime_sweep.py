"""Which training regime the study's trained-gate findings depend on.

The study published neither its optimizer nor its learning rate. The regime
sweep trains the reference LSTM and the budget-matched GRU at every
(optimizer, learning rate, steps) point of ``regime_sweep`` in the config,
and at every (windows per batch, characters per window) pair of its window axes,
through the one ``train`` rule (each point is a regime), and this module
reduces every trained model to the statistics the study's trained findings
rest on: one row per (cell, regime) of ``results/tables/regime_sensitivity.csv``.

The statistics are the gate analyses' own functions
(:func:`gatedrnn.analysis.stats.unit_gate_summary`, :func:`gatedrnn.analysis.stats.coupling_stats`)
applied to the gate that keeps the state (LSTM f, PyTorch GRU z), so a row of the
default regime agrees with C2, C3, D1, D2 and D5 for the same seeds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from gatedrnn.analysis.gate_files import ProbeGates
from gatedrnn.analysis.stats import (
    LONG_HALF_LIFE,
    PERCENTILES,
    coupling_stats,
    gate_summary,
    unit_gate_summary,
)
from gatedrnn.core.registry import cell_spec
from gatedrnn.io.files import read_json
from gatedrnn.io.records import read_summary, read_table
from gatedrnn.tables.gates import load_run_gates, parse_name

# The gate that keeps the state: LSTM f (forget), PyTorch GRU z (the kept fraction).

POINT_COLUMNS = ["cell", "model", "regime", "optimizer", "lr", "steps", "batch_size", "seq_len", "seeds"]
STAT_COLUMNS = [
    "best_val_loss",
    "best_step",
    "last_val_loss",
    "gate",
    "gate_mean",
    "input_mean",
    "output_mean",
    "half_life_median",
    "half_life_max",
    "units_below_half",
    "units_half_life_ge_10",
    "corr_i_one_minus_f",
    "mean_i_plus_f",
    "gru_minus_lstm",
]
# Seeds whose training diverged (summary.json "diverged"): counted, and the earliest
# step named; the statistics are those of the other seeds (NaN when none is left).
DIVERGED_COLUMNS = ["diverged_seeds", "diverged_at_step"]
# Every sigmoid gate's quantiles (C2, D1) and its share of saturated values (below
# 0.05 or above 0.95), on the probe set, pooled as gate_summary pools them: the gate
# block of the protocol distance (gatedrnn.claims.distance). Last, so that a table
# written before them is a prefix of one written after.
QUANTILE_GATES = {"lstm": ("i", "f", "o"), "gru": ("z", "r")}
SATURATED_BELOW, SATURATED_ABOVE = 0.05, 0.95
GATE_COLUMNS = [
    f"{cell_spec(cell).label(symbol)}_{stat}"
    for cell, symbols in QUANTILE_GATES.items()
    for symbol in symbols
    for stat in (*(f"p{q}" for q in PERCENTILES), "saturated")
]
COLUMNS = POINT_COLUMNS + STAT_COLUMNS + DIVERGED_COLUMNS + GATE_COLUMNS
# Statistics averaged over seeds (the rest describe the point).
# The sweep's two cells (its columns are theirs); each one's keep gate is its declared one.
SWEEP_CELLS = ("lstm", "gru")
AVERAGED = [c for c in STAT_COLUMNS if c not in ("gate", "gru_minus_lstm")] + GATE_COLUMNS


def gate_quantiles(cell: str, gates: Mapping[str, np.ndarray]) -> dict:
    """Every sigmoid gate's quantiles and saturated share (``GATE_COLUMNS``; the other
    cell's columns NaN)."""
    row = {column: float("nan") for column in GATE_COLUMNS}
    for symbol in QUANTILE_GATES[cell]:
        label = cell_spec(cell).label(symbol)
        summary = gate_summary(gates[symbol])
        row |= {f"{label}_p{q}": summary[f"p{q}"] for q in PERCENTILES}
        values = np.asarray(gates[symbol], dtype=np.float64)
        row[f"{label}_saturated"] = float(np.mean((values < SATURATED_BELOW) | (values > SATURATED_ABOVE)))
    return row


def model_stats(summary: Mapping, history: pd.DataFrame, probe: ProbeGates) -> dict:
    """One trained model's row: its validation curve and its gates on the probe set.

    ``best_*`` come from the training summary (the lowest validation loss and its
    step); ``last_val_loss`` is the curve's value at its last step (E2: is the last
    step the bottom?). Gate statistics are those of C2/C3/D2 (LSTM) and D1/D5
    (GRU); an LSTM-only statistic is NaN for the GRU.
    """
    cell = summary["cell"]
    if cell not in SWEEP_CELLS:
        raise ValueError(f"the regime sweep covers lstm and gru, not {cell!r}")
    spec = cell_spec(cell)
    if probe.cell != cell:
        raise ValueError(f"gates of a {probe.cell} given for a {cell} model")
    curve = history.dropna(subset=["val_loss"])
    keep = probe.gates[spec.keep_gate]
    units = unit_gate_summary(keep)
    nan = float("nan")
    row = {
        "best_val_loss": float(summary["best_val_loss"]),
        "best_step": int(summary["best_step"]),
        "last_val_loss": float(curve.loc[curve["step"].idxmax(), "val_loss"]),
        "gate": spec.label(spec.keep_gate),
        "gate_mean": float(np.mean(keep, dtype=np.float64)),
        "input_mean": nan,
        "output_mean": nan,
        "half_life_median": units["half_life_median"],
        "half_life_max": units["half_life_max"],
        "units_below_half": units["units_below_half"],
        "units_half_life_ge_10": units[f"units_half_life_ge_{LONG_HALF_LIFE:g}"],
        "corr_i_one_minus_f": nan,
        "mean_i_plus_f": nan,
        **gate_quantiles(cell, probe.gates),
    }
    if cell == "lstm":
        coupling = coupling_stats(probe.gates["i"], probe.gates["f"])
        row["input_mean"] = float(np.mean(probe.gates["i"], dtype=np.float64))
        row["output_mean"] = float(np.mean(probe.gates["o"], dtype=np.float64))
        row["corr_i_one_minus_f"] = coupling["corr_all"]
        row["mean_i_plus_f"] = coupling["mean_i_plus_f"]
    return row


def diverged_stats(summary: Mapping) -> dict:
    """The row of a model whose training diverged: every statistic NaN."""
    if summary["cell"] not in SWEEP_CELLS:
        raise ValueError(f"the regime sweep covers lstm and gru, not {summary['cell']!r}")
    spec = cell_spec(summary["cell"])
    return {column: float("nan") for column in AVERAGED} | {"gate": spec.label(spec.keep_gate)}


def seed_row(run: Mapping) -> dict:
    """One trained model of a sweep point reduced to the statistics its point averages
    (``AVERAGED``, NaN where it diverged) and what names it: the row the rule
    ``regime_seed_row`` writes, so that a point's table needs only these small files,
    not the models and their probe gates (:func:`seed_row_json`).
    ``run``: ``{regime, model, seed, summary, history, probe}``."""
    summary = run["summary"]
    diverged = bool(summary.get("diverged"))
    return {
        "cell": summary["cell"],
        "model": run["model"],
        "regime": run["regime"],
        "seed": int(run["seed"]),
        "diverged_at_step": summary.get("diverged_at_step") if diverged else None,
        **(diverged_stats(summary) if diverged else model_stats(summary, run["history"], run["probe"])),
    }


def regime_sensitivity_table(points: list[Mapping], runs: list[Mapping]) -> pd.DataFrame:
    """:func:`regime_table` of the runs' seed rows (:func:`seed_row`).
    ``runs``: ``{regime, model, seed, summary, history, probe}`` per trained model."""
    return regime_table(points, [seed_row(run) for run in runs])


def regime_table(points: list[Mapping], seed_rows: list[Mapping]) -> pd.DataFrame:
    """One row per (cell, regime): the seeds' mean of every statistic.

    ``points``: the sweep's ``{regime, optimizer, lr, steps, batch_size, seq_len}`` in
    config order; points
    that name a ``dataset`` (the corpus-size axis) give the table a ``dataset`` column
    after ``regime``.
    ``seed_rows``: one :func:`seed_row` per trained model.
    ``gru_minus_lstm`` is the GRU's mean best validation loss minus the LSTM's
    under the same regime (on both rows; NaN where only one cell ran).
    """
    by_regime = {point["regime"]: point for point in points}
    for row in seed_rows:
        if row["regime"] not in by_regime:
            raise ValueError(f"a model of regime {row['regime']!r}, which is not a sweep point")
    per_seed = [dict(row) for row in seed_rows]
    if not per_seed:
        with_dataset = any("dataset" in point for point in points)
        return pd.DataFrame(columns=COLUMNS[:3] + ["dataset"] * with_dataset + COLUMNS[3:])
    frame = pd.DataFrame(per_seed)
    rows = []
    for point in points:
        for cell in SWEEP_CELLS:
            group = frame[(frame["regime"] == point["regime"]) & (frame["cell"] == cell)]
            if group.empty:
                continue
            models = sorted(set(group["model"]))
            if len(models) != 1:
                raise ValueError(f"regime {point['regime']!r} has several {cell} models: {models}")
            diverged = group[group["diverged_at_step"].notna()]
            trained = group[group["diverged_at_step"].isna()]
            row = {
                "cell": cell,
                "model": models[0],
                "regime": point["regime"],
                "optimizer": point["optimizer"],
                "lr": float(point["lr"]),
                "steps": int(point["steps"]),
                "batch_size": int(point["batch_size"]),
                "seq_len": int(point["seq_len"]),
                "seeds": len(trained),
                "gate": cell_spec(cell).label(cell_spec(cell).keep_gate),
                "diverged_seeds": len(diverged),
                "diverged_at_step": float(diverged["diverged_at_step"].min())
                if len(diverged)
                else float("nan"),
            }
            for column in AVERAGED:
                values = trained[column].astype(np.float64)
                row[column] = float(values.mean()) if len(values) else float("nan")
            rows.append(row)
    table = pd.DataFrame(rows)
    loss = table.pivot(index="regime", columns="cell", values="best_val_loss")
    gap = (loss["gru"] - loss["lstm"]) if {"gru", "lstm"} <= set(loss.columns) else None
    table["gru_minus_lstm"] = [
        float(gap[regime]) if gap is not None and not math.isnan(gap[regime]) else float("nan")
        for regime in table["regime"]
    ]
    table = table.reindex(columns=COLUMNS)
    if any("dataset" in point for point in points):
        datasets = {point["regime"]: point.get("dataset", "default") for point in points}
        table.insert(COLUMNS.index("regime") + 1, "dataset", [datasets[r] for r in table["regime"]])
    return table


def load_runs(summaries: Iterable, histories: Iterable, gates: Iterable) -> list[dict]:
    """The runs :func:`regime_sensitivity_table` reduces, read from each model's
    ``summary.json``, ``history.csv`` and probe gates (``.npz``), in the order given."""
    runs = []
    for summary_path, history_path, gates_path in zip(summaries, histories, gates, strict=True):
        regime, model, seed = parse_name(gates_path)
        summary = read_summary(summary_path)
        runs.append(
            {
                "regime": regime,
                "model": model,
                "seed": seed,
                "summary": summary,
                "history": read_table(history_path, "training history"),
                "probe": load_run_gates(gates_path),
            }
        )
    return runs


def _plain(value):
    """A statistic as JSON writes it back exactly: numpy scalars as Python's own."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def seed_row_json(row: Mapping) -> str:
    """A seed row as ``results/regime_runs/<regime>/<model>_s<seed>.json`` holds it.
    A float is written as its shortest exact repr (NaN and infinite half-lives too),
    so :func:`read_seed_rows` gives back the very floats :func:`seed_row` computed and
    a point's table is byte for byte the one made from the models themselves."""
    return json.dumps({key: _plain(value) for key, value in row.items()}, indent=1) + "\n"


def read_seed_rows(paths: Iterable) -> list[dict]:
    """The seed rows of ``paths``, in the order given, each refused (naming the file)
    unless it is the run its name says and holds every statistic."""
    rows = []
    for path in paths:
        regime, model, seed = parse_name(Path(path).with_suffix(""))  # <model>_s<seed>.json
        row = read_json(path, "seed row")
        problem = None
        if not isinstance(row, dict):
            problem = "it holds no JSON object"
        elif (row.get("regime"), row.get("model"), row.get("seed")) != (regime, model, seed):
            problem = f"it holds the row of {row.get('regime')}/{row.get('model')}_s{row.get('seed')}"
        else:
            missing = [column for column in ("cell", "diverged_at_step", *AVERAGED) if column not in row]
            problem = f"it lacks {missing[0]}" if missing else None
        if problem:
            raise ValueError(
                f"seed row {path} is not the row of {regime}/{model}_s{seed}: {problem}; "
                "delete it and rerun the workflow, which writes it again"
            )
        rows.append(row)
    return rows
