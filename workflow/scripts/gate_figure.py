"""Figure rules of gates.smk (gatedrnn.report.gates), each drawn from its tables alone,
the study's values (published.yaml) marked where the figure draws the same quantity."""

import pandas as pd

from gatedrnn.report import gates as gate_plots
from gatedrnn.report.published_marks import Published
from gatedrnn.scripting import run_logged, workflow_file

FIGURES = {
    "lstm_cell_decay": lambda tables, published: gate_plots.plot_cell_decay(
        tables["table"], snakemake.output[0], published
    ),
    "gru_vs_lstm_gates": lambda tables, published: gate_plots.plot_gru_vs_lstm_gates(
        tables["histogram"], tables["units"], snakemake.output[0], published
    ),
    "hidden_perturbation_decay": lambda tables, published: gate_plots.plot_hidden_decay(
        tables["table"], snakemake.output[0], published
    ),
    "forget_bias_sweep": lambda tables, published: gate_plots.plot_forget_bias_sweep(
        tables["table"], snakemake.output[0], published
    ),
}


def main(log):
    tables = {name: pd.read_csv(path) for name, path in snakemake.input.items()}
    published = Published.load(workflow_file(snakemake, snakemake.params.published), snakemake.params.models)
    marked = FIGURES[snakemake.params.figure](tables, published)
    log(f"{snakemake.params.figure} -> {snakemake.output[0]}; study values marked: {marked}")


run_logged(snakemake.log[0], main)
