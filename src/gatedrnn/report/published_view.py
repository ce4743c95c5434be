"""The study's numbers beside the reference run's, for docs/results.md and the README:
each table's claims (published value, ours, band, verdict) read from the claims
ledger, the first screen that answers "does it reproduce?", and where each figure
is shown. Every number is a cell of the ledger, which the ledger code computed
from ``reference/tables/``; nothing here is typed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from gatedrnn.claims.ledger import summary_line, verdict_counts
from gatedrnn.claims.render import FAMILIES
from gatedrnn.report.verdict_words import reproduce_sentences, this_run

# figure -> the table whose section shows it (the table it draws, or the first of them)
FIGURE_TABLES = {
    "highway.png": "highway.csv",
    "grad_reach_init.png": "grad_reach_init.csv",
    "lstm_cell_decay.png": "lstm_cell_decay.csv",
    "gru_vs_lstm_gates.png": "unit_half_lives.csv",
    "hidden_perturbation_decay.png": "hidden_perturbation_decay.csv",
    "val_loss_curves.png": "val_loss_curves.csv",
    "forget_bias_sweep.png": "forget_bias_sweep.csv",
    "regime_sensitivity.png": "regime_sensitivity.csv",
    "split_by_width.png": "split_by_width.csv",
    "longer_training.png": "longer_training.csv",
    "protocol_scoreboard.png": "protocol_scoreboard.csv",
    "protocol_round_two_front.png": "protocol_scoreboard.csv",
}
# The figure the first screen shows: the study's central comparison, GRU against LSTM.
HEADLINE_FIGURE = "val_loss_curves.png"
# The findings the study is known for (claim ids of workflow/resources/published.yaml):
# forget gate near 0.5, half-lives of about a character, no coupling of i and f, the
# GRU ahead at the same budget, and that lead half from structure, half from width.
HEADLINE_FINDINGS = (
    "C2.finding.forget_mean_near_half",
    "C3.finding.half_life_median_short",
    "D2.finding.not_coupled",
    "D3.finding.gru_budget_beats_lstm",
    "D4.finding.about_half_and_half",
)


# Findings that a part further down the results page explains: claim id -> that part's
# heading (written by gatedrnn.report.protocol_page); a failing or inconclusive row links it.
INVERSION_HEADING = "E3's inversion, checked"
EXPLAINED = {"E3.finding.open_forget_gate_extends_state": INVERSION_HEADING}
# What makes two ledger rows the same row on the page (two claims reading one number).
SAME_ROW = ("published", "reproduced", "interval", "band", "verdict", "finding")


def anchor(heading: str) -> str:
    """GitHub's id of a Markdown heading (lower case, punctuation dropped, spaces to hyphens)."""
    return re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")


def explained(claim_id: str, verdict: str) -> str:
    """``fails (why: [E3's inversion, checked](#e3s-inversion-checked))`` for a failing or
    inconclusive finding the page explains further down; else the verdict."""
    heading = EXPLAINED.get(str(claim_id))
    if heading is None or verdict not in ("fails", "inconclusive"):
        return verdict
    return f"{verdict} (why: [{heading}](#{anchor(heading)}), below)"


def _cell(value) -> str:
    text = str(value).strip()
    return text.replace("|", "\\|") if text else "–"


def _rows(frame: pd.DataFrame, columns: dict[str, str]) -> list[str]:
    """A Markdown table of ``frame``'s ``columns`` (name -> heading), cells as the ledger wrote them."""
    lines = ["| " + " | ".join(columns.values()) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for _, row in frame.iterrows():
        lines.append("| " + " | ".join(_cell(row[name]) for name in columns) + " |")
    return lines


def verdict_cell(row) -> str:
    """``differs; finding holds``: the row's verdict, and that of the finding it bears on."""
    verdict = explained(row.get("id", ""), row["verdict"])
    return verdict + (f"; finding {row['finding']}" if str(row["finding"]).strip() else "")


def claims_of_table(ledger: pd.DataFrame | None, table: str) -> pd.DataFrame:
    """The ledger's rows read from ``table`` (a file name under tables/), verdict column filled."""
    if ledger is None:
        return pd.DataFrame()
    rows = ledger[ledger["table"].map(lambda path: Path(str(path)).name == table)].copy()
    rows["verdict_shown"] = [verdict_cell(row) for _, row in rows.iterrows()]
    return rows


def repeats(ledger: pd.DataFrame, rows: pd.DataFrame) -> dict[str, str]:
    """``id -> earlier id`` for each of ``rows`` that repeats a row of an earlier
    experiment's table (the same published value, value, interval, band and verdicts:
    D5's LSTM half-lives are C3's), which the page has shown already."""
    if not set(SAME_ROW) <= set(ledger.columns):
        return {}
    key = lambda row: tuple(str(row[c]).strip() for c in SAME_ROW)  # noqa: E731
    first = {}
    for _, row in ledger.iterrows():
        if str(row["interval"]).strip():  # trained rows; a closed form's 0 is not another's
            first.setdefault(key(row), row)
    found = {}
    for _, row in rows.iterrows():
        earlier = first.get(key(row))
        if earlier is not None and str(earlier["experiment"]) < str(row["experiment"]):
            found[row["id"]] = earlier["id"]
    return found


def published_beside_ours(ledger: pd.DataFrame | None, table: str) -> list[str]:
    """The study's values beside ours for one table: one row per claim read from it, a
    row shown in an earlier section named instead of printed twice."""
    rows = claims_of_table(ledger, table)
    if rows.empty:
        return []
    repeated = repeats(ledger, rows)
    rows = rows[~rows["id"].isin(repeated)]
    columns = {"description": "quantity", "published": "published", "reproduced": "ours",
               "interval": "over seeds", "band": "margin", "verdict_shown": "verdict"}  # fmt: skip
    if "interval" not in rows.columns:  # a ledger written before the intervals
        columns.pop("interval")
    intro = (
        "The study beside this run (a trained value is the median over seeds, with its interval over "
        "the seeds or, for a finding, the share of seed bootstraps in which it holds; the claims "
        "ledger's verdicts):"
    )
    out = [intro, "", *_rows(rows, columns), ""]
    if repeated:
        names = ", ".join(f"`{i}` (as `{earlier}`)" for i, earlier in repeated.items())
        experiments = ", ".join(dict.fromkeys(e.split(".")[0] for e in repeated.values()))
        out += [f"Shown in {experiments} above, the same numbers and verdicts, not repeated: {names}.", ""]
    return out


def figure_lines(reference: Path, figure: str, prefix: str = "../reference/figures") -> list[str]:
    """The figure inline, where the reference has it."""
    if not (reference / "figures" / figure).exists():
        return []
    name = figure.removesuffix(".png").replace("_", " ")
    return [f"![{name}]({prefix}/{figure})", "", f"*Figure: `reference/figures/{figure}`.*", ""]


def figures_of_table(reference: Path, table: str) -> list[str]:
    lines = []
    for figure, shown_with in FIGURE_TABLES.items():
        if shown_with == table:
            lines += figure_lines(reference, figure)
    return lines


def unplaced_figures(reference: Path, placed_tables: set[str]) -> list[str]:
    """Figures of the reference whose table has no section on the page (shown at its end)."""
    figures = sorted(p.name for p in (reference / "figures").glob("*.png"))
    return [f for f in figures if FIGURE_TABLES.get(f) not in placed_tables]


def family_counts_table(ledger: pd.DataFrame) -> list[str]:
    """One row per family: the ledger's counts (:func:`gatedrnn.claims.ledger.verdict_counts`),
    zero columns left out."""
    family = ledger["experiment"].str[0]
    rows = {
        f"{f}. {FAMILIES.get(f, f)}": verdict_counts(ledger[family == f]) for f in sorted(family.unique())
    }
    rows["all"] = verdict_counts(ledger)
    shown = [label for label, count in rows["all"].items() if count]
    frame = pd.DataFrame([{"family": name} | {label: counts[label] for label in shown}
                          for name, counts in rows.items()])  # fmt: skip
    return _rows(frame.astype(str), {c: c for c in frame.columns})


def findings_table(rows: pd.DataFrame) -> list[str]:
    """The findings with the study's number, this run's with its share of seed
    bootstraps (:func:`gatedrnn.report.verdict_words.this_run`), and the verdict."""
    columns = {"id": "claim", "description": "finding", "published": "the study",
               "this_run": "this run (share of seed bootstraps)", "verdict": "verdict"}  # fmt: skip
    shown = rows.assign(
        id=rows["id"].map(lambda i: f"`{i}`"),
        this_run=[this_run(r) for r in rows.itertuples()],
        verdict=[explained(i, v) for i, v in zip(rows["id"], rows["verdict"], strict=True)],
    )
    return _rows(shown, columns)


def headline_findings(ledger: pd.DataFrame) -> pd.DataFrame:
    rows = ledger.set_index("id", drop=False)
    return rows.loc[[i for i in HEADLINE_FINDINGS if i in rows.index]]


def first_screen(reference: Path, ledger: pd.DataFrame | None, complete: bool) -> list[str]:
    """ "Does it reproduce?": the ledger's counts per family, the headline findings with
    the study's number and ours, every other finding that fails, the headline figure."""
    out = ["## Does it reproduce?", ""]
    if ledger is None:
        return [*out, "No claim can be judged yet: no stage's tables are in `reference/`.", ""]
    scope = (
        "every stage is in"
        if complete
        else "judged on the stages collected so far; claims whose tables are still to come are left out"
    )
    out += [" ".join(reproduce_sentences(ledger)), "",
            "**The study's headline findings**, the study's numbers beside this run's:", "",
            *findings_table(headline_findings(ledger)), "",
            f"The claims ledger, {len(ledger)} claims ({scope}), by family; the closed-form and "
            "protocol rows (arithmetic) are counted apart from the trained values and findings:", "",
            *family_counts_table(ledger), ""]  # fmt: skip
    others = ledger[ledger["rule"].eq("direction") & ledger["verdict"].isin(["fails", "inconclusive"])
                    & ~ledger["id"].isin(HEADLINE_FINDINGS)]  # fmt: skip
    if not others.empty:
        out += ["**Other findings that fail or are inconclusive here:**", "", *findings_table(others), ""]
    out += figure_lines(reference, HEADLINE_FIGURE)
    return out


def readme_findings(ledger: pd.DataFrame, complete: bool) -> list[str]:
    """The README's short form: the ledger's counts, then each headline finding in one
    line, the study's number and ours."""
    scope = "" if complete else " (on the stages collected so far)"
    lines = [f"**Does it reproduce{scope}?** " + " ".join(reproduce_sentences(ledger)), "",
             f"The claims ledger: {summary_line(ledger)}.", "",
             "The study's headline findings:", ""]  # fmt: skip
    for row in headline_findings(ledger).itertuples():
        lines.append(f"- **{row.verdict}**: {row.description}. Study: {row.published}; "
                     f"this run: {this_run(row)}.")  # fmt: skip
    return lines


def once(lines: list[str]) -> list[str]:
    """A section's lines without the headline figure, which the first screen shows."""
    shown = f"figures/{HEADLINE_FIGURE}"
    kept = [line for line in lines if shown not in line]
    if len(kept) < len(lines):
        kept.append(f"Its figure, `{HEADLINE_FIGURE}`, is at the top of this page (*Does it reproduce?*).")
        kept.append("")
    return kept
