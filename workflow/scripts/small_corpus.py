"""Rule small_corpus (gatedrnn.io.variants.write_prefix_corpus): the corpus-size axis's text."""

from gatedrnn.io.variants import write_prefix_corpus
from gatedrnn.scripting import run_logged


def main(log):
    provenance = write_prefix_corpus(
        snakemake.input.corpus,
        snakemake.input.provenance,
        snakemake.params.chars,
        snakemake.output.text,
        snakemake.output.provenance,
    )
    log(
        f"small corpus: the first {provenance['characters']} of {provenance['parent_characters']} "
        f"characters ({provenance['chars_requested']} asked, cut at a line end), "
        f"{provenance['vocab_size']} distinct, sha256 {provenance['corpus_sha256']}"
    )


run_logged(snakemake.log[0], main)
