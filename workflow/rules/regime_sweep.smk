# Which training regime the study's trained-gate findings depend on: the reference
# LSTM and the budget-matched GRU trained at every point of `regime_sweep` (each
# point is a regime, trained by the one `train` rule), reduced to one row per
# (cell, regime) by gatedrnn.tables.regime_sweep; the claims ledger re-judges every claim
# that has an `across_regimes` view against this table.

REGIME_SWEEP_TARGETS = (
    [REGIME_SENSITIVITY, "results/figures/regime_sensitivity.png"]
    if SWEEP_POINTS
    else []
)


rule regime_sensitivity:
    """Best loss, gate means, unit half-lives and coupling per (cell, regime) of the sweep."""
    input:
        summaries=regime_sweep_files("summary.json"),
        histories=regime_sweep_files("history.csv"),
        gates=regime_sweep_files("gates"),
    output:
        table=report(
            REGIME_SENSITIVITY,
            caption="../report/regime_sensitivity.rst",
            category="H. Regime sensitivity",
        ),
    log:
        "results/logs/regime_sensitivity.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        points=SWEEP_POINTS,
    script:
        "../scripts/regime_sensitivity.py"


rule regime_sensitivity_figure:
    """Each statistic against the learning rate, one line per optimizer and length."""
    input:
        table=REGIME_SENSITIVITY,
        published=PUBLISHED,
    output:
        report(
            "results/figures/regime_sensitivity.png",
            caption="../report/regime_sensitivity_figure.rst",
            category="H. Regime sensitivity",
        ),
    log:
        "results/logs/regime_sensitivity_figure.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        models=CLAIM_MODELS,
    script:
        "../scripts/regime_sensitivity_figure.py"
