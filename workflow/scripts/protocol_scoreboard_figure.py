"""Rule protocol_scoreboard_figure (gatedrnn.report.protocol.plot_scoreboard)."""

import pandas as pd

from gatedrnn.report.protocol import plot_scoreboard
from gatedrnn.scripting import run_logged


def main(log):
    table = pd.read_csv(snakemake.input.scoreboard)
    confirmation = pd.read_csv(snakemake.input.confirmation)
    plot_scoreboard(table, confirmation, snakemake.output[0])
    log(f"{len(table)} regimes, {len(confirmation)} confirmed")


run_logged(snakemake.log[0], main)
