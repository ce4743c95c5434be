# Beyond the study (section G): the questions it left open, one table each
# (gatedrnn.questions: one module per question). Every answer has a switch under `open_questions`;
# switched off, neither its table nor the models only it needs are part of
# `rule all`. Models go through the one `train` rule: new cells (gru_noreset,
# cho_gru), other widths, and regimes (steps_x4, two_layers, long_memory...).


include: "open_questions_common.smk"


rule open_reset_gate:
    """What the reset gate does: the budget GRU with r pinned to 1 (no retraining),
    and gru_noreset (r fixed at 1) trained against gru at the same width."""
    input:
        models=oq_files(RESET_PINNED_RUNS, "model.pt"),
        summaries=oq_files(RESET_PINNED_RUNS, "summary.json"),
        noreset=oq_files(RESET_NORESET_RUNS, "summary.json"),
        gru=oq_files(RESET_GRU_RUNS, "summary.json"),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        report(
            "results/tables/open_reset_gate.csv",
            caption="../report/open_reset_gate.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G1 the reset gate",
        ),
    log:
        "results/logs/open_questions/open_reset_gate.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        train_fraction=config["split"]["train_fraction"],
    script:
        "../scripts/open_reset_gate.py"


rule split_by_width:
    """The structure/width split of the GRU's advantage with the LSTM at other widths."""
    input:
        summaries=oq_files(SPLIT_RUNS, "summary.json"),
    output:
        report(
            "results/tables/split_by_width.csv",
            caption="../report/split_by_width.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G2 split by width",
        ),
    log:
        "results/logs/open_questions/split_by_width.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/split_by_width.py"


rule two_layers:
    """GRU against LSTM (D3, D4) at one and at two stacked layers."""
    input:
        summaries=oq_files(TWO_LAYER_RUNS, "summary.json"),
    output:
        table=report(
            "results/tables/two_layers.csv",
            caption="../report/two_layers.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G3 two layers",
        ),
        split=report(
            "results/tables/two_layers_split.csv",
            caption="../report/two_layers_split.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G3 two layers",
        ),
    log:
        "results/logs/open_questions/two_layers.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        reference_lstm=model_id(*REFERENCE_LSTM),
        width_matched_gru=model_id(*WIDTH_MATCHED_GRU),
        budget_matched_gru=model_id(*BUDGET_MATCHED_GRU),
    script:
        "../scripts/two_layers.py"


rule longer_training:
    """Where the gates go, and whether validation turns, when training continues."""
    input:
        summaries=oq_files(LONGER_RUNS, "summary.json"),
        histories=oq_files(LONGER_RUNS, "history.csv"),
        gates=oq_files(LONGER_RUNS, "gates"),
    output:
        table=report(
            "results/tables/longer_training.csv",
            caption="../report/longer_training.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G4 longer training",
        ),
        curves="results/tables/longer_training_curves.csv",
    log:
        "results/logs/open_questions/longer_training.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/longer_training.py"


rule cho_vs_pytorch_gru:
    """The reset-before ("Cho") GRU against PyTorch's reset-after GRU, same data."""
    input:
        summaries=oq_files(CHO_RUNS, "summary.json"),
    output:
        report(
            "results/tables/cho_vs_pytorch_gru.csv",
            caption="../report/cho_vs_pytorch_gru.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G5 the Cho GRU",
        ),
    log:
        "results/logs/open_questions/cho_vs_pytorch_gru.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        pytorch_models=CHO_PAIRS,
    script:
        "../scripts/cho_vs_pytorch_gru.py"


rule long_memory_corpus:
    """The copy task (gatedrnn.io.synthetic.copy_task): a key repeated `distance` later."""
    output:
        text=DATASETS["long_memory"]["corpus"],
        provenance=DATASETS["long_memory"]["provenance"],
    log:
        "results/logs/open_questions/long_memory_corpus.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        chars=LONG_MEMORY["chars"],
        distance=LONG_MEMORY["distance"],
        seed=LONG_MEMORY["seed"],
        n_keys=LONG_MEMORY["keys"],
        n_fillers=LONG_MEMORY["fillers"],
    script:
        "../scripts/long_memory_corpus.py"


rule long_memory:
    """Do the gates stay open when the task needs memory, and does an open forget bias help?"""
    input:
        models=oq_files(LONG_MEMORY_RUNS, "model.pt"),
        summaries=oq_files(LONG_MEMORY_RUNS, "summary.json"),
        counterparts=oq_files(LONG_MEMORY_COUNTERPART_RUNS, "summary.json"),
        corpus=DATASETS["long_memory"]["corpus"],
        provenance=DATASETS["long_memory"]["provenance"],
    output:
        report(
            "results/tables/long_memory.csv",
            caption="../report/long_memory.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G6 long memory",
        ),
    log:
        "results/logs/open_questions/long_memory.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        distance=LONG_MEMORY["distance"],
        n_keys=LONG_MEMORY["keys"],
        n_fillers=LONG_MEMORY["fillers"],
        lines=LONG_MEMORY["probe_lines"],
        length=config["probe"]["length"],
        train_fraction=config["split"]["train_fraction"],
        counterparts=LONG_MEMORY_COUNTERPARTS,
    script:
        "../scripts/long_memory.py"


rule open_questions_report:
    """Each answer in one sentence with its numbers, from the tables (Markdown)."""
    input:
        tables=[t for t in OPEN_QUESTION_TARGETS if t.endswith(".csv")],
    output:
        report(
            "results/open_questions.md",
            caption="../report/open_questions_md.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G0 the answers",
        ),
    log:
        "results/logs/open_questions/open_questions_report.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/open_questions_report.py"


rule split_by_width_figure:
    input:
        table="results/tables/split_by_width.csv",
    output:
        report(
            "results/figures/split_by_width.png",
            caption="../report/split_by_width_figure.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G2 split by width",
        ),
    log:
        "results/logs/open_questions/split_by_width_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        figure="split_by_width",
    script:
        "../scripts/open_question_figure.py"


rule longer_training_figure:
    input:
        table="results/tables/longer_training.csv",
        curves="results/tables/longer_training_curves.csv",
    output:
        report(
            "results/figures/longer_training.png",
            caption="../report/longer_training_figure.rst",
            category=OPEN_QUESTIONS_CATEGORY,
            subcategory="G4 longer training",
        ),
    log:
        "results/logs/open_questions/longer_training_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        figure="longer_training",
    script:
        "../scripts/open_question_figure.py"
