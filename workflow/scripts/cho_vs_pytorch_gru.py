"""Rule cho_vs_pytorch_gru (gatedrnn.questions.answers.cho_vs_pytorch_table)."""

import json
from pathlib import Path

from gatedrnn.questions.answers import cho_vs_pytorch_table
from gatedrnn.scripting import run_logged


def main(log):
    summaries = [json.loads(Path(path).read_text()) for path in snakemake.input.summaries]
    table = cho_vs_pytorch_table(summaries, dict(snakemake.params.pytorch_models))
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
