"""Rule gru_advantage_split (gatedrnn.tables.study.advantage_split_intervals)."""

import pandas as pd

from gatedrnn.scripting import run_logged
from gatedrnn.tables.study import advantage_split_intervals


def main(log):
    table = advantage_split_intervals(
        pd.read_csv(snakemake.input[0]),
        snakemake.params.reference_lstm,
        snakemake.params.width_matched_gru,
        snakemake.params.budget_matched_gru,
    )
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string())


run_logged(snakemake.log[0], main)
