"""Figures of the open questions (gatedrnn.report.questions); ``params.figure`` names one."""

import pandas as pd

from gatedrnn.report import questions as open_question_plots
from gatedrnn.scripting import run_logged

FIGURES = {
    "split_by_width": lambda i: open_question_plots.plot_split_by_width(
        pd.read_csv(i.table), snakemake.output[0]
    ),
    "longer_training": lambda i: open_question_plots.plot_longer_training(
        pd.read_csv(i.curves), pd.read_csv(i.table), snakemake.output[0]
    ),
}


def main(log):
    FIGURES[snakemake.params.figure](snakemake.input)
    log(f"{snakemake.params.figure} -> {snakemake.output[0]}")


run_logged(snakemake.log[0], main)
