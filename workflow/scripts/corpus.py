"""Rule corpus: fetch, verify and assemble the corpus (gatedrnn.io.corpus)."""

from gatedrnn.io.corpus import CorpusSpec, write_corpus
from gatedrnn.scripting import run_logged


def main(log):
    spec = CorpusSpec.from_config(snakemake.params.corpus)
    provenance = write_corpus(spec, snakemake.output.text, snakemake.output.provenance)
    log(
        f"corpus from {provenance['source']}: {provenance['characters']} characters, "
        f"{provenance['vocab_size']} distinct, sha256 {provenance['corpus_sha256']}"
    )


run_logged(snakemake.log[0], main)
