# Which training regime the study's trained-gate findings depend on: the reference
# LSTM and the budget-matched GRU trained at every point of `regime_sweep` (each
# point is a regime, trained by the one `train` rule), reduced to one row per
# (cell, regime) by gatedrnn.tables.regime_sweep; the claims ledger re-judges every claim
# that has an `across_regimes` view against this table. Every model is first reduced to
# its seed row (a small file, collected with the tables), and every table of regimes
# (this one, the corpus sizes, the protocol search's rounds) averages seed rows: a part
# of the reference collected on one machine goes on from them on another.


rule regime_seed_row:
    """One regime sweep model's statistics: its loss curve and its gates on the probe set."""
    input:
        summary=model_file(ANY_RUN, "summary.json"),
        history=model_file(ANY_RUN, "history.csv"),
        gates=gate_file(ANY_RUN),
    output:
        # results/regime_runs/{regime}/{cell}_{width}_s{seed}.json
        row=seed_row_file(ANY_RUN),
    log:
        log_for(f"regime_runs/{ANY_RUN.path}"),
    conda:
        ENV
    params:
        code=code_version("regime_seed_row.py"),
    script:
        "../scripts/regime_seed_row.py"


rule regime_sensitivity:
    """Best loss, gate means, unit half-lives and coupling per (cell, regime) of the sweep."""
    input:
        rows=PLAN.regime_sweep_files("seed_row"),
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
