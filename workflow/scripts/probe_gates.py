"""Rule gates: one trained model's gates on the probe set, and its manual step check
(gatedrnn.tables.gates.write_probe_gates)."""

import json
from pathlib import Path

import torch

from gatedrnn.scripting import run_logged
from gatedrnn.tables.gates import probe_set, write_probe_gates
from gatedrnn.train.loop import trained_vocabulary


def main(log):
    torch.set_num_threads(snakemake.threads)
    tokens, lines = probe_set(
        snakemake.input.corpus,
        snakemake.input.provenance,
        snakemake.params.train_fraction,
        snakemake.params.lines,
        snakemake.params.length,
        trained_vocabulary(json.loads(Path(snakemake.input.summary).read_text())),
    )
    write_probe_gates(
        Path(snakemake.input.model).parent,
        tokens,
        lines,
        snakemake.output.gates,
        snakemake.output.check,
        log=log,
    )


run_logged(snakemake.log[0], main)
