"""Rule coupled_gates (gatedrnn.questions.coupled_gates)."""

from gatedrnn.questions.coupled_gates import write_coupled_gates_table
from gatedrnn.scripting import run_logged

run_logged(
    snakemake.log[0],
    lambda log: write_coupled_gates_table(
        snakemake.input.summaries,
        snakemake.input.gates,
        snakemake.params.models,
        snakemake.output[0],
        log,
    ),
)
