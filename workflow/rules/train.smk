rule train:
    """Train one (cell, width, seed) model under a named regime; resumes from checkpoints."""
    input:
        # the regime's dataset: the corpus, or a generated one (Plan.corpus)
        unpack(lambda wildcards: PLAN.corpus(wildcards.regime)),
        # the same model under the regime whose run is this one's first steps
        # (gatedrnn.train.prefix): the job starts from that run's final state
        prefix=lambda wildcards: PLAN.prefix_files(Run.of(wildcards)),
    output:
        # results/models/{regime}/{cell}_{width}_s{seed}/...
        model=model_file(ANY_RUN, "model.pt"),
        history=model_file(ANY_RUN, "history.csv"),
        summary=model_file(ANY_RUN, "summary.json"),
    log:
        log_for(f"train/{ANY_RUN.path}"),
    benchmark:
        f"results/benchmarks/train/{ANY_RUN.path}.tsv"
    conda:
        ENV
    threads: config["train"]["threads"]
    resources:
        # the job's estimated peak plus 20 %, or train.mem_mb (gatedrnn.plan.resources),
        # once its corpus exists: the estimate needs the vocabulary and the length
        mem_mb=lambda wildcards, input: train_mem_mb(wildcards, input),
        runtime=config["train"]["runtime"],
    params:
        code=code_version("train.py"),
        # what builds the model: a plug-in's import path (its file names carry only its
        # class name), or the built-in's name; a param, so train.py needs no plan import
        # and the training code's version does not follow the plan package
        cell=lambda wildcards: PLAN.cell_path(wildcards.cell),
        train=lambda wildcards: PLAN.train_config(wildcards.regime),
        train_fraction=config["split"]["train_fraction"],
        checkpoint_every=config["train"]["checkpoint_every"],
        device=config["train"]["device"],
        # the job always runs train.threads threads: results must not depend on --cores
        threads=config["train"]["threads"],
        # the kernels' instruction set (numerics.cpu_isa, pinned in common.smk): other bits
        cpu_isa=CPU_ISA,
        checkpoint_dir=lambda wildcards: checkpoint_dir(Run.of(wildcards)),
    script:
        "../scripts/train.py"
