"""Checkpoint protocol_scoreboard (gatedrnn.claims.scoreboard, gatedrnn.claims.front):
every regime of the regime sweep and of the small corpus scored against the study's
published claims, and its loss and gate distances from the study with the front."""

import pandas as pd

from gatedrnn.claims import load_claims, read_tables
from gatedrnn.claims.front import protocol_front, regimes_to_confirm
from gatedrnn.claims.scoreboard import regime_frame, regime_verdicts, scoreboard
from gatedrnn.scripting import run_logged, workflow_file


def main(log):
    claims = load_claims(workflow_file(snakemake, snakemake.params.published))
    regimes = regime_frame(*(pd.read_csv(path) for path in snakemake.input.regimes))
    tables = read_tables(snakemake.input.tables)
    models = dict(snakemake.params.models)
    table = scoreboard(regime_verdicts(claims, tables, models, regimes), regimes)
    table.to_csv(snakemake.output.table, index=False)
    log(table.to_string(index=False))
    distances = protocol_front(regimes, claims, tables, models, confirm_seeds=snakemake.params.confirm_seeds)
    distances.to_csv(snakemake.output.distance, index=False)
    log(distances.to_string(index=False))
    log(f"to confirm at more seeds (the front and near it): {regimes_to_confirm(distances)}")


run_logged(snakemake.log[0], main)
