"""Rule long_memory (gatedrnn.questions.answers.long_memory_table)."""

import json
from pathlib import Path

import torch

from gatedrnn.core.data import fixed_windows
from gatedrnn.io.reading import corpus_splits
from gatedrnn.questions.answers import long_memory_table
from gatedrnn.scripting import run_logged
from gatedrnn.train.loop import load_model


def main(log):
    torch.set_num_threads(snakemake.threads)
    vocab, _, val_ids, _ = corpus_splits(
        snakemake.input.corpus, snakemake.input.provenance, snakemake.params.train_fraction
    )
    tokens = fixed_windows(val_ids, snakemake.params.lines, snakemake.params.length)
    models = [load_model(Path(path).parent) for path in snakemake.input.models]
    table = long_memory_table(
        models,
        tokens,
        vocab.chars,
        distance=snakemake.params.distance,
        keys=snakemake.params.n_keys,
        fillers=snakemake.params.n_fillers,
        counterparts=dict(snakemake.params.counterparts),
        counterpart_summaries=[json.loads(Path(p).read_text()) for p in snakemake.input.counterparts],
    )
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
