"""Rule forget_bias_memory_check (gates.smk): the forget-bias sweep's reach, measured by
the sweep's code and by an independent float64 computation (gatedrnn.tables.memory_check)."""

from pathlib import Path

from gatedrnn.io.files import read_json
from gatedrnn.scripting import run_logged
from gatedrnn.tables.memory_check import forget_bias_memory_check_table
from gatedrnn.tables.probe_gates import probe_set
from gatedrnn.train.config import shared_vocabulary


def main(log):
    tokens, _ = probe_set(
        snakemake.input.corpus,
        snakemake.input.provenance,
        snakemake.params.train_fraction,
        snakemake.params.lines,
        snakemake.params.length,
        shared_vocabulary(
            [
                read_json(Path(path).parent / "summary.json", "training summary")
                for path in snakemake.input.models
            ],
            "the forget-bias memory check",
        ),
    )
    model_dirs = [Path(path).parent for path in snakemake.input.models]
    table = forget_bias_memory_check_table(model_dirs, snakemake.params.forget_biases, tokens)
    table.to_csv(snakemake.output[0], index=False, float_format=None)
    log(table.to_string(index=False))


run_logged(snakemake.log[0], main)
