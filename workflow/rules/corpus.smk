rule corpus:
    """Fetch, verify and assemble the corpus; write it with its provenance."""
    output:
        text=CORPUS,
        provenance=CORPUS_PROVENANCE,
    log:
        log_for("corpus"),
    conda:
        ENV
    params:
        corpus=config["corpus"],
    script:
        "../scripts/corpus.py"
