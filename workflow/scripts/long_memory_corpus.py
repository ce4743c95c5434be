"""Rule long_memory_corpus (gatedrnn.io.synthetic.write_copy_task_corpus)."""

from gatedrnn.io.synthetic import write_copy_task_corpus
from gatedrnn.scripting import run_logged


def main(log):
    provenance = write_copy_task_corpus(
        snakemake.output.text,
        snakemake.output.provenance,
        chars=snakemake.params.chars,
        distance=snakemake.params.distance,
        seed=snakemake.params.seed,
        keys=snakemake.params.n_keys,
        fillers=snakemake.params.n_fillers,
    )
    log(
        f"copy task: {provenance['characters']} characters, {provenance['vocab_size']} distinct, "
        f"distance {provenance['distance']}, sha256 {provenance['corpus_sha256']}"
    )


run_logged(snakemake.log[0], main)
