"""Rule protocol_round_two_confirmation: the regimes on the front of both rounds and near
it (gatedrnn.claims.front.regimes_to_confirm on protocol_round_two.csv, either round)
trained again at every seed of protocol.confirm.seeds, reduced like the regime sweep
(gatedrnn.tables.regime_sweep), and both rounds measured again with their seeds in
place of their first (gatedrnn.claims.front.both_rounds)."""

import pandas as pd

from gatedrnn.claims import load_claims, read_tables
from gatedrnn.claims.front import both_rounds, later_confirmation, regimes_to_confirm
from gatedrnn.claims.scoreboard import regime_frame
from gatedrnn.scripting import run_logged, workflow_file
from gatedrnn.tables.regime_sweep import read_seed_rows, regime_table


def main(log):
    planned = pd.read_csv(snakemake.input.plan)
    chosen = regimes_to_confirm(pd.read_csv(snakemake.input.table))
    points = {p["regime"]: p for p in [*snakemake.params.points, *planned.to_dict("records")]}
    rows = read_seed_rows(snakemake.input.rows)
    again = regime_frame(regime_table([points[regime] for regime in chosen], rows))
    again.to_csv(snakemake.output.regimes, index=False)
    log(f"the front of both rounds and near it, {chosen}, seeds {snakemake.params.seeds}")
    first = regime_frame(*(pd.read_csv(path) for path in snakemake.input.first))
    confirmed = later_confirmation(pd.read_csv(snakemake.input.confirmed), again)
    second = pd.read_csv(snakemake.input.second)
    claims = load_claims(workflow_file(snakemake, snakemake.params.published))
    tables = read_tables(snakemake.input.tables)
    models, confirm_seeds = dict(snakemake.params.models), len(snakemake.params.seeds)
    table = both_rounds(
        first, confirmed, second, planned, claims, tables, models, confirm_seeds=confirm_seeds
    )
    table.to_csv(snakemake.output.front, index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
