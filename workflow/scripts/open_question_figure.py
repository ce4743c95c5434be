"""Figures of the open questions (gatedrnn.report.questions); ``params.figure`` names one.
The study's values (published.yaml) are marked where a figure draws the same quantity."""

import pandas as pd

from gatedrnn.report import questions as open_question_plots
from gatedrnn.report.published_marks import Published
from gatedrnn.scripting import run_logged, workflow_file

FIGURES = {
    "split_by_width": lambda i, published: open_question_plots.plot_split_by_width(
        pd.read_csv(i.table), snakemake.output[0], published, snakemake.params.reference_width
    ),
    "longer_training": lambda i, published: open_question_plots.plot_longer_training(
        pd.read_csv(i.curves), pd.read_csv(i.table), snakemake.output[0], published
    ),
}


def main(log):
    published = Published.load(workflow_file(snakemake, snakemake.params.published), snakemake.params.models)
    marked = FIGURES[snakemake.params.figure](snakemake.input, published)
    log(f"{snakemake.params.figure} -> {snakemake.output[0]}; study values marked: {marked}")


run_logged(snakemake.log[0], main)
