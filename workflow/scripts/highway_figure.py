"""Rule highway_figure (gatedrnn.report.study.plot_highway): A1 and A2 on a log scale,
the study's values (published.yaml) marked."""

import pandas as pd

from gatedrnn.report.published_marks import Published
from gatedrnn.report.study import plot_highway
from gatedrnn.scripting import run_logged, workflow_file


def main(log):
    highway = pd.read_csv(snakemake.input.highway)
    forget_bias_init = pd.read_csv(snakemake.input.forget_bias_init)
    published = Published.load(workflow_file(snakemake, snakemake.params.published), snakemake.params.models)
    marked = plot_highway(highway, forget_bias_init, snakemake.output.figure, published)
    log(f"wrote {snakemake.output.figure}; study values marked: {marked}")


run_logged(snakemake.log[0], main)
