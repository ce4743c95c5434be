"""Figure rules of gates.smk (gatedrnn.report.gates), each drawn from its tables alone."""

import pandas as pd

from gatedrnn.report import gates as gate_plots
from gatedrnn.scripting import run_logged

FIGURES = {
    "lstm_cell_decay": lambda tables: gate_plots.plot_cell_decay(tables["table"], snakemake.output[0]),
    "gru_vs_lstm_gates": lambda tables: gate_plots.plot_gru_vs_lstm_gates(
        tables["histogram"], tables["units"], snakemake.output[0]
    ),
    "hidden_perturbation_decay": lambda tables: gate_plots.plot_hidden_decay(
        tables["table"], snakemake.output[0]
    ),
    "forget_bias_sweep": lambda tables: gate_plots.plot_forget_bias_sweep(
        tables["table"], snakemake.output[0]
    ),
}


def main(log):
    tables = {name: pd.read_csv(path) for name, path in snakemake.input.items()}
    FIGURES[snakemake.params.figure](tables)
    log(f"{snakemake.params.figure} -> {snakemake.output[0]}")


run_logged(snakemake.log[0], main)
