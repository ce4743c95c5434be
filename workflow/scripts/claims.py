"""Rule claims (gatedrnn.claims): the ledger from workflow/resources/published.yaml, the enabled questions'
new findings (workflow/resources/new_findings.yaml) and the tables."""

from pathlib import Path

from gatedrnn.claims import (
    build_ledger,
    claim_tables,
    ledger_claims,
    read_tables,
    regime_tables,
    render_html,
    render_markdown,
    summary_line,
)
from gatedrnn.io.records import read_table
from gatedrnn.scripting import run_logged, workflow_file


def main(log):
    claims = ledger_claims(
        workflow_file(snakemake, snakemake.params.published),
        workflow_file(snakemake, snakemake.params.new_findings),
        enabled=snakemake.params.questions,
        known=snakemake.params.all_questions,
    )
    needed = claim_tables(claims)
    undeclared = sorted(set(needed) - set(snakemake.input.tables))
    if undeclared:
        raise ValueError(f"published.yaml reads tables the rule does not declare as inputs: {undeclared}")
    # the regime sweep's table when the sweep runs (regime_sweep.enabled)
    regimes = None
    if snakemake.input.regimes:
        named = regime_tables(claims)
        if named != list(snakemake.input.regimes):
            raise ValueError(
                f"published.yaml's across_regimes views read {named}; "
                f"the rule gives {list(snakemake.input.regimes)}"
            )
        regimes = read_table(snakemake.input.regimes[0])
    tables = read_tables(needed, rows=dict(snakemake.params.rows))
    ledger = build_ledger(claims, tables, dict(snakemake.params.models), regimes)
    ledger.to_csv(snakemake.output.csv, index=False)
    # a toy run's ledger says so first (gatedrnn.plan.toy)
    Path(snakemake.output.md).write_text(render_markdown(ledger, note=snakemake.params.toy))
    Path(snakemake.output.html).write_text(render_html(ledger, note=snakemake.params.toy))
    log(summary_line(ledger))
    log(ledger[["id", "published", "reproduced", "verdict"]].to_string(index=False))


run_logged(snakemake.log[0], main)
