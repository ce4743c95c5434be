"""Rule cell_analyses: every analysis of the grid's models by declared gates
(gatedrnn.tables.cells)."""

from pathlib import Path

import torch

from gatedrnn.io.files import read_json
from gatedrnn.scripting import run_logged
from gatedrnn.tables.cells import cell_analyses_table
from gatedrnn.tables.gates import load_probe_gates
from gatedrnn.tables.probe_gates import probe_set
from gatedrnn.train.config import shared_vocabulary
from gatedrnn.train.loop import load_model


def main(log):
    torch.set_num_threads(snakemake.threads)
    # a diverged model gets a row saying so (its gates file holds none)
    models = [load_model(Path(path).parent, allow_diverged=True) for path in snakemake.input.models]
    tokens, _ = probe_set(
        snakemake.input.corpus,
        snakemake.input.provenance,
        snakemake.params.train_fraction,
        snakemake.params.lines,
        snakemake.params.length,
        shared_vocabulary([summary for _, summary in models], "cell_analyses"),
    )
    probes = load_probe_gates(snakemake.input.gates)
    checks = [read_json(path, "manual step check") for path in snakemake.input.checks]
    table = cell_analyses_table(models, probes, checks, tokens)
    table.to_csv(snakemake.output[0], index=False, float_format=None)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
