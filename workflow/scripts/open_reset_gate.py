"""Rule open_reset_gate (gatedrnn.questions.answers.reset_gate_table)."""

import json
from pathlib import Path

import torch

from gatedrnn.core.data import validation_windows
from gatedrnn.io.reading import corpus_splits
from gatedrnn.questions.answers import pinned_reset_row, reset_gate_table
from gatedrnn.scripting import run_logged
from gatedrnn.train.loop import load_model


def read(paths):
    return [json.loads(Path(path).read_text()) for path in paths]


def main(log):
    torch.set_num_threads(snakemake.threads)
    _, _, val_ids, _ = corpus_splits(
        snakemake.input.corpus, snakemake.input.provenance, snakemake.params.train_fraction
    )
    pinned = []
    for path in snakemake.input.models:
        model, summary = load_model(Path(path).parent)
        cfg = summary["train_config"]
        windows = validation_windows(val_ids, cfg["val_windows"], cfg["seq_len"])
        pinned.append(pinned_reset_row(model, summary, windows))
        log(json.dumps(pinned[-1]))
    table = reset_gate_table(pinned, read(snakemake.input.noreset), read(snakemake.input.gru))
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
