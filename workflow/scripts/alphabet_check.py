"""Rule alphabet_check (gatedrnn.claims.counts, gatedrnn.tables.alphabet)."""

import json

from gatedrnn.claims import load_claims
from gatedrnn.claims.counts import published_counts
from gatedrnn.core.data import vocabulary_size
from gatedrnn.scripting import run_logged, workflow_file
from gatedrnn.tables.alphabet import alphabet_check_table


def main(log):
    params = snakemake.params
    claims = [claim.fill(params.models) for claim in load_claims(workflow_file(snakemake, params.published))]
    counts = published_counts(claims, params.counts_table, "params")
    with open(snakemake.input.inventory, encoding="utf-8") as handle:
        inventory = json.load(handle)
    with open(snakemake.input.provenance, encoding="utf-8") as handle:
        provenance = json.load(handle)
    train = params.train
    # the grid's model: its vocabulary's size, not necessarily the corpus's
    configured = {key: train[key] for key in ("embed_dim", "readout_norm", "vocabulary")}
    configured["vocab_size"] = vocabulary_size(train["vocabulary"], provenance["vocab_size"])
    table = alphabet_check_table(
        counts, inventory, params.candidates, provenance, params.members, configured, train["layers"]
    )
    for row in table.itertuples():
        if row.kind == "candidate" and row.members == 0:
            log(f"WARNING: candidate {row.name} ({row.pattern}) matches no text member of the source")
    (model,) = table[table["kind"] == "configured_model"].itertuples()
    log(f"the configured model {model.name} {'reproduces' if model.reproduces else 'does NOT reproduce'} "
        f"every published count (largest difference {model.configured_difference})")  # fmt: skip
    table.to_csv(snakemake.output[0], index=False)
    log(table.to_string())


run_logged(snakemake.log[0], main)
