rule corpus:
    """Fetch, verify and assemble the corpus; write it with its provenance."""
    output:
        # data/corpus.txt and data/corpus.json; multiext so that the between-workflow
        # cache (snakemake --cache, SNAKEMAKE_OUTPUT_CACHE) can store both
        multiext(CORPUS_STEM, text=".txt", provenance=".json"),
    log:
        log_for("corpus"),
    # A second clone with the same SNAKEMAKE_OUTPUT_CACHE takes the corpus from the
    # cache instead of downloading it (the key covers the corpus settings and the code).
    cache: "omit-software"
    conda:
        ENV
    params:
        code=code_version("corpus.py"),
        corpus=config["corpus"],
    script:
        "../scripts/corpus.py"
