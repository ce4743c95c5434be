"""Rule regime_sensitivity (gatedrnn.tables.regime_sweep): one row per (cell, regime) of the sweep."""

import json

import pandas as pd

from gatedrnn.analysis.gates import load_gates
from gatedrnn.scripting import run_logged
from gatedrnn.tables.gates import parse_name
from gatedrnn.tables.regime_sweep import regime_sensitivity_table


def main(log):
    runs = []
    for summary_path, history_path, gates_path in zip(
        snakemake.input.summaries, snakemake.input.histories, snakemake.input.gates, strict=True
    ):
        regime, model, seed = parse_name(gates_path)
        with open(summary_path) as handle:
            summary = json.load(handle)
        runs.append(
            {
                "regime": regime,
                "model": model,
                "seed": seed,
                "summary": summary,
                "history": pd.read_csv(history_path),
                "probe": load_gates(gates_path),
            }
        )
    table = regime_sensitivity_table(list(snakemake.params.points), runs)
    table.to_csv(snakemake.output.table, index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
