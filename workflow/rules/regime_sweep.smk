# Which training regime the study's trained-gate findings depend on: the reference
# LSTM and the budget-matched GRU trained at every point of `regime_sweep` (each
# point is a regime, trained by the one `train` rule), reduced to one row per
# (cell, regime) by gatedrnn.tables.regime_sweep; the claims ledger re-judges every claim
# that has an `across_regimes` view against this table.


rule regime_sensitivity:
    """Best loss, gate means, unit half-lives and coupling per (cell, regime) of the sweep."""
    input:
        summaries=PLAN.regime_sweep_files("summary.json"),
        histories=PLAN.regime_sweep_files("history.csv"),
        gates=PLAN.regime_sweep_files("gates"),
    output:
        table=reported(REGIME_SENSITIVITY, "H"),
    log:
        log_for("regime_sensitivity"),
    conda:
        ENV
    params:
        code=code_version("regime_sensitivity.py"),
        points=list(PLAN.sweep_points),
    script:
        "../scripts/regime_sensitivity.py"


rule regime_sensitivity_figure:
    """Each statistic against the learning rate, one line per optimizer and length."""
    input:
        table=REGIME_SENSITIVITY,
    output:
        reported("results/figures/regime_sensitivity.png", "H"),
    log:
        log_for("regime_sensitivity_figure"),
    conda:
        ENV
    params:
        code=code_version("regime_sensitivity_figure.py", data=[PUBLISHED_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        models=PLAN.claim_models,
    script:
        "../scripts/regime_sensitivity_figure.py"
