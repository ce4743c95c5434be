# Closed-form tables (A1-A5) and gradient reach at initialisation (B1).
# No rule here needs the corpus or a trained model; the protocols' parameters are
# the defaults of gatedrnn.analysis.closed_form and gatedrnn.analysis.reach.


rule highway_table:
    """A1: gradient surviving a distance under a constant per-step factor."""
    output:
        table=reported("results/tables/highway.csv", "A", "A1 gradient highway"),
    log:
        log_for("highway_table"),
    conda:
        ENV
    params:
        code=code_version("closed_form_table.py"),
        table="highway",
    script:
        "../scripts/closed_form_table.py"


rule forget_bias_init_table:
    """A2: sigmoid(b_f) at initialisation and its 10th, 47th, 100th powers."""
    output:
        table=reported(
            "results/tables/forget_bias_init.csv",
            "A",
            "A2 forget bias at initialisation",
        ),
    log:
        log_for("forget_bias_init_table"),
    conda:
        ENV
    params:
        code=code_version("closed_form_table.py"),
        table="forget_bias_init",
    script:
        "../scripts/closed_form_table.py"


rule cell_step_example_table:
    """A3: one LSTM step and one textbook GRU step on two units, every gate."""
    output:
        table=reported("results/tables/cell_step_example.csv", "A", "A3 one cell step"),
    log:
        log_for("cell_step_example_table"),
    conda:
        ENV
    params:
        code=code_version("closed_form_table.py"),
        table="cell_step_example",
    script:
        "../scripts/closed_form_table.py"


rule param_counts_table:
    """A4: parameters per cell at d=100, H=500, one bias and PyTorch's two."""
    output:
        table=reported("results/tables/param_counts.csv", "A", "A4 parameter counts"),
    log:
        log_for("param_counts_table"),
    conda:
        ENV
    params:
        code=code_version("closed_form_table.py"),
        table="param_counts",
    script:
        "../scripts/closed_form_table.py"


rule gru_reset_placement_table:
    """A5: reset before/after the matrix, an example and the numerical check."""
    output:
        table=reported(
            "results/tables/gru_reset_placement.csv", "A", "A5 reset placement"
        ),
        check=reported(
            "results/tables/gru_reset_placement_check.csv", "A", "A5 reset placement"
        ),
    log:
        log_for("gru_reset_placement_table"),
    conda:
        ENV
    params:
        code=code_version("closed_form_table.py"),
        table="gru_reset_placement",
    script:
        "../scripts/closed_form_table.py"


rule grad_reach_init_table:
    """B1: gradient norm from the last output back to every input step."""
    output:
        table=reported(
            "results/tables/grad_reach_init.csv",
            "B",
            "B1 gradient reach at initialisation",
        ),
    log:
        log_for("grad_reach_init_table"),
    conda:
        ENV
    threads: 4
    params:
        code=code_version("grad_reach_init_table.py"),
    script:
        "../scripts/grad_reach_init_table.py"


rule grad_reach_init_figure:
    """B1's figure: gradient norm against step, log scale."""
    input:
        table="results/tables/grad_reach_init.csv",
    output:
        figure=reported(
            "results/figures/grad_reach_init.png",
            "B",
            "B1 gradient reach at initialisation",
        ),
    log:
        log_for("grad_reach_init_figure"),
    conda:
        ENV
    params:
        code=code_version("grad_reach_init_figure.py"),
    script:
        "../scripts/grad_reach_init_figure.py"


rule highway_figure:
    """A1 and A2's figure: decay under a constant factor, log scale."""
    input:
        highway="results/tables/highway.csv",
        forget_bias_init="results/tables/forget_bias_init.csv",
    output:
        figure=reported("results/figures/highway.png", "A", "A1 gradient highway"),
    log:
        log_for("highway_figure"),
    conda:
        ENV
    params:
        code=code_version("highway_figure.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
    script:
        "../scripts/highway_figure.py"
