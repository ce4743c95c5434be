"""Rule split_by_width (gatedrnn.questions.answers.split_by_width_table)."""

import json
from pathlib import Path

from gatedrnn.questions.answers import split_by_width_table
from gatedrnn.scripting import run_logged


def main(log):
    summaries = [json.loads(Path(path).read_text()) for path in snakemake.input.summaries]
    table = split_by_width_table(summaries)
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
