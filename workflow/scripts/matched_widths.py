"""Rule matched_widths (gatedrnn.tables.study.matched_widths_table)."""

from gatedrnn.io.files import read_json
from gatedrnn.scripting import run_logged
from gatedrnn.tables.study import matched_widths_table


def main(log):
    provenance = read_json(snakemake.input.provenance, "corpus provenance record")
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
