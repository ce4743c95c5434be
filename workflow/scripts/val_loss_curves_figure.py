"""Rule val_loss_curves_figure (gatedrnn.report.study.plot_val_loss_curves)."""

import pandas as pd

from gatedrnn.report.study import plot_val_loss_curves
from gatedrnn.scripting import run_logged


def main(log):
    plot_val_loss_curves(pd.read_csv(snakemake.input[0]), snakemake.output[0])


run_logged(snakemake.log[0], main)
