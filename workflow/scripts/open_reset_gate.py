"""Rule open_reset_gate (gatedrnn.questions.reset_gate)."""

from gatedrnn.questions.reset_gate import write_reset_gate_table
from gatedrnn.scripting import run_logged

run_logged(
    snakemake.log[0],
    lambda log: write_reset_gate_table(
        snakemake.input.models,
        snakemake.input.noreset,
        snakemake.input.gru,
        snakemake.input.corpus,
        snakemake.input.provenance,
        snakemake.params.train_fraction,
        snakemake.output[0],
        log,
    ),
    threads=snakemake.threads,
)
