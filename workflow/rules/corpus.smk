rule corpus:
    """Fetch, verify and assemble the corpus; write it with its provenance."""
    output:
        text=CORPUS,
        provenance=CORPUS_PROVENANCE,
    params:
        corpus=config["corpus"],
    log:
        "results/logs/corpus.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/corpus.py"
