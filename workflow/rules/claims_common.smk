# Helpers of claims.smk: where the claims files are (their tables are read when the
# DAG is built: Plan.claims_tables).

# Shipped with the workflow, so found beside the Snakefile whatever --directory is.
PUBLISHED = os.path.join(workflow.basedir, "config", "published.yaml")
# The answers to the open questions as ledger rows (rule: new), each under its
# question's switch: only the enabled questions' rows, and tables, are in the ledger.
NEW_FINDINGS = os.path.join(workflow.basedir, "config", "new_findings.yaml")
