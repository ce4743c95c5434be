"""The gate tables of the study (C1-C3, C5, D1, D2, D5), from saved probe gates.

The input is the saved probe gates (``results/gates/<regime>/<model>_s<seed>.npz``,
written by :func:`gatedrnn.tables.probe_gates.write_probe_gates` with
:func:`gatedrnn.analysis.gate_files.save_gates`) and the manual step checks written
beside them: numpy and pandas only, no torch, so each of these jobs starts fast. The
measures that rerun a model on changed text or differentiate it (C4, E1, E3) are
:mod:`gatedrnn.tables.perturbation`.

Every table has one row (or block of rows) per seed, with a ``model`` column
(the model id, e.g. ``lstm_w325``) and a ``seed`` column; the study's one model
corresponds to seed 0. Statistics are those of :mod:`gatedrnn.analysis.stats`
(percentile method, per-unit half-lives from the unit's mean gate).

Choices fixed here (the README repeats them):

- Gate names in the tables: LSTM ``input`` (i), ``forget`` (f), ``output`` (o),
  ``candidate`` (g); GRU ``update`` (z), ``reset`` (r), ``candidate`` (n), in
  PyTorch's convention: ``h' = (1 - z) n + z h``, so ``z`` is the fraction of
  the state KEPT, and the reset acts after the recurrent matrix. The GRU's
  per-unit half-life (D5) is therefore ``half_life(mean z)``, like the LSTM's
  ``half_life(mean f)``.
- The probe set and the manual step check (C1) are :mod:`gatedrnn.tables.probe_gates`'s;
  the forget-bias sweep (E3) is :mod:`gatedrnn.tables.perturbation`'s.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from gatedrnn.analysis.gate_files import ProbeGates, coupling_pair, keep_gate, load_gates, probe_spec
from gatedrnn.analysis.stats import (
    COUPLING_BINS,
    coupling_histogram,
    coupling_stats,
    gate_by_char,
    gate_summary,
    half_life,
    unit_gate_summary,
    unit_means,
)
from gatedrnn.core.conventions import MODEL_FILE
from gatedrnn.io.records import check_identity

# Row order of C2 and D1 (the study's order, then the candidate); any other cell's rows
# follow its declared gates.
TABLE_GATES = {"lstm": ("i", "f", "o", "g"), "gru": ("z", "r", "n")}
CONVENTIONS = {
    "lstm": "PyTorch nn.LSTM: c' = f c + i g, h' = o tanh(c')",
    "gru": "PyTorch nn.GRU: h' = (1 - z) n + z h (z = fraction kept), reset after the matrix",
}


def convention(spec) -> str:
    """What a gate table's ``convention`` column says of a cell."""
    return CONVENTIONS.get(
        spec.name, f"{spec.path}: gates {', '.join(spec.gates)}; keep gate {spec.keep_gate}"
    )


MANUAL_CHECK_COLUMNS = [
    "model",
    "max_abs_diff",
    "seed",
    "cell",
    "width",
    "max_abs_diff_hidden",
    "max_abs_diff_final_cell",
    "positions",
    "units",
    "max_abs_final_cell",
    "max_rel_diff",
    "dtype",
    "regime",
]
GATE_TABLE_COLUMNS = ["model", "seed", "gate", "mean", "p5", "p25", "p50", "p75", "p95", "symbol", "values"]


# ------------------------------------------------------------------- inputs


def parse_name(path) -> tuple[str, str, int]:
    """``(regime, model id, seed)`` of a gates file or model directory,
    e.g. ``results/gates/default/lstm_w325_s0.npz`` -> ``("default", "lstm_w325", 0)``."""
    path = Path(path)
    match = MODEL_FILE.match(path.name)
    if match is None:
        raise ValueError(f"{path} is not named <cell>_<width>_s<seed>")
    return path.parent.name, match["model"], int(match["seed"])


def load_probe_gates(paths) -> list[tuple[str, int, ProbeGates]]:
    """``(model id, seed, gates)`` of every gates file, in the given order, each checked
    to be the run its name says (a file copied from another model is refused, naming it)."""
    loaded = []
    for path in paths:
        _, model, seed = parse_name(path)
        loaded.append((model, seed, load_run_gates(path)))
    return loaded


def load_run_gates(path) -> ProbeGates:
    """:func:`gatedrnn.analysis.gate_files.load_gates`, refused (naming the file) unless the
    file records the run its name says, with gates as wide as that run's model."""
    probe = load_gates(path)
    check_identity(probe.identity, path, "gates file")
    widths = {array.shape[-1] for array in probe.gates.values()}
    if widths - {probe.identity["width"]}:
        raise ValueError(
            f"gates file {path} holds gates of {sorted(widths)} units for a model of width "
            f"{probe.identity['width']}; delete it and rerun the workflow, which writes it again"
        )
    return probe


# ---------------------------------------------------------- gates rule and C1


def manual_step_check_table(checks: list[dict]) -> pd.DataFrame:
    """C1: one row per model and seed (columns ``MANUAL_CHECK_COLUMNS``)."""
    return pd.DataFrame(checks).reindex(columns=MANUAL_CHECK_COLUMNS)


# --------------------------------------------------------- gate statistics


def gate_table(probes: list[tuple[str, int, ProbeGates]]) -> pd.DataFrame:
    """C2 (LSTM) / D1 (GRU): mean and percentiles of every gate, pooled over the probe set.

    Columns ``GATE_TABLE_COLUMNS`` plus ``convention``; gates named by
    the cell's declared labels (``symbol`` keeps PyTorch's letter).
    """
    rows = []
    for model, seed, probe in probes:
        spec = probe_spec(probe)
        for symbol in TABLE_GATES.get(probe.cell, spec.gates):
            summary = gate_summary(probe.gates[symbol])
            rows.append(
                {
                    "model": model,
                    "seed": seed,
                    "gate": spec.label(symbol),
                    **{k: summary[k] for k in ("mean", "p5", "p25", "p50", "p75", "p95")},
                    "symbol": symbol,
                    "values": summary["values"],
                    "convention": convention(spec),
                }
            )
    return pd.DataFrame(rows)


def forget_units_table(probes) -> pd.DataFrame:
    """C3: spread of the per-unit mean forget gate and its half-lives, one row per seed."""
    rows = []
    for model, seed, probe in probes:
        rows.append(
            {"model": model, "seed": seed, **unit_gate_summary(keep_gate(probe, "the keep-gate units table"))}
        )
    return pd.DataFrame(rows)


def forget_by_char_table(probes) -> pd.DataFrame:
    """C5: mean forget gate by the class of the character read (space, newline, other)."""
    frames = []
    for model, seed, probe in probes:
        frame = gate_by_char(keep_gate(probe, "the keep gate by character"), probe.lines)
        frame.insert(0, "model", model)
        frame.insert(1, "seed", seed)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def coupling_table(probes, bins: int = COUPLING_BINS) -> pd.DataFrame:
    """D2: correlation of i with 1 - f and the histogram's departure from independence."""
    rows = []
    for model, seed, probe in probes:
        stats = coupling_stats(*coupling_pair(probe, "the coupling table"), bins)
        stats["units_corr_above_half"] = stats.pop("units_corr_above_0.5")
        rows.append({"model": model, "seed": seed, **stats})
    columns = [
        "model",
        "seed",
        "values",
        "units",
        "corr_all",
        "unit_corr_min",
        "unit_corr_median",
        "unit_corr_max",
        "units_corr_above_half",
        "mean_i_plus_f",
        "hist_max_departure",
    ]
    return pd.DataFrame(rows).reindex(columns=columns)


def coupling_histogram_table(probes, bins: int = COUPLING_BINS) -> pd.DataFrame:
    """D2/D6, long form: the ``bins x bins`` histogram of (1 - f, i) per seed.

    Columns ``model, seed, bin_kept, bin_input`` (bin indices of 1 - f and i),
    ``kept_lo, kept_hi, input_lo, input_hi`` (bin edges), ``mass`` (fraction of
    all values) and ``independent_mass`` (product of the marginals).
    """
    frames = []
    for model, seed, probe in probes:
        mass, edges = coupling_histogram(*coupling_pair(probe, "the coupling histogram"), bins)
        product = np.outer(mass.sum(axis=1), mass.sum(axis=0))
        a, b = np.meshgrid(np.arange(bins), np.arange(bins), indexing="ij")
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "seed": seed,
                    "bin_kept": a.ravel(),
                    "bin_input": b.ravel(),
                    "kept_lo": edges[a.ravel()],
                    "kept_hi": edges[a.ravel() + 1],
                    "input_lo": edges[b.ravel()],
                    "input_hi": edges[b.ravel() + 1],
                    "mass": mass.ravel(),
                    "independent_mass": product.ravel(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def unit_gates_table(probes) -> pd.DataFrame:
    """D5/D6, long form: every unit's mean keep gate (LSTM f, GRU z) and its half-life.

    Columns ``model, cell, gate, seed, unit, mean_gate, half_life``.
    """
    frames = []
    for model, seed, probe in probes:
        spec = probe_spec(probe)
        means = unit_means(keep_gate(probe, "the per-unit keep gate"))
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "cell": probe.cell,
                    "gate": spec.label(spec.keep_gate),
                    "seed": seed,
                    "unit": np.arange(means.size),
                    "mean_gate": means,
                    "half_life": half_life(means),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def unit_half_lives_table(units: pd.DataFrame) -> pd.DataFrame:
    """D5: per model and seed, min / median / max of the per-unit half-lives
    (from :func:`unit_gates_table`), plus the same of the mean gate."""
    rows = []
    for (model, seed), group in units.groupby(["model", "seed"], sort=False):
        lives, means = group["half_life"], group["mean_gate"]
        rows.append(
            {
                "model": model,
                "cell": group["cell"].iloc[0],
                "gate": group["gate"].iloc[0],
                "seed": seed,
                "units": len(group),
                "half_life_min": float(lives.min()),
                "half_life_median": float(lives.median()),
                "half_life_max": float(lives.max()),
                "mean_gate_min": float(means.min()),
                "mean_gate_median": float(means.median()),
                "mean_gate_max": float(means.max()),
            }
        )
    return pd.DataFrame(rows)
