"""Rule val_loss_curves (gatedrnn.tables.study.val_loss_curves_table)."""

from gatedrnn.io.records import read_summaries, read_table
from gatedrnn.scripting import run_logged
from gatedrnn.tables.study import val_loss_curves_table


def main(log):
    histories = [read_table(path, "training history") for path in snakemake.input.histories]
    summaries = read_summaries(snakemake.input.summaries)
    table = val_loss_curves_table(histories, summaries)
    table.to_csv(snakemake.output[0], index=False)
    log(f"{len(table)} rows")


run_logged(snakemake.log[0], main)
