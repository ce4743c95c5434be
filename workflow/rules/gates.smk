# Gate extraction and every gate analysis of the study: C1-C5, D1, D2, D5, D6,
# E1 and the forget-bias sweep E3. Statistics are per seed (a `seed` column);
# the study's one model is seed 0. Protocols: gatedrnn.analysis.stats and
# gatedrnn.tables.gates.

GATE_TARGETS = [
    "results/tables/manual_step_check.csv",
    "results/tables/lstm_gates.csv",
    "results/tables/lstm_forget_units.csv",
    "results/tables/lstm_cell_decay.csv",
    "results/tables/lstm_forget_by_char.csv",
    "results/tables/gru_gates.csv",
    "results/tables/lstm_coupling.csv",
    "results/tables/lstm_coupling_histogram.csv",
    "results/tables/unit_half_lives.csv",
    "results/tables/unit_gate_means.csv",
    "results/tables/hidden_perturbation_decay.csv",
    "results/tables/forget_bias_sweep.csv",
    "results/figures/lstm_cell_decay.png",
    "results/figures/gru_vs_lstm_gates.png",
    "results/figures/hidden_perturbation_decay.png",
    "results/figures/forget_bias_sweep.png",
]


rule gates:
    """Every gate of one trained model on the probe set, and its manual step check."""
    input:
        # corpus, provenance: the text the model trained on (the probe is its validation split)
        unpack(lambda wildcards: regime_corpus(wildcards.regime)),
        model="results/models/{regime}/{cell}_{width}_s{seed}/model.pt",
        summary="results/models/{regime}/{cell}_{width}_s{seed}/summary.json",
    output:
        gates="results/gates/{regime}/{cell}_{width}_s{seed}.npz",
        check="results/gates/{regime}/{cell}_{width}_s{seed}.check.json",
    log:
        "results/logs/gates/{regime}/{cell}_{width}_s{seed}.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        train_fraction=config["split"]["train_fraction"],
        lines=config["probe"]["lines"],
        length=config["probe"]["length"],
    script:
        "../scripts/probe_gates.py"


rule manual_step_check:
    """C1: recomputed states against the module's, every trained grid model and seed."""
    input:
        checks=gate_files(GRID, suffix="check.json"),
    output:
        report(
            "results/tables/manual_step_check.csv",
            caption="../report/manual_step_check.rst",
            category="C. The trained LSTM's gates",
            subcategory="C1 manual step check",
        ),
    log:
        "results/logs/manual_step_check.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/manual_step_check.py"


rule lstm_gates:
    """C2: mean and percentiles of the reference LSTM's i, f, o, g."""
    input:
        gates=gate_files([REFERENCE_LSTM]),
    output:
        table=report(
            "results/tables/lstm_gates.csv",
            caption="../report/lstm_gates.rst",
            category="C. The trained LSTM's gates",
            subcategory="C2 gate distribution",
        ),
    log:
        "results/logs/lstm_gates.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="lstm_gates",
    script:
        "../scripts/gate_stats_table.py"


rule lstm_forget_units:
    """C3: the per-unit mean forget gate and its half-lives."""
    input:
        gates=gate_files([REFERENCE_LSTM]),
    output:
        table=report(
            "results/tables/lstm_forget_units.csv",
            caption="../report/lstm_forget_units.rst",
            category="C. The trained LSTM's gates",
            subcategory="C3 per-unit forget gates",
        ),
    log:
        "results/logs/lstm_forget_units.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="lstm_forget_units",
    script:
        "../scripts/gate_stats_table.py"


rule lstm_forget_by_char:
    """C5: the mean forget gate by the character read (space, newline, other)."""
    input:
        gates=gate_files([REFERENCE_LSTM]),
    output:
        table=report(
            "results/tables/lstm_forget_by_char.csv",
            caption="../report/lstm_forget_by_char.rst",
            category="C. The trained LSTM's gates",
            subcategory="C5 forget gate by character",
        ),
    log:
        "results/logs/lstm_forget_by_char.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="lstm_forget_by_char",
    script:
        "../scripts/gate_stats_table.py"


rule gru_gates:
    """D1: mean and percentiles of the budget-matched GRU's z, r, n."""
    input:
        gates=gate_files([BUDGET_MATCHED_GRU]),
    output:
        table=report(
            "results/tables/gru_gates.csv",
            caption="../report/gru_gates.rst",
            category="D. GRU against LSTM",
            subcategory="D1 GRU gates",
        ),
    log:
        "results/logs/gru_gates.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="gru_gates",
    script:
        "../scripts/gate_stats_table.py"


rule lstm_coupling:
    """D2: does the LSTM set i = 1 - f? Correlations and the (1 - f, i) histogram."""
    input:
        gates=gate_files([REFERENCE_LSTM]),
    output:
        table=report(
            "results/tables/lstm_coupling.csv",
            caption="../report/lstm_coupling.rst",
            category="D. GRU against LSTM",
            subcategory="D2 coupling of i and f",
        ),
        histogram=report(
            "results/tables/lstm_coupling_histogram.csv",
            caption="../report/lstm_coupling_histogram.rst",
            category="D. GRU against LSTM",
            subcategory="D2 coupling of i and f",
        ),
    log:
        "results/logs/lstm_coupling.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="lstm_coupling",
    script:
        "../scripts/gate_stats_table.py"


rule unit_half_lives:
    """D5: per-unit half-lives from the LSTM's f and the budget-matched GRU's z."""
    input:
        gates=gate_files([REFERENCE_LSTM, BUDGET_MATCHED_GRU]),
    output:
        table=report(
            "results/tables/unit_half_lives.csv",
            caption="../report/unit_half_lives.rst",
            category="D. GRU against LSTM",
            subcategory="D5 per-unit half-lives",
        ),
        units=report(
            "results/tables/unit_gate_means.csv",
            caption="../report/unit_gate_means.rst",
            category="D. GRU against LSTM",
            subcategory="D5 per-unit half-lives",
        ),
    log:
        "results/logs/unit_half_lives.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="unit_half_lives",
    script:
        "../scripts/gate_stats_table.py"


rule lstm_cell_decay:
    """C4: the LSTM cell-state difference after one changed character, measured and
    from the forget gate alone."""
    input:
        models=grid_files("model.pt", models=[REFERENCE_LSTM]),
        summaries=grid_files("summary.json", models=[REFERENCE_LSTM]),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        report(
            "results/tables/lstm_cell_decay.csv",
            caption="../report/lstm_cell_decay.rst",
            category="C. The trained LSTM's gates",
            subcategory="C4 cell-state decay",
        ),
    log:
        "results/logs/lstm_cell_decay.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="lstm_cell_decay",
        train_fraction=config["split"]["train_fraction"],
        lines=config["probe"]["lines"],
        length=config["probe"]["length"],
    script:
        "../scripts/perturbation_table.py"


rule hidden_perturbation_decay:
    """E1: the hidden-state difference after one changed character, LSTM, GRU and RNN."""
    input:
        models=grid_files("model.pt", models=DECAY_MODELS),
        summaries=grid_files("summary.json", models=DECAY_MODELS),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        report(
            "results/tables/hidden_perturbation_decay.csv",
            caption="../report/hidden_perturbation_decay.rst",
            category="E. Reach and training dynamics",
            subcategory="E1 hidden-state perturbation",
        ),
    log:
        "results/logs/hidden_perturbation_decay.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="hidden_perturbation_decay",
        train_fraction=config["split"]["train_fraction"],
        lines=config["probe"]["lines"],
        length=config["probe"]["length"],
    script:
        "../scripts/perturbation_table.py"


rule forget_bias_sweep:
    """E3: best validation loss and reach of the LSTM against its initial forget bias."""
    input:
        models=sweep_files("model.pt"),
        summaries=sweep_files("summary.json"),
        corpus=CORPUS,
        provenance=CORPUS_PROVENANCE,
    output:
        report(
            "results/tables/forget_bias_sweep.csv",
            caption="../report/forget_bias_sweep.rst",
            category="E. Reach and training dynamics",
            subcategory="E3 forget-bias sweep",
        ),
    log:
        "results/logs/forget_bias_sweep.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="forget_bias_sweep",
        forget_biases={
            regime: regime_train_config(regime)["forget_bias"]
            for regime in FORGET_BIAS_SWEEP["regimes"]
        },
        train_fraction=config["split"]["train_fraction"],
        lines=config["probe"]["lines"],
        length=config["probe"]["length"],
    script:
        "../scripts/perturbation_table.py"


rule lstm_cell_decay_figure:
    input:
        table="results/tables/lstm_cell_decay.csv",
    output:
        report(
            "results/figures/lstm_cell_decay.png",
            caption="../report/lstm_cell_decay_figure.rst",
            category="C. The trained LSTM's gates",
            subcategory="C4 cell-state decay",
        ),
    log:
        "results/logs/lstm_cell_decay_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        figure="lstm_cell_decay",
    script:
        "../scripts/gate_figure.py"


rule gru_vs_lstm_gates_figure:
    """D6: the (1 - f, i) histogram and the per-unit half-lives, seed 0."""
    input:
        histogram="results/tables/lstm_coupling_histogram.csv",
        units="results/tables/unit_gate_means.csv",
    output:
        report(
            "results/figures/gru_vs_lstm_gates.png",
            caption="../report/gru_vs_lstm_gates_figure.rst",
            category="D. GRU against LSTM",
            subcategory="D6 gates of GRU and LSTM",
        ),
    log:
        "results/logs/gru_vs_lstm_gates_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        figure="gru_vs_lstm_gates",
    script:
        "../scripts/gate_figure.py"


rule hidden_perturbation_decay_figure:
    input:
        table="results/tables/hidden_perturbation_decay.csv",
    output:
        report(
            "results/figures/hidden_perturbation_decay.png",
            caption="../report/hidden_perturbation_decay_figure.rst",
            category="E. Reach and training dynamics",
            subcategory="E1 hidden-state perturbation",
        ),
    log:
        "results/logs/hidden_perturbation_decay_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        figure="hidden_perturbation_decay",
    script:
        "../scripts/gate_figure.py"


rule forget_bias_sweep_figure:
    input:
        table="results/tables/forget_bias_sweep.csv",
    output:
        report(
            "results/figures/forget_bias_sweep.png",
            caption="../report/forget_bias_sweep_figure.rst",
            category="E. Reach and training dynamics",
            subcategory="E3 forget-bias sweep",
        ),
    log:
        "results/logs/forget_bias_sweep_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        figure="forget_bias_sweep",
    script:
        "../scripts/gate_figure.py"
