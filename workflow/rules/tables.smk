# The first tables: the GRU-against-LSTM comparison (D3, D4), the matched
# widths (A4's second table) and the validation curves (E2).


rule matched_widths:
    """Total parameters of every grid model and how each matched width was found."""
    input:
        provenance=CORPUS_PROVENANCE,
    output:
        reported("results/tables/matched_widths.csv", "A", "A4 parameter counts"),
    log:
        log_for("matched_widths"),
    conda:
        ENV
    params:
        code=code_version("matched_widths.py"),
        models=[PLAN.model_id(cell, width) for cell, width in PLAN.grid],
        reference_width=PLAN.reference_width,
        # the grid's model: embed_dim, layers, readout_norm, vocabulary
        train=PLAN.train_config("default"),
    script:
        "../scripts/matched_widths.py"


rule gru_vs_lstm:
    """Best validation loss per seed and the median, for the comparison's models (D3),
    with the median's interval over seeds and each model's gap to the LSTM, paired."""
    input:
        summaries=PLAN.grid_files("summary.json", models=PLAN.comparison),
    output:
        reported("results/tables/gru_vs_lstm.csv", "D", "D3 GRU against LSTM"),
    log:
        log_for("gru_vs_lstm"),
    conda:
        ENV
    params:
        reference_lstm=PLAN.comparison_ids["reference_lstm"],
        code=code_version("gru_vs_lstm.py"),
    script:
        "../scripts/gru_vs_lstm.py"


rule gru_advantage_split:
    """The LSTM-GRU gap split into structure (same width) and width (same budget) (D4)."""
    input:
        "results/tables/gru_vs_lstm.csv",
    output:
        reported(
            "results/tables/gru_advantage_split.csv", "D", "D4 structure and width"
        ),
    log:
        log_for("gru_advantage_split"),
    conda:
        ENV
    params:
        **PLAN.comparison_ids,
        code=code_version("gru_advantage_split.py"),
    script:
        "../scripts/gru_advantage_split.py"


rule val_loss_curves:
    """Validation loss against step for every trained grid model, long form (E2)."""
    input:
        histories=PLAN.grid_files("history.csv"),
        summaries=PLAN.grid_files("summary.json"),
    output:
        reported("results/tables/val_loss_curves.csv", "E", "E2 validation curves"),
    log:
        log_for("val_loss_curves"),
    conda:
        ENV
    params:
        code=code_version("val_loss_curves.py"),
    script:
        "../scripts/val_loss_curves.py"


rule val_loss_curves_figure:
    input:
        "results/tables/val_loss_curves.csv",
    output:
        reported("results/figures/val_loss_curves.png", "E", "E2 validation curves"),
    log:
        log_for("val_loss_curves_figure"),
    conda:
        ENV
    params:
        code=code_version("val_loss_curves_figure.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
    script:
        "../scripts/val_loss_curves_figure.py"
