"""Rule longer_training (gatedrnn.questions.longer_training)."""

from gatedrnn.questions.longer_training import write_longer_training_tables
from gatedrnn.scripting import run_logged

run_logged(
    snakemake.log[0],
    lambda log: write_longer_training_tables(
        snakemake.input.summaries,
        snakemake.input.histories,
        snakemake.input.gates,
        snakemake.output.table,
        snakemake.output.curves,
        log,
    ),
)
