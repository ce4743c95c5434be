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
        code=code_version("corpus.py"),
        corpus=config["corpus"],
    script:
        "../scripts/corpus.py"
