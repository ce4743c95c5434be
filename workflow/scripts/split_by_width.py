"""Rule split_by_width (gatedrnn.questions.split_by_width)."""

from gatedrnn.questions.split_by_width import write_split_by_width_table
from gatedrnn.scripting import run_logged

run_logged(
    snakemake.log[0],
    lambda log: write_split_by_width_table(snakemake.input.summaries, snakemake.output[0], log),
)
