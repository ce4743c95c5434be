"""The claims ledger (spec F): the study's numbers (``workflow/resources/published.yaml``) and the
new findings (``workflow/resources/new_findings.yaml``) judged against the tables.

Modules, lowest first: :mod:`.bands` (scales, bands and numbers), :mod:`.spec`
(the claims language: Claim, Selector, Comparison), :mod:`.load` (the YAML files),
:mod:`.select` (reading cells), :mod:`.judge` (rules and verdicts), :mod:`.ledger` (the ledger table) and
:mod:`.render` (Markdown and HTML). The language is documented for users in
``docs/claims-language.md``.
"""

from gatedrnn.claims.judge import judge, passes
from gatedrnn.claims.ledger import (
    LEDGER_COLUMNS,
    build_ledger,
    describe_regimes,
    summary_line,
    verdict_counts,
)
from gatedrnn.claims.load import (
    check_questions,
    claim_tables,
    ledger_claims,
    load_claims,
    parse_claims,
    regime_tables,
    select_questions,
)
from gatedrnn.claims.render import render_html, render_markdown
from gatedrnn.claims.select import read, read_tables
from gatedrnn.claims.spec import KINDS, VERDICTS, Claim, ClaimError, Comparison, NoMatch, Selector

__all__ = [
    "ledger_claims",
    "KINDS",
    "LEDGER_COLUMNS",
    "VERDICTS",
    "Claim",
    "ClaimError",
    "Comparison",
    "NoMatch",
    "Selector",
    "build_ledger",
    "check_questions",
    "claim_tables",
    "describe_regimes",
    "judge",
    "load_claims",
    "parse_claims",
    "passes",
    "read",
    "read_tables",
    "regime_tables",
    "render_html",
    "render_markdown",
    "select_questions",
    "summary_line",
    "verdict_counts",
]
