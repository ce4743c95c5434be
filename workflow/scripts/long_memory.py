"""Rule long_memory (gatedrnn.questions.long_memory)."""

from gatedrnn.questions.long_memory import write_long_memory_table
from gatedrnn.scripting import run_logged

run_logged(
    snakemake.log[0],
    lambda log: write_long_memory_table(
        snakemake.input.models,
        snakemake.input.counterparts,
        snakemake.input.corpus,
        snakemake.input.provenance,
        distance=snakemake.params.distance,
        keys=snakemake.params.n_keys,
        fillers=snakemake.params.n_fillers,
        lines=snakemake.params.lines,
        length=snakemake.params.length,
        train_fraction=snakemake.params.train_fraction,
        counterpart_regimes=snakemake.params.counterparts,
        out=snakemake.output[0],
        log=log,
    ),
    threads=snakemake.threads,
)
