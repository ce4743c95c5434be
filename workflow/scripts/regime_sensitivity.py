"""Rule regime_sensitivity (gatedrnn.tables.regime_sweep): one row per (cell, regime) of the
sweep, the seeds' mean of their seed rows."""

from gatedrnn.scripting import run_logged
from gatedrnn.tables.regime_sweep import read_seed_rows, regime_table


def main(log):
    table = regime_table(list(snakemake.params.points), read_seed_rows(snakemake.input.rows))
    table.to_csv(snakemake.output.table, index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
