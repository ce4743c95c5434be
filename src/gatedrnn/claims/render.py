"""The ledger for readers: Markdown (``results/claims.md``) and a self-contained HTML
fragment (``results/claims.html``, the report's front page)."""

from __future__ import annotations

import html

import pandas as pd

from gatedrnn.claims.ledger import summary_line, verdict_counts
from gatedrnn.claims.spec import VERDICTS

FAMILIES = {
    "A": "Closed-form tables",
    "B": "Gradient reach at initialisation",
    "C": "The trained LSTM's gates",
    "D": "GRU against LSTM",
    "E": "Reach and training dynamics",
    "G": "Beyond the study (new findings)",
}


def _md_cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def render_markdown(ledger: pd.DataFrame, title: str = "The claims ledger") -> str:
    """The ledger for a reader: summary line first, then one table per experiment family."""
    lines = [
        title,
        "=" * len(title),
        "",
        f"**{summary_line(ledger)}**",
        "",
        "Each row is one number (or finding) of the published study, the value this run "
        "reproduced, where it was read from and the verdict: `exact` (closed-form or "
        "protocol-identical, equal within the stated tolerance), `within` (a trained "
        "value inside its stated band), `direction` (the finding holds) or `differs`; "
        "`new` marks an answer to a question the study left open (no published value; "
        "`config/new_findings.yaml`). "
        "Published values and rules live in `config/published.yaml`; this file is made "
        "by the workflow's `claims` rule from the tables. *Across regimes*: where the "
        "regime sweep ran, the same claim judged under every training regime of "
        "`results/tables/regime_sensitivity.csv` (optimizer, learning rate, steps).",
        "",
    ]
    header = "| id | claim | published | reproduced | rule | verdict | across regimes | read from |"
    for family, group in ledger.groupby(ledger["experiment"].str[0], sort=True):
        counts = verdict_counts(group)
        name = f"{family}. {FAMILIES[family]}" if family in FAMILIES else family
        lines += [
            f"## {name}: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n),
            "",
            header,
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in group.itertuples(index=False):
            rule = row.rule + (f" ({row.tolerance})" if row.tolerance else "")
            where = f"`{row.table}` {row.column}" + (f" [{row.selector}]" if row.selector else "")
            cells = [
                row.id,
                row.description,
                row.published,
                row.reproduced,
                rule,
                f"**{row.verdict}**",
                row.regimes,
                where,
            ]
            lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


HTML_STYLE = """
.claims-ledger { font-family: system-ui, sans-serif; font-size: 12px; }
.claims-ledger table { border-collapse: collapse; width: 100%; }
.claims-ledger th, .claims-ledger td { border-bottom: 1px solid #ddd; padding: 2px 4px;
  text-align: left; vertical-align: top; }
.claims-ledger td.verdict { font-weight: bold; }
.claims-ledger tr.exact td.verdict { color: #146c2e; }
.claims-ledger tr.within td.verdict { color: #1a5fb4; }
.claims-ledger tr.direction td.verdict { color: #9c6500; }
.claims-ledger tr.differs td.verdict { color: #b3261e; }
.claims-ledger tr.new td.verdict { color: #6a1b9a; }
.claims-ledger .what { color: #555; font-size: 11px; }
.claims-ledger code::before, .claims-ledger code::after { content: none; }
.claims-ledger table.families { width: auto; margin-bottom: 1em; }
.claims-ledger table.families td { text-align: right; }
"""


def render_html(ledger: pd.DataFrame, title: str = "The claims ledger") -> str:
    """A self-contained HTML fragment: summary and a compact table (id and claim,
    published, reproduced, verdict; the rule and source in each row's tooltip)."""
    esc = html.escape
    counts = verdict_counts(ledger)
    rows = []
    for row in ledger.itertuples(index=False):
        tip = f"{row.rule} {row.tolerance}; read from {row.table} {row.column} [{row.selector}]"
        rows.append(
            f'<tr class="claim {esc(row.verdict)}" data-claim-id="{esc(row.id)}" title="{esc(tip)}">'
            f'<td><code>{esc(row.id)}</code><div class="what">{esc(row.description)}</div></td>'
            f"<td>{esc(str(row.published))}</td><td>{esc(str(row.reproduced))}</td>"
            f'<td class="verdict">{esc(row.verdict)}</td>'
            f'<td class="regimes">{esc(str(row.regimes))}</td></tr>'
        )
    summary = ", ".join(f'<span class="count {v}">{n} {v}</span>' for v, n in counts.items())
    families = ["<tr><th>family</th>" + "".join(f"<th>{v}</th>" for v in VERDICTS) + "</tr>"]
    for family, group in ledger.groupby(ledger["experiment"].str[0], sort=True):
        name = f"{family}. {FAMILIES[family]}" if family in FAMILIES else family
        cells = "".join(f"<td>{n}</td>" for n in verdict_counts(group).values())
        families.append(f'<tr class="family"><th>{esc(name)}</th>{cells}</tr>')
    return "\n".join(
        [
            f"<style>{HTML_STYLE}</style>",
            '<div class="claims-ledger">',
            f"<h2>{esc(title)}</h2>",
            f'<p class="summary"><b>{len(ledger)} claims:</b> {summary}</p>',
            '<table class="families">',
            *families,
            "</table>",
            "<table><thead><tr><th>claim</th><th>published</th><th>reproduced</th><th>verdict</th>"
            "<th>across regimes</th></tr>"
            "</thead><tbody>",
            *rows,
            "</tbody></table>",
            "</div>",
            "",
        ]
    )
