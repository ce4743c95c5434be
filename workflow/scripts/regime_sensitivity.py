"""Rule regime_sensitivity (gatedrnn.tables.regime_sweep): one row per (cell, regime) of the sweep."""

from gatedrnn.scripting import run_logged
from gatedrnn.tables.regime_sweep import load_runs, regime_sensitivity_table


def main(log):
    runs = load_runs(snakemake.input.summaries, snakemake.input.histories, snakemake.input.gates)
    table = regime_sensitivity_table(list(snakemake.params.points), runs)
    table.to_csv(snakemake.output.table, index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
