"""Rule val_loss_curves_figure (gatedrnn.report.study.plot_val_loss_curves), the study's
best validation losses (published.yaml) marked."""

import pandas as pd

from gatedrnn.report.published_marks import Published
from gatedrnn.report.study import plot_val_loss_curves
from gatedrnn.scripting import run_logged, workflow_file


def main(log):
    published = Published.load(workflow_file(snakemake, snakemake.params.published), snakemake.params.models)
    marked = plot_val_loss_curves(pd.read_csv(snakemake.input[0]), snakemake.output[0], published)
    log(f"wrote {snakemake.output[0]}; study values marked: {marked}")


run_logged(snakemake.log[0], main)
