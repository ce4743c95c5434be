"""Rule grad_reach_init_figure (gatedrnn.report.study.plot_grad_reach_init)."""

import pandas as pd

from gatedrnn.report.study import plot_grad_reach_init
from gatedrnn.scripting import run_logged


def main(log):
    plot_grad_reach_init(pd.read_csv(snakemake.input.table), snakemake.output.figure)
    log(f"wrote {snakemake.output.figure}")


run_logged(snakemake.log[0], main)
