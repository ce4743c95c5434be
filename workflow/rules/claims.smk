# The claims ledger (spec F): every number of config/published.yaml judged against the
# table it names, then the new findings of config/new_findings.yaml (spec G, the
# enabled open questions only). The rule's inputs are exactly those tables, read from
# both files when the DAG is built, so `snakemake results/claims.csv` runs what the
# ledger needs.

CLAIMS_TARGETS = [
    "results/claims.csv",
    "results/claims.md",
    "results/claims.html",
]


include: "claims_common.smk"


rule claims:
    """The ledger: published value, reproduced value, where it was read, verdict."""
    input:
        published=PUBLISHED,
        new_findings=NEW_FINDINGS,
        tables=sorted(
            set(published_tables())
            | set(published_tables(NEW_FINDINGS, ENABLED_QUESTIONS))
        ),
        # the regime sweep's table, for the "holds under ..., differs under ..." column
        regimes=[REGIME_SENSITIVITY] if SWEEP_POINTS else [],
    output:
        csv=report(
            "results/claims.csv",
            caption="../report/claims_csv.rst",
            category="0. Claims ledger",
        ),
        md=report(
            "results/claims.md",
            caption="../report/claims_md.rst",
            category="0. Claims ledger",
        ),
        html=report(
            "results/claims.html",
            caption="../report/claims_html.rst",
            category="0. Claims ledger",
        ),
    log:
        "results/logs/claims.log",
    conda:
        "../../envs/gatedrnn.yaml"
    params:
        models=CLAIM_MODELS,
        questions=ENABLED_QUESTIONS,
        all_questions=list(config["open_questions"]),
    script:
        "../scripts/claims.py"
