"""Checkpoint protocol_scoreboard (gatedrnn.claims.scoreboard): every regime of the
regime sweep and of the small corpus scored against the study's published claims."""

import pandas as pd

from gatedrnn.claims import load_claims, read_tables
from gatedrnn.claims.scoreboard import regime_frame, regime_verdicts, scoreboard
from gatedrnn.scripting import run_logged, workflow_file


def main(log):
    claims = load_claims(workflow_file(snakemake, snakemake.params.published))
    regimes = regime_frame(*(pd.read_csv(path) for path in snakemake.input.regimes))
    verdicts = regime_verdicts(
        claims, read_tables(snakemake.input.tables), dict(snakemake.params.models), regimes
    )
    table = scoreboard(verdicts, regimes)
    table.to_csv(snakemake.output.table, index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
