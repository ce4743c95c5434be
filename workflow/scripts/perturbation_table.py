"""Rules of gates.smk that rerun trained models on the probe set (gatedrnn.tables.perturbation):
C4 (lstm_cell_decay), E1 (hidden_perturbation_decay), E3 (forget_bias_sweep)."""

from pathlib import Path

import torch

from gatedrnn.scripting import run_logged
from gatedrnn.tables import perturbation
from gatedrnn.tables.probe_gates import probe_set
from gatedrnn.train.config import shared_vocabulary

TABLES = {
    "lstm_cell_decay": perturbation.cell_decay_table,
    "hidden_perturbation_decay": perturbation.hidden_decay_table,
    "forget_bias_sweep": lambda models, tokens: perturbation.forget_bias_sweep_table(
        models, snakemake.params.forget_biases, tokens
    ),
}


def main(log):
    torch.set_num_threads(snakemake.threads)
    models = perturbation.load_models(Path(path).parent for path in snakemake.input.models)
    tokens, _ = probe_set(
        snakemake.input.corpus,
        snakemake.input.provenance,
        snakemake.params.train_fraction,
        snakemake.params.lines,
        snakemake.params.length,
        # one token array for every model: they must read one vocabulary
        shared_vocabulary([summary for _, summary in models], snakemake.params.table),
    )
    table = TABLES[snakemake.params.table](models, tokens)
    table.to_csv(snakemake.output[0], index=False, float_format=None)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
