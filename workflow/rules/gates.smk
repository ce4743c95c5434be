# Gate extraction and every gate analysis of the study: C1-C5, D1, D2, D5, D6,
# E1 and the forget-bias sweep E3 (and its independent check, issue #17). Statistics
# are per seed (a `seed` column); the study's one model is seed 0. Protocols:
# gatedrnn.analysis.stats and gatedrnn.tables.gates.


rule gates:
    """Every gate of one trained model on the probe set, and its manual step check."""
    input:
        # corpus, provenance: the text the model trained on (the probe is its validation split)
        unpack(lambda wildcards: PLAN.corpus(wildcards.regime)),
        model=model_file(ANY_RUN, "model.pt"),
        summary=model_file(ANY_RUN, "summary.json"),
    output:
        # results/gates/{regime}/{cell}_{width}_s{seed}.npz
        gates=gate_file(ANY_RUN),
        check=gate_file(ANY_RUN, "check.json"),
    log:
        log_for(f"gates/{ANY_RUN.path}"),
    benchmark:
        f"results/benchmarks/gates/{ANY_RUN.path}.tsv"
    conda:
        ENV
    params:
        code=code_version("probe_gates.py"),
        train_fraction=config["split"]["train_fraction"],
        lines=config["probe"]["lines"],
        length=config["probe"]["length"],
    script:
        "../scripts/probe_gates.py"


rule manual_step_check:
    """C1: recomputed states against the module's, every trained grid model and seed."""
    input:
        checks=PLAN.gate_files(PLAN.grid, suffix="check.json"),
    output:
        reported("results/tables/manual_step_check.csv", "C", "C1 manual step check"),
    log:
        log_for("manual_step_check"),
    conda:
        ENV
    params:
        code=code_version("manual_step_check.py"),
    script:
        "../scripts/manual_step_check.py"


# The tables of saved probe gates (C2, C3, C5, D1, D2, D5): one rule each, all made by
# gate_stats_table.py. `tables` maps each output to the function of
# gatedrnn.tables.gates that computes it.
rule lstm_gates:
    """C2: mean and percentiles of the reference LSTM's i, f, o, g."""
    input:
        gates=PLAN.gate_files([PLAN.reference_lstm]),
    output:
        table=reported("results/tables/lstm_gates.csv", "C", "C2 gate distribution"),
    log:
        log_for("lstm_gates"),
    conda:
        ENV
    params:
        code=code_version("gate_stats_table.py"),
        tables={"table": "gate_table"},
    script:
        "../scripts/gate_stats_table.py"


use rule lstm_gates as lstm_forget_units with:
    """C3: the per-unit mean forget gate and its half-lives."""
    output:
        table=reported(
            "results/tables/lstm_forget_units.csv", "C", "C3 per-unit forget gates"
        ),
    log:
        log_for("lstm_forget_units"),
    params:
        code=code_version("gate_stats_table.py"),
        tables={"table": "forget_units_table"},


use rule lstm_gates as lstm_forget_by_char with:
    """C5: the mean forget gate by the character read (space, newline, other)."""
    output:
        table=reported(
            "results/tables/lstm_forget_by_char.csv",
            "C",
            "C5 forget gate by character",
        ),
    log:
        log_for("lstm_forget_by_char"),
    params:
        code=code_version("gate_stats_table.py"),
        tables={"table": "forget_by_char_table"},


use rule lstm_gates as gru_gates with:
    """D1: mean and percentiles of the budget-matched GRU's z, r, n."""
    input:
        gates=PLAN.gate_files([PLAN.budget_matched_gru]),
    output:
        table=reported("results/tables/gru_gates.csv", "D", "D1 GRU gates"),
    log:
        log_for("gru_gates"),
    params:
        code=code_version("gate_stats_table.py"),
        tables={"table": "gate_table"},


use rule lstm_gates as lstm_coupling with:
    """D2: does the LSTM set i = 1 - f? Correlations and the (1 - f, i) histogram."""
    output:
        table=reported(
            "results/tables/lstm_coupling.csv", "D", "D2 coupling of i and f"
        ),
        histogram=reported(
            "results/tables/lstm_coupling_histogram.csv", "D", "D2 coupling of i and f"
        ),
    log:
        log_for("lstm_coupling"),
    params:
        code=code_version("gate_stats_table.py"),
        tables={"table": "coupling_table", "histogram": "coupling_histogram_table"},


use rule lstm_gates as unit_half_lives with:
    """D5: per-unit half-lives from the LSTM's f and the budget-matched GRU's z."""
    input:
        gates=PLAN.gate_files([PLAN.reference_lstm, PLAN.budget_matched_gru]),
    output:
        table=reported(
            "results/tables/unit_half_lives.csv", "D", "D5 per-unit half-lives"
        ),
        units=reported(
            "results/tables/unit_gate_means.csv", "D", "D5 per-unit half-lives"
        ),
    log:
        log_for("unit_half_lives"),
    params:
        code=code_version("gate_stats_table.py"),
        # the half-lives table is computed from the units table
        tables={"units": "unit_gates_table", "table": "unit_half_lives_table"},


# The tables that rerun trained models on the probe set (C4, E1, E3): one rule each,
# all made by perturbation_table.py.
rule lstm_cell_decay:
    """C4: the LSTM cell-state difference after one changed character, measured and
    from the forget gate alone."""
    input:
        models=PLAN.grid_files("model.pt", models=[PLAN.reference_lstm]),
        summaries=PLAN.grid_files("summary.json", models=[PLAN.reference_lstm]),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        reported("results/tables/lstm_cell_decay.csv", "C", "C4 cell-state decay"),
    log:
        log_for("lstm_cell_decay"),
    conda:
        ENV
    params:
        code=code_version("perturbation_table.py"),
        table="lstm_cell_decay",
        train_fraction=config["split"]["train_fraction"],
        lines=config["probe"]["lines"],
        length=config["probe"]["length"],
    script:
        "../scripts/perturbation_table.py"


use rule lstm_cell_decay as hidden_perturbation_decay with:
    """E1: the hidden-state difference after one changed character, LSTM, GRU and RNN."""
    input:
        models=PLAN.grid_files("model.pt", models=PLAN.decay_models),
        summaries=PLAN.grid_files("summary.json", models=PLAN.decay_models),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        reported(
            "results/tables/hidden_perturbation_decay.csv",
            "E",
            "E1 hidden-state perturbation",
        ),
    log:
        log_for("hidden_perturbation_decay"),
    params:
        code=code_version("perturbation_table.py"),
        table="hidden_perturbation_decay",


use rule lstm_cell_decay as forget_bias_sweep with:
    """E3: best validation loss and reach of the LSTM against its initial forget bias."""
    input:
        models=PLAN.sweep_files("model.pt"),
        summaries=PLAN.sweep_files("summary.json"),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        reported("results/tables/forget_bias_sweep.csv", "E", "E3 forget-bias sweep"),
    log:
        log_for("forget_bias_sweep"),
    params:
        code=code_version("perturbation_table.py"),
        table="forget_bias_sweep",
        forget_biases=PLAN.forget_biases,


rule forget_bias_memory_check:
    """Issue #17: E3's state half-life recomputed by an independent float64 implementation,
    with the cell-state, Jacobian and gradient views of reach and the trained gates."""
    input:
        models=PLAN.sweep_files("model.pt"),
        summaries=PLAN.sweep_files("summary.json"),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        reported(
            "results/tables/forget_bias_memory_check.csv", "E", "E3 forget-bias sweep"
        ),
    log:
        log_for("forget_bias_memory_check"),
    conda:
        ENV
    params:
        code=code_version("forget_bias_memory_check.py"),
        forget_biases=PLAN.forget_biases,
        train_fraction=config["split"]["train_fraction"],
        lines=config["probe"]["lines"],
        length=config["probe"]["length"],
    script:
        "../scripts/forget_bias_memory_check.py"


rule lstm_cell_decay_figure:
    input:
        table="results/tables/lstm_cell_decay.csv",
    output:
        reported("results/figures/lstm_cell_decay.png", "C", "C4 cell-state decay"),
    log:
        log_for("lstm_cell_decay_figure"),
    conda:
        ENV
    params:
        code=code_version("gate_figure.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        figure="lstm_cell_decay",
    script:
        "../scripts/gate_figure.py"


rule gru_vs_lstm_gates_figure:
    """D6: the (1 - f, i) histogram and the per-unit half-lives, seed 0."""
    input:
        histogram="results/tables/lstm_coupling_histogram.csv",
        units="results/tables/unit_gate_means.csv",
    output:
        reported(
            "results/figures/gru_vs_lstm_gates.png", "D", "D6 gates of GRU and LSTM"
        ),
    log:
        log_for("gru_vs_lstm_gates_figure"),
    conda:
        ENV
    params:
        code=code_version("gate_figure.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        figure="gru_vs_lstm_gates",
    script:
        "../scripts/gate_figure.py"


rule hidden_perturbation_decay_figure:
    input:
        table="results/tables/hidden_perturbation_decay.csv",
    output:
        reported(
            "results/figures/hidden_perturbation_decay.png",
            "E",
            "E1 hidden-state perturbation",
        ),
    log:
        log_for("hidden_perturbation_decay_figure"),
    conda:
        ENV
    params:
        code=code_version("gate_figure.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        figure="hidden_perturbation_decay",
    script:
        "../scripts/gate_figure.py"


rule forget_bias_sweep_figure:
    input:
        table="results/tables/forget_bias_sweep.csv",
    output:
        reported("results/figures/forget_bias_sweep.png", "E", "E3 forget-bias sweep"),
    log:
        log_for("forget_bias_sweep_figure"),
    conda:
        ENV
    params:
        code=code_version("gate_figure.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
        figure="forget_bias_sweep",
    script:
        "../scripts/gate_figure.py"


rule cell_analyses:
    """C1, C2, C3/D5, D2, E1 and B1 of every grid model, read through its cell's declared
    gates (gatedrnn.tables.cells); a rule of `rule all` when the grid holds a cell beyond
    the study's three (a plug-in by import path, docs/cells.md)."""
    input:
        models=PLAN.grid_files("model.pt"),
        summaries=PLAN.grid_files("summary.json"),
        gates=PLAN.gate_files(PLAN.grid),
        checks=PLAN.gate_files(PLAN.grid, suffix="check.json"),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        reported(CELL_ANALYSES, "C", "Cells: every analysis by declared gates"),
    log:
        log_for("cell_analyses"),
    conda:
        ENV
    params:
        code=code_version("cell_analyses.py"),
        train_fraction=config["split"]["train_fraction"],
        lines=config["probe"]["lines"],
        length=config["probe"]["length"],
    script:
        "../scripts/cell_analyses.py"
