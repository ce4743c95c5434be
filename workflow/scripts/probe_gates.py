"""Rule gates: one trained model's gates on the probe set, and its manual step check
(gatedrnn.tables.probe_gates.write_probe_gates)."""

from pathlib import Path

import torch

from gatedrnn.io.files import read_json
from gatedrnn.scripting import run_logged
from gatedrnn.tables.probe_gates import probe_set, write_probe_gates
from gatedrnn.train.config import trained_vocabulary


def main(log):
    torch.set_num_threads(snakemake.threads)
    tokens, lines = probe_set(
        snakemake.input.corpus,
        snakemake.input.provenance,
        snakemake.params.train_fraction,
        snakemake.params.lines,
        snakemake.params.length,
        trained_vocabulary(read_json(snakemake.input.summary, "training summary")),
    )
    write_probe_gates(
        Path(snakemake.input.model).parent,
        tokens,
        lines,
        snakemake.output.gates,
        snakemake.output.check,
        log=log,
        # the corpus the probe comes from: the model must have trained on it
        corpus_sha256=read_json(snakemake.input.provenance, "corpus provenance record")["corpus_sha256"],
    )


run_logged(snakemake.log[0], main)
