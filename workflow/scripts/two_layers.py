"""Rule two_layers (gatedrnn.questions.answers.two_layers_tables)."""

import json
from pathlib import Path

from gatedrnn.questions.answers import two_layers_tables
from gatedrnn.scripting import run_logged


def main(log):
    summaries = [json.loads(Path(path).read_text()) for path in snakemake.input.summaries]
    table, split = two_layers_tables(
        summaries,
        snakemake.params.reference_lstm,
        snakemake.params.width_matched_gru,
        snakemake.params.budget_matched_gru,
    )
    table.to_csv(snakemake.output.table, index=False)
    split.to_csv(snakemake.output.split, index=False)
    log(table.to_string(index=False))
    log(split.to_string(index=False))


run_logged(snakemake.log[0], main)
