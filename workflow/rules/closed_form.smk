# Closed-form tables (A1-A5) and gradient reach at initialisation (B1).
# No rule here needs the corpus or a trained model; the protocols' parameters are
# the defaults of gatedrnn.analysis.closed_form and gatedrnn.analysis.reach.

CLOSED_FORM_TARGETS = [
    "results/tables/highway.csv",
    "results/tables/forget_bias_init.csv",
    "results/tables/cell_step_example.csv",
    "results/tables/param_counts.csv",
    "results/tables/gru_reset_placement.csv",
    "results/tables/gru_reset_placement_check.csv",
    "results/tables/grad_reach_init.csv",
    "results/figures/grad_reach_init.png",
    "results/figures/highway.png",
]


rule highway_table:
    """A1: gradient surviving a distance under a constant per-step factor."""
    output:
        table=report(
            "results/tables/highway.csv",
            caption="../report/highway.rst",
            category="A. Closed-form tables",
            subcategory="A1 gradient highway",
        ),
    log:
        "results/logs/highway_table.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="highway",
    script:
        "../scripts/closed_form_table.py"


rule forget_bias_init_table:
    """A2: sigmoid(b_f) at initialisation and its 10th, 47th, 100th powers."""
    output:
        table=report(
            "results/tables/forget_bias_init.csv",
            caption="../report/forget_bias_init.rst",
            category="A. Closed-form tables",
            subcategory="A2 forget bias at initialisation",
        ),
    log:
        "results/logs/forget_bias_init_table.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="forget_bias_init",
    script:
        "../scripts/closed_form_table.py"


rule cell_step_example_table:
    """A3: one LSTM step and one textbook GRU step on two units, every gate."""
    output:
        table=report(
            "results/tables/cell_step_example.csv",
            caption="../report/cell_step_example.rst",
            category="A. Closed-form tables",
            subcategory="A3 one cell step",
        ),
    log:
        "results/logs/cell_step_example_table.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="cell_step_example",
    script:
        "../scripts/closed_form_table.py"


rule param_counts_table:
    """A4: parameters per cell at d=100, H=500, one bias and PyTorch's two."""
    output:
        table=report(
            "results/tables/param_counts.csv",
            caption="../report/param_counts.rst",
            category="A. Closed-form tables",
            subcategory="A4 parameter counts",
        ),
    log:
        "results/logs/param_counts_table.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="param_counts",
    script:
        "../scripts/closed_form_table.py"


rule gru_reset_placement_table:
    """A5: reset before/after the matrix, an example and the numerical check."""
    output:
        table=report(
            "results/tables/gru_reset_placement.csv",
            caption="../report/gru_reset_placement.rst",
            category="A. Closed-form tables",
            subcategory="A5 reset placement",
        ),
        check=report(
            "results/tables/gru_reset_placement_check.csv",
            caption="../report/gru_reset_placement_check.rst",
            category="A. Closed-form tables",
            subcategory="A5 reset placement",
        ),
    log:
        "results/logs/gru_reset_placement_table.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        table="gru_reset_placement",
    script:
        "../scripts/closed_form_table.py"


rule grad_reach_init_table:
    """B1: gradient norm from the last output back to every input step."""
    output:
        table=report(
            "results/tables/grad_reach_init.csv",
            caption="../report/grad_reach_init.rst",
            category="B. Gradient reach at initialisation",
            subcategory="B1 gradient reach at initialisation",
        ),
    log:
        "results/logs/grad_reach_init_table.log",
    conda:
        "../../envs/gatedrnn.yaml"
    threads: 4
    script:
        "../scripts/grad_reach_init_table.py"


rule grad_reach_init_figure:
    """B1's figure: gradient norm against step, log scale."""
    input:
        table="results/tables/grad_reach_init.csv",
    output:
        figure=report(
            "results/figures/grad_reach_init.png",
            caption="../report/grad_reach_init_figure.rst",
            category="B. Gradient reach at initialisation",
            subcategory="B1 gradient reach at initialisation",
        ),
    log:
        "results/logs/grad_reach_init_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/grad_reach_init_figure.py"


rule highway_figure:
    """A1 and A2's figure: decay under a constant factor, log scale."""
    input:
        highway="results/tables/highway.csv",
        forget_bias_init="results/tables/forget_bias_init.csv",
    output:
        figure=report(
            "results/figures/highway.png",
            caption="../report/highway_figure.rst",
            category="A. Closed-form tables",
            subcategory="A1 gradient highway",
        ),
    log:
        "results/logs/highway_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/highway_figure.py"
