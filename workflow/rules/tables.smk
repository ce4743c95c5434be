# The first tables: the GRU-against-LSTM comparison (D3, D4), the matched
# widths (A4's second table) and the validation curves (E2).

TABLE_TARGETS = [
    "results/tables/matched_widths.csv",
    "results/tables/gru_vs_lstm.csv",
    "results/tables/gru_advantage_split.csv",
    "results/tables/val_loss_curves.csv",
    "results/figures/val_loss_curves.png",
]


rule matched_widths:
    """Total parameters of every grid model and how each matched width was found."""
    input:
        provenance=CORPUS_PROVENANCE,
    output:
        report(
            "results/tables/matched_widths.csv",
            caption="../report/matched_widths.rst",
            category="A. Closed-form tables",
            subcategory="A4 parameter counts",
        ),
    log:
        "results/logs/matched_widths.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        models=[model_id(cell, width) for cell, width in GRID],
        reference_width=REFERENCE_WIDTH,
        embed_dim=config["train"]["embed_dim"],
        layers=config["train"]["layers"],
    script:
        "../scripts/matched_widths.py"


rule gru_vs_lstm:
    """Best validation loss per seed and the median, for the comparison's models (D3)."""
    input:
        summaries=grid_files("summary.json", models=COMPARISON),
    output:
        report(
            "results/tables/gru_vs_lstm.csv",
            caption="../report/gru_vs_lstm.rst",
            category="D. GRU against LSTM",
            subcategory="D3 GRU against LSTM",
        ),
    log:
        "results/logs/gru_vs_lstm.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/gru_vs_lstm.py"


rule gru_advantage_split:
    """The LSTM-GRU gap split into structure (same width) and width (same budget) (D4)."""
    input:
        "results/tables/gru_vs_lstm.csv",
    output:
        report(
            "results/tables/gru_advantage_split.csv",
            caption="../report/gru_advantage_split.rst",
            category="D. GRU against LSTM",
            subcategory="D4 structure and width",
        ),
    log:
        "results/logs/gru_advantage_split.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        reference_lstm=model_id(*REFERENCE_LSTM),
        width_matched_gru=model_id(*WIDTH_MATCHED_GRU),
        budget_matched_gru=model_id(*BUDGET_MATCHED_GRU),
    script:
        "../scripts/gru_advantage_split.py"


rule val_loss_curves:
    """Validation loss against step for every trained grid model, long form (E2)."""
    input:
        histories=grid_files("history.csv"),
        summaries=grid_files("summary.json"),
    output:
        report(
            "results/tables/val_loss_curves.csv",
            caption="../report/val_loss_curves.rst",
            category="E. Reach and training dynamics",
            subcategory="E2 validation curves",
        ),
    log:
        "results/logs/val_loss_curves.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/val_loss_curves.py"


rule val_loss_curves_figure:
    input:
        "results/tables/val_loss_curves.csv",
    output:
        report(
            "results/figures/val_loss_curves.png",
            caption="../report/val_loss_curves_figure.rst",
            category="E. Reach and training dynamics",
            subcategory="E2 validation curves",
        ),
    log:
        "results/logs/val_loss_curves_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    script:
        "../scripts/val_loss_curves_figure.py"
