"""Rule protocol_scoreboard_figure (gatedrnn.report.protocol.plot_front)."""

import pandas as pd

from gatedrnn.report.protocol import plot_front
from gatedrnn.scripting import run_logged


def main(log):
    front = pd.read_csv(snakemake.input.front)
    plot_front(front, snakemake.output[0])
    log(f"{len(front)} regimes, {int(front['on_front'].sum())} on the front")


run_logged(snakemake.log[0], main)
