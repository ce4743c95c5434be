"""Rule regime_seed_row (gatedrnn.tables.regime_sweep.seed_row): one regime sweep model's
statistics, the row its point's table averages."""

from gatedrnn.io.files import atomic_write_bytes
from gatedrnn.scripting import run_logged
from gatedrnn.tables.regime_sweep import load_runs, seed_row, seed_row_json


def main(log):
    (run,) = load_runs([snakemake.input.summary], [snakemake.input.history], [snakemake.input.gates])
    text = seed_row_json(seed_row(run))
    atomic_write_bytes(snakemake.output.row, text.encode())
    log(text)


run_logged(snakemake.log[0], main)
