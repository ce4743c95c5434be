from gatedrnn.train.prefix import prefix_regime


rule train:
    """Train one (cell, width, seed) model under a named regime; resumes from checkpoints."""
    input:
        # the regime's dataset: the corpus, or a generated one (regime_corpus)
        unpack(lambda wildcards: regime_corpus(wildcards.regime)),
        # the same model under the regime whose run is this one's first steps
        # (gatedrnn.train.prefix): the job starts from that run's final state
        prefix=lambda w: [
            f"results/models/{shorter}/{w.cell}_{w.width}_s{w.seed}/summary.json"
            for shorter in [
                prefix_regime(
                    {
                        r: regime_train_config(r) | {"dataset": regime_dataset(r)}
                        for r in REGIMES
                    },
                    w.regime,
                )
            ]
            if shorter is not None
        ],
    output:
        model="results/models/{regime}/{cell}_{width}_s{seed}/model.pt",
        history="results/models/{regime}/{cell}_{width}_s{seed}/history.csv",
        summary="results/models/{regime}/{cell}_{width}_s{seed}/summary.json",
    log:
        "results/logs/train/{regime}/{cell}_{width}_s{seed}.log",
    benchmark:
        "results/benchmarks/train/{regime}/{cell}_{width}_s{seed}.tsv"
    conda:
        "../../envs/gatedrnn.yaml"
    threads: config["train"]["threads"]
    resources:
        mem_mb=config["train"]["mem_mb"],
        runtime=config["train"]["runtime"],
    params:
        train=lambda wildcards: regime_train_config(wildcards.regime),
        train_fraction=config["split"]["train_fraction"],
        checkpoint_every=config["train"]["checkpoint_every"],
        device=config["train"]["device"],
        # the job always runs train.threads threads: results must not depend on --cores
        threads=config["train"]["threads"],
        checkpoint_dir=lambda wildcards: (
            f"results/checkpoints/{wildcards.regime}/"
            f"{wildcards.cell}_{wildcards.width}_s{wildcards.seed}"
        ),
    script:
        "../scripts/train.py"
