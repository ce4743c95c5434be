"""Rule gru_vs_lstm (gatedrnn.tables.study.gru_vs_lstm_table, with its intervals over seeds)."""

from gatedrnn.io.records import read_summaries
from gatedrnn.scripting import run_logged
from gatedrnn.tables.study import gru_vs_lstm_intervals, gru_vs_lstm_table


def main(log):
    summaries = read_summaries(snakemake.input.summaries)
    table = gru_vs_lstm_intervals(gru_vs_lstm_table(summaries), snakemake.params.reference_lstm)
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string())


run_logged(snakemake.log[0], main)
