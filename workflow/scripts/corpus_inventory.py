"""Rule corpus_inventory: every text member of the corpus source (gatedrnn.io.inventory)."""

from gatedrnn.io.corpus import CorpusSpec
from gatedrnn.io.inventory import write_inventory
from gatedrnn.scripting import run_logged


def main(log):
    spec = CorpusSpec.from_config(snakemake.params.corpus)
    record = write_inventory(spec, snakemake.output[0])
    log(
        f"inventory of {record['source']}: {len(record['members'])} text members, "
        f"{len(record['skipped'])} skipped (not UTF-8 text, links)"
    )
    for skipped in record["skipped"]:
        log(f"skipped {skipped['name']}: {skipped['reason']}")


run_logged(snakemake.log[0], main)
