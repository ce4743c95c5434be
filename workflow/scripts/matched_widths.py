"""Rule matched_widths (gatedrnn.tables.study.matched_widths_table)."""

from gatedrnn.core.vocabularies import vocabulary_size
from gatedrnn.io.files import read_json
from gatedrnn.plan.cells import configured_cells
from gatedrnn.scripting import run_logged
from gatedrnn.tables.study import matched_widths_table


def main(log):
    provenance = read_json(snakemake.input.provenance, "corpus provenance record")
    train = snakemake.params.train
    table = matched_widths_table(
        snakemake.params.models,
        # the model's vocabulary (train.vocabulary), not necessarily the corpus's
        vocabulary_size(train["vocabulary"], provenance["vocab_size"]),
        snakemake.params.reference_width,
        train["embed_dim"],
        train["layers"],
        train["readout_norm"],
        cells=configured_cells(snakemake.config),
    )
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string())


run_logged(snakemake.log[0], main)
