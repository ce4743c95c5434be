"""Every analysis of a grid model, read through its cell's declared gates (issue #49).

``results/tables/cell_analyses.csv``, long form, one row per (model, seed, analysis,
gate, quantity), for every model of the grid when the grid holds a cell beyond the
study's three (a plug-in by import path, ``cifg``, ``mingru``, ...):

- ``C1``: the manual step check (the cell's step against its own forward);
- ``C2``: mean and percentiles of every declared gate on the probe set;
- ``C3/D5``: the declared keep gate's per-unit means and half-lives;
- ``D2``: each declared coupling candidate ``(a, b)``: the correlation of ``a`` with
  ``1 - b`` and the mean of ``a + b``;
- ``E1``: the hidden-state difference after one changed character (its half-life);
- ``B1``: gradient reach at initialisation, B1's protocol (input 8, width 64, 100 steps)
  with the cell's own training module, seeded by the model's seed.

An analysis a cell cannot support (no gates, no keep gate, no pair) is one row with
``value`` empty and ``note`` saying why: skipped, never a crash.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from gatedrnn.analysis.gate_files import ProbeGates, probe_spec
from gatedrnn.analysis.perturbation import hidden_state_decay
from gatedrnn.analysis.reach import (
    REACH_BATCH,
    REACH_HIDDEN,
    REACH_INPUT_SIZE,
    REACH_STEPS,
    REACH_THREADS,
    gradient_reach,
)
from gatedrnn.analysis.stats import (
    coupling_stats,
    curve_half_life,
    gate_summary,
    gradient_reach_summary,
    unit_gate_summary,
)
from gatedrnn.core.registry import load_cell_class

COLUMNS = ["model", "cell", "seed", "analysis", "gate", "quantity", "value", "note"]
ANALYSES = ("C1", "C2", "C3/D5", "D2", "E1", "B1")


def _rows(base: dict, analysis: str, gate: str, values: dict, note: str = "") -> list[dict]:
    return [
        {**base, "analysis": analysis, "gate": gate, "quantity": q, "value": float(v), "note": note}
        for q, v in values.items()
    ]


def _skipped(base: dict, analysis: str, why: str) -> list[dict]:
    return [{**base, "analysis": analysis, "gate": "", "quantity": "", "value": np.nan, "note": why}]


def gate_rows(base: dict, probe: ProbeGates) -> list[dict]:
    """C2, C3/D5 and D2 of one model's probe gates, each from what its cell declares."""
    spec = probe_spec(probe)
    rows = []
    if not spec.gates:
        rows += _skipped(base, "C2", f"skipped: {spec.name} declares no gates")
    for gate in spec.gates:
        summary = gate_summary(probe.gates[gate])
        values = {k: summary[k] for k in ("mean", "p5", "p50", "p95")}
        rows += _rows(base, "C2", gate, values, spec.label(gate))
    if spec.keep_gate is None:
        rows += _skipped(base, "C3/D5", f"skipped: {spec.name} declares no keep gate")
    else:
        units = unit_gate_summary(probe.gates[spec.keep_gate])
        keys = ("units", "mean_median", "half_life_min", "half_life_median", "half_life_max")
        rows += _rows(base, "C3/D5", spec.keep_gate, {k: units[k] for k in keys}, spec.label(spec.keep_gate))
    if not spec.couplings:
        rows += _skipped(base, "D2", f"skipped: {spec.name} declares no coupling candidate")
    for a, b in spec.couplings:
        stats = coupling_stats(probe.gates[a], probe.gates[b])
        values = {f"corr_{a}_one_minus_{b}": stats["corr_all"], f"mean_{a}_plus_{b}": stats["mean_i_plus_f"]}
        rows += _rows(base, "D2", f"{a},{b}", values, f"tie {a} = 1 - {b}")
    return rows


def reach_at_init(cell: str, seed: int) -> dict:
    """B1 for one cell: its training module at B1's sizes, seeded, one random input."""
    cls = load_cell_class(cell)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        module = cls.training_module(REACH_INPUT_SIZE, REACH_HIDDEN, 1).float()
        x = torch.randn(REACH_BATCH, REACH_STEPS, REACH_INPUT_SIZE, dtype=torch.float32)
        norms = gradient_reach(module, x, threads=REACH_THREADS)
    return gradient_reach_summary(norms)


def cell_analyses_table(models, probes: list[tuple[str, int, ProbeGates]], checks: list[dict], tokens):
    """The table of :mod:`this module <gatedrnn.tables.cells>`: ``models`` ``(model, summary)``,
    ``probes`` their gates (:func:`gatedrnn.tables.gates.load_probe_gates`) and ``checks``
    their C1 records, all in the same order; ``tokens`` the probe set."""
    rows = []
    for (model, summary), (_, _, probe), check in zip(models, probes, checks, strict=True):
        base = {"model": summary["model"], "cell": summary["cell"], "seed": summary["seed"]}
        if summary.get("diverged"):
            rows += [r for a in ANALYSES for r in _skipped(base, a, "skipped: training diverged")]
            continue
        rows += _rows(base, "C1", "", {"max_rel_diff": check["max_rel_diff"]}, "step against forward")
        rows += gate_rows(base, probe)
        curve = hidden_state_decay(model, tokens)["measured"].to_numpy()
        rows += _rows(base, "E1", "", {"half_life": curve_half_life(curve), "last": curve[-1]})
        reach = reach_at_init(summary.get("cell_path") or summary["cell"], int(summary["seed"]))
        keys = ("log10_first_over_last", "half_distance")
        rows += _rows(base, "B1", "", {k: reach[k] for k in keys}, "at initialisation")
    return pd.DataFrame(rows, columns=COLUMNS)
