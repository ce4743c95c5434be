"""Rule two_layers (gatedrnn.questions.two_layers)."""

from gatedrnn.questions.two_layers import write_two_layers_tables
from gatedrnn.scripting import run_logged

run_logged(
    snakemake.log[0],
    lambda log: write_two_layers_tables(
        snakemake.input.summaries,
        snakemake.params.reference_lstm,
        snakemake.params.width_matched_gru,
        snakemake.params.budget_matched_gru,
        snakemake.output.table,
        snakemake.output.split,
        log,
    ),
)
