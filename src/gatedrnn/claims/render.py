"""The ledger for readers: Markdown (``results/claims.md``) and a self-contained HTML
fragment (``results/claims.html``, the report's front page)."""

from __future__ import annotations

import html

import pandas as pd

from gatedrnn.claims.ledger import COUNTS, summary_line, verdict_counts

FAMILIES = {
    "A": "Closed-form tables",
    "B": "Gradient reach at initialisation",
    "C": "The trained LSTM's gates",
    "D": "GRU against LSTM",
    "E": "Reach and training dynamics",
    "G": "Beyond the study (new findings)",
}
# The four counts every family states (the others only where they are not zero).
TRAINED_COUNTS = ("values reproduced", "findings hold", "values differ", "findings fail")

READING = (
    "Each row is one number (or finding) of the published study, the value this run "
    "reproduced, where it was read from and the verdict. A trained or measured **value** is "
    "`within` its band (the run's own seed range, or a tolerance its entry states and "
    "justifies) or `differs`; beside a value, *finding holds* / *finding fails* gives the "
    "verdict of the finding it bears on, which is counted once, on its own row. A "
    "**finding** `holds` or `fails`. **Arithmetic and protocol** rows (closed forms, "
    "counts the protocol fixes) are `exact` or `differs` and are kept out of the trained "
    "counts; `new` marks an answer to a question the study left open (no published value; "
    "`workflow/resources/new_findings.yaml`). Published values, rules and bands live in "
    "`workflow/resources/published.yaml` (format: `docs/claims-language.md`); this file is made by "
    "the workflow's `claims` rule from the tables. *Across regimes*: where the regime "
    "sweep ran, the same claim judged under every training regime of "
    "`results/tables/regime_sensitivity.csv` (optimizer, learning rate, steps)."
)


def family_name(family: str) -> str:
    return f"{family}. {FAMILIES[family]}" if family in FAMILIES else family


def family_counts(counts: dict[str, int]) -> str:
    """``2 values reproduced, 1 findings hold, 5 values differ, 0 findings fail`` (then
    the arithmetic and new counts that are not zero)."""
    shown = [label for label, _, _ in COUNTS if label in TRAINED_COUNTS or counts[label]]
    if not any(counts[label] for label in TRAINED_COUNTS):
        shown = [label for label in shown if label not in TRAINED_COUNTS]
    return ", ".join(f"{counts[label]} {label}" for label in shown)


def verdict_text(row) -> str:
    """``differs (value 1.576 vs 1.645, band ±0.015); finding holds``."""
    text = row.verdict
    if row.verdict == "differs" and row.rule == "within" and not row.reproduced.startswith("missing"):
        band = f", band {row.band}" if row.band else ""
        text += f" (value {row.reproduced} vs {row.published}{band})"
    if row.finding:
        text += f"; finding {row.finding}"
    return text


def _md_cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def render_markdown(ledger: pd.DataFrame, title: str = "The claims ledger", note: str = "") -> str:
    """The ledger for a reader: summary line and counts by family first, then one
    table per experiment family. ``note``: a paragraph above all (a toy run's)."""
    families = list(ledger.groupby(ledger["experiment"].str[0], sort=True))
    labels = [label for label, _, _ in COUNTS]
    lines = [title, "=" * len(title), "", *([f"> **{note}**", ""] if note else [])]
    lines += [f"**{summary_line(ledger)}**", "", READING, ""]
    lines += ["| family | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for family, group in families:
        counts = verdict_counts(group)
        lines.append(
            f"| {family_name(family)} | " + " | ".join(str(counts[label]) for label in labels) + " |"
        )
    lines.append("")
    header = "| id | claim | published | reproduced | rule | verdict | across regimes | read from |"
    for family, group in families:
        lines += [
            f"## {family_name(family)}: {family_counts(verdict_counts(group))}",
            "",
            header,
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in group.itertuples(index=False):
            rule = row.rule + (f" ({row.tolerance})" if row.tolerance else "")
            where = f"`{row.table}` {row.column}" + (f" [{row.selector}]" if row.selector else "")
            verdict = f"**{row.verdict}**" + verdict_text(row).removeprefix(row.verdict)
            cells = [
                row.id,
                row.description,
                row.published,
                row.reproduced,
                rule,
                verdict,
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
.claims-ledger td.verdict .note { font-weight: normal; }
.claims-ledger tr.exact td.verdict { color: #146c2e; }
.claims-ledger tr.within td.verdict, .claims-ledger tr.holds td.verdict { color: #1a5fb4; }
.claims-ledger tr.differs td.verdict, .claims-ledger tr.fails td.verdict { color: #b3261e; }
.claims-ledger tr.new td.verdict { color: #6a1b9a; }
.claims-ledger .what { color: #555; font-size: 11px; }
.claims-ledger code::before, .claims-ledger code::after { content: none; }
.claims-ledger table.families { width: auto; margin-bottom: 1em; }
.claims-ledger table.families td { text-align: right; }
"""


def render_html(ledger: pd.DataFrame, title: str = "The claims ledger", note: str = "") -> str:
    """A self-contained HTML fragment: summary, counts by family and a compact table
    (id and claim, published, reproduced, verdict; the rule and source in each row's
    tooltip). ``note``: a paragraph above all (a toy run's)."""
    esc = html.escape
    rows = []
    for row in ledger.itertuples(index=False):
        tip = f"{row.kind}: {row.rule} {row.tolerance}; read from {row.table} {row.column} [{row.selector}]"
        said = verdict_text(row).removeprefix(row.verdict)
        rows.append(
            f'<tr class="claim {esc(row.verdict)}" data-claim-id="{esc(row.id)}" data-kind="{esc(row.kind)}" '
            f'title="{esc(tip)}">'
            f'<td><code>{esc(row.id)}</code><div class="what">{esc(row.description)}</div></td>'
            f"<td>{esc(str(row.published))}</td><td>{esc(str(row.reproduced))}</td>"
            f'<td class="verdict">{esc(row.verdict)}<span class="note">{esc(said)}</span></td>'
            f'<td class="regimes">{esc(str(row.regimes))}</td></tr>'
        )
    labels = [label for label, _, _ in COUNTS]
    families = ["<tr><th>family</th>" + "".join(f"<th>{esc(label)}</th>" for label in labels) + "</tr>"]
    for family, group in ledger.groupby(ledger["experiment"].str[0], sort=True):
        counts = verdict_counts(group)
        cells = "".join(f"<td>{counts[label]}</td>" for label in labels)
        families.append(f'<tr class="family"><th>{esc(family_name(family))}</th>{cells}</tr>')
    return "\n".join(
        [
            f"<style>{HTML_STYLE}</style>",
            '<div class="claims-ledger">',
            f"<h2>{esc(title)}</h2>",
            *([f'<p class="toy-run"><strong>{esc(note)}</strong></p>'] if note else []),
            f'<p class="summary">{esc(summary_line(ledger))}</p>',
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
