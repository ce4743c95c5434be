"""Rule protocol_confirmation: the scoreboard's best regimes trained again at every seed
of protocol.confirm.seeds, reduced like the regime sweep (gatedrnn.tables.regime_sweep)
and scored again (gatedrnn.claims.scoreboard.confirmation)."""

import pandas as pd

from gatedrnn.claims import load_claims, read_tables
from gatedrnn.claims.scoreboard import confirmation
from gatedrnn.scripting import run_logged, workflow_file
from gatedrnn.tables.regime_sweep import load_runs


def main(log):
    runs = load_runs(snakemake.input.summaries, snakemake.input.histories, snakemake.input.gates)
    table, regimes = confirmation(
        pd.read_csv(snakemake.input.scoreboard),
        snakemake.params.regimes,
        list(snakemake.params.points),
        runs,
        load_claims(workflow_file(snakemake, snakemake.params.published)),
        read_tables(snakemake.input.tables),
        dict(snakemake.params.models),
    )
    regimes.to_csv(snakemake.output.regimes, index=False)
    table.to_csv(snakemake.output.table, index=False)
    log(f"the {snakemake.params.regimes} best regimes of the scoreboard, seeds {snakemake.params.seeds}")
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
