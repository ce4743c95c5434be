"""Rule protocol_confirmation: the scoreboard's best regimes trained again at every seed
of protocol.confirm.seeds, reduced like the regime sweep (gatedrnn.tables.regime_sweep)
and scored again (gatedrnn.claims.scoreboard)."""

import json

import pandas as pd

from gatedrnn.analysis.gates import load_gates
from gatedrnn.claims import load_claims, read_tables
from gatedrnn.claims.scoreboard import best_regimes, regime_frame, regime_verdicts, scoreboard
from gatedrnn.scripting import run_logged, workflow_file
from gatedrnn.tables.gates import parse_name
from gatedrnn.tables.regime_sweep import regime_sensitivity_table


def main(log):
    best = best_regimes(pd.read_csv(snakemake.input.scoreboard), snakemake.params.regimes)
    points = {point["regime"]: point for point in snakemake.params.points}
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
    regimes = regime_frame(regime_sensitivity_table([points[r] for r in best], runs))
    regimes.to_csv(snakemake.output.regimes, index=False)
    claims = load_claims(workflow_file(snakemake, snakemake.params.published))
    verdicts = regime_verdicts(
        claims, read_tables(snakemake.input.tables), dict(snakemake.params.models), regimes
    )
    table = scoreboard(verdicts, regimes)
    table.to_csv(snakemake.output.table, index=False)
    log(f"the {len(best)} best regimes of the scoreboard, seeds {snakemake.params.seeds}: {best}")
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
