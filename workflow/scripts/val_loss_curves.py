"""Rule val_loss_curves (gatedrnn.tables.study.val_loss_curves_table)."""

import json

import pandas as pd

from gatedrnn.scripting import run_logged
from gatedrnn.tables.study import val_loss_curves_table


def main(log):
    histories = [pd.read_csv(path) for path in snakemake.input.histories]
    summaries = [json.loads(open(path).read()) for path in snakemake.input.summaries]
    table = val_loss_curves_table(histories, summaries)
    table.to_csv(snakemake.output[0], index=False)
    log(f"{len(table)} rows")


run_logged(snakemake.log[0], main)
