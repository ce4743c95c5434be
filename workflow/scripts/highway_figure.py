"""Rule highway_figure (gatedrnn.report.study.plot_highway): A1 and A2 on a log scale."""

import pandas as pd

from gatedrnn.report.study import plot_highway
from gatedrnn.scripting import run_logged


def main(log):
    highway = pd.read_csv(snakemake.input.highway)
    forget_bias_init = pd.read_csv(snakemake.input.forget_bias_init)
    plot_highway(highway, forget_bias_init, snakemake.output.figure)
    log(f"wrote {snakemake.output.figure}")


run_logged(snakemake.log[0], main)
