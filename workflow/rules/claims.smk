# The claims ledger (spec F): every number of workflow/resources/published.yaml judged against the
# table it names, then the new findings of workflow/resources/new_findings.yaml (spec G, the
# enabled open questions only). The rule's inputs are exactly those tables, read from
# both files when the DAG is built, so `snakemake results/claims.csv` runs what the
# ledger needs.

# (claims_common.smk, where the claims files are, is included by common.smk: the figure
# rules read published.yaml too.)


rule claims:
    """The ledger: published value, reproduced value, where it was read, verdict."""
    input:
        tables=PLAN.claims_tables(PUBLISHED, NEW_FINDINGS),
        # the regime sweep's table, for the "holds under ..., differs under ..." column
        regimes=[REGIME_SENSITIVITY] if PLAN.sweep_points else [],
    output:
        csv=reported("results/claims.csv", "0"),
        md=reported("results/claims.md", "0"),
        html=reported("results/claims.html", "0"),
    log:
        log_for("claims"),
    conda:
        ENV
    params:
        code=code_version("claims.py", data=[PUBLISHED_CLAIMS, NEW_FINDINGS_CLAIMS]),
        published=PUBLISHED_CLAIMS,
        new_findings=NEW_FINDINGS_CLAIMS,
        models=PLAN.claim_models,
        questions=PLAN.enabled_questions,
        all_questions=list(config["open_questions"]),
        # what each per-run table holds under this config: a table that lost rows is refused
        rows=table_rows(PLAN),
        toy=TOY_NOTE,
    script:
        "../scripts/claims.py"
