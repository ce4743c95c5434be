"""Rule cho_vs_pytorch_gru (gatedrnn.questions.cho_gru)."""

from gatedrnn.questions.cho_gru import write_cho_vs_pytorch_table
from gatedrnn.scripting import run_logged

run_logged(
    snakemake.log[0],
    lambda log: write_cho_vs_pytorch_table(
        snakemake.input.summaries, snakemake.params.pytorch_models, snakemake.output[0], log
    ),
)
