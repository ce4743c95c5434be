rule corpus:
    """Fetch, verify and assemble the corpus; write it with its provenance."""
    output:
        text=CORPUS,
        provenance=CORPUS_PROVENANCE,
    log:
        "results/logs/corpus.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        corpus=config["corpus"],
    script:
        "../scripts/corpus.py"
