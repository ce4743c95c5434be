"""Rule matched_widths (gatedrnn.tables.study.matched_widths_table)."""

import json

from gatedrnn.scripting import run_logged
from gatedrnn.tables.study import matched_widths_table


def main(log):
    provenance = json.loads(open(snakemake.input.provenance).read())
    table = matched_widths_table(
        snakemake.params.models,
        provenance["vocab_size"],
        snakemake.params.reference_width,
        snakemake.params.embed_dim,
        snakemake.params.layers,
    )
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string())


run_logged(snakemake.log[0], main)
