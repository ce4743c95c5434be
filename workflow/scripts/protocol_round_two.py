"""Rule protocol_round_two: round two's models reduced like the regime sweep
(gatedrnn.tables.regime_sweep), and every regime of both rounds measured by its loss and
gate distances, the front read over both (gatedrnn.claims.front.both_rounds); round
two's regime rows kept for its confirmation (protocol_round_two_confirmation)."""

import pandas as pd

from gatedrnn.claims import load_claims, read_tables
from gatedrnn.claims.front import both_rounds
from gatedrnn.claims.scoreboard import regime_frame
from gatedrnn.scripting import run_logged, workflow_file
from gatedrnn.tables.regime_sweep import read_seed_rows, regime_table


def main(log):
    planned = pd.read_csv(snakemake.input.plan)
    rows = read_seed_rows(snakemake.input.rows)
    second = regime_frame(regime_table(planned.to_dict("records"), rows))
    second.to_csv(snakemake.output.regimes, index=False)
    first = regime_frame(*(pd.read_csv(path) for path in snakemake.input.first))
    confirmed = pd.read_csv(snakemake.input.confirmed)
    claims = load_claims(workflow_file(snakemake, snakemake.params.published))
    tables = read_tables(snakemake.input.tables)
    models, confirm_seeds = dict(snakemake.params.models), snakemake.params.confirm_seeds
    table = both_rounds(
        first, confirmed, second, planned, claims, tables, models, confirm_seeds=confirm_seeds
    )
    table.to_csv(snakemake.output.table, index=False)
    log(f"round two: {len(planned)} points, seeds {snakemake.params.seeds}")
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
