# Helpers of claims.smk: where the claims files are (their tables are read when the
# DAG is built: Plan.claims_tables).
#
# Both files ship with the workflow (workflow/resources/: the study's values and the
# project's findings, not settings, so a deployment's copy of config/ does not hold
# them). They are not inputs (an input path would be absolute, and a finished run
# moved elsewhere would look out of date): the rules that read them name them
# relative to the checkout, and their bytes are part of the rule's code version, so
# an edit reruns the ledger.
PUBLISHED_CLAIMS = "workflow/resources/published.yaml"
# The answers to the open questions as ledger rows (rule: new), each under its
# question's switch: only the enabled questions' rows, and tables, are in the ledger.
NEW_FINDINGS_CLAIMS = "workflow/resources/new_findings.yaml"
PUBLISHED = os.path.join(WORKFLOW_ROOT, PUBLISHED_CLAIMS)
NEW_FINDINGS = os.path.join(WORKFLOW_ROOT, NEW_FINDINGS_CLAIMS)
# The tables of the claims with an `across_regimes` view: a regime is judged by the band
# of the claim itself (its seeds' spread), so the scoreboard of regimes reads them too.
REGIME_VIEW_TABLES = regime_view_tables(PUBLISHED)
