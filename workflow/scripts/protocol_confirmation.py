"""Rule protocol_confirmation: the regimes on the distance front and near it
(gatedrnn.claims.front.regimes_to_confirm) trained again at every seed of
protocol.confirm.seeds, reduced like the regime sweep (gatedrnn.tables.regime_sweep),
scored again (gatedrnn.claims.scoreboard.confirmation), and the front recomputed with
their seeds in place of their first."""

import pandas as pd

from gatedrnn.claims import load_claims, read_tables
from gatedrnn.claims.front import protocol_front, regimes_to_confirm
from gatedrnn.claims.scoreboard import confirmation, regime_frame
from gatedrnn.scripting import run_logged, workflow_file
from gatedrnn.tables.regime_sweep import read_seed_rows


def main(log):
    rows = read_seed_rows(snakemake.input.rows)
    chosen = regimes_to_confirm(pd.read_csv(snakemake.input.distance))
    claims = load_claims(workflow_file(snakemake, snakemake.params.published))
    tables = read_tables(snakemake.input.tables)
    models = dict(snakemake.params.models)
    table, regimes = confirmation(chosen, list(snakemake.params.points), rows, claims, tables, models)
    regimes.to_csv(snakemake.output.regimes, index=False)
    table.to_csv(snakemake.output.table, index=False)
    log(f"the front's regimes and those near it, {chosen}, seeds {snakemake.params.seeds}")
    log(table.to_string(index=False))
    first = regime_frame(*(pd.read_csv(path) for path in snakemake.input.first))
    front = protocol_front(first, claims, tables, models, regimes, confirm_seeds=len(snakemake.params.seeds))
    front.to_csv(snakemake.output.front, index=False)
    log(front.to_string(index=False))


run_logged(snakemake.log[0], main)
