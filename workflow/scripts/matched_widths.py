"""Rule matched_widths (gatedrnn.tables.study.matched_widths_table)."""

import json

from gatedrnn.core.data import vocabulary_size
from gatedrnn.scripting import run_logged
from gatedrnn.tables.study import matched_widths_table


def main(log):
    provenance = json.loads(open(snakemake.input.provenance).read())
    train = snakemake.params.train
    table = matched_widths_table(
        snakemake.params.models,
        # the model's vocabulary (train.vocabulary), not necessarily the corpus's
        vocabulary_size(train["vocabulary"], provenance["vocab_size"]),
        snakemake.params.reference_width,
        train["embed_dim"],
        train["layers"],
        train["readout_norm"],
    )
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string())


run_logged(snakemake.log[0], main)
