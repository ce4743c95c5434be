"""Rule val_loss_curves_figure (gatedrnn.plots.val_loss_curves_figure)."""

import pandas as pd

from gatedrnn.plots import val_loss_curves_figure
from gatedrnn.scripting import run_logged


def main(log):
    val_loss_curves_figure(pd.read_csv(snakemake.input[0]), snakemake.output[0])


run_logged(snakemake.log[0], main)
