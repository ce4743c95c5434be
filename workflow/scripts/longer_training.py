"""Rule longer_training (gatedrnn.questions.answers.longer_training_table and _curves)."""

import json
from pathlib import Path

import pandas as pd

from gatedrnn.analysis.gates import load_gates
from gatedrnn.questions.answers import longer_training_curves, longer_training_table
from gatedrnn.scripting import run_logged


def main(log):
    entries = [
        (json.loads(Path(summary).read_text()), pd.read_csv(history), load_gates(gates))
        for summary, history, gates in zip(
            snakemake.input.summaries, snakemake.input.histories, snakemake.input.gates, strict=True
        )
    ]
    table = longer_training_table(entries)
    table.to_csv(snakemake.output.table, index=False)
    longer_training_curves(entries).to_csv(snakemake.output.curves, index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
