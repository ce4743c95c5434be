""" "Does it reproduce?" in words: the first sentences of ``docs/results.md`` and of the
README's summary, generated from the ledger (issue #47).

Three to five sentences: the trained values and findings by verdict (closed-form and
protocol rows counted apart), the families that reproduce and those that do not, by
how much (the loss offset in nats/char, the gates' saturation), what is inconclusive
and what more seeds would settle. Every number is read from the ledger's rows.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from gatedrnn.claims.ledger import verdict_counts
from gatedrnn.claims.render import FAMILIES

# The rows the sentences quote (ids of published.yaml); a ledger without one of them
# (a partial reference) leaves its sentence out.
LOSS_ROWS = (
    "D3.gru_vs_lstm.lstm.median",
    "D3.gru_vs_lstm.gru_w325.median",
    "D3.gru_vs_lstm.gru_budget.median",
)
SATURATION_ROWS = ("C2.lstm_gates.forget.p5", "C2.lstm_gates.forget.p95", "D1.gru_gates.update.p5")


def _number(text) -> float:
    try:
        return float(str(text).split()[0])
    except (ValueError, IndexError):
        return math.nan


def study_value(published: str) -> float:
    """The study's number in a ledger cell: a value, or the median of its seeds
    (``LOW .. HIGH (N seeds, median M)`` gives M)."""
    found = re.search(r"median ([-0-9.e]+)", str(published))
    return float(found[1]) if found else _number(published)


def _rows(ledger: pd.DataFrame, ids) -> pd.DataFrame:
    rows = ledger.set_index("id", drop=False)
    return rows.loc[[i for i in ids if i in rows.index]]


def _count_sentence(ledger: pd.DataFrame) -> str:
    n = verdict_counts(ledger)
    values = n["values reproduced"] + n["values differ"] + n["values inconclusive"]
    findings = n["findings hold"] + n["findings fail"] + n["findings inconclusive"]
    arithmetic = n["arithmetic agree"] + n["arithmetic differ"]
    answer = (
        "Mostly not" if n["values differ"] > n["values reproduced"] + n["values inconclusive"] else "In part"
    )
    return (
        f"{answer}: of the {values} trained values the study printed, {n['values reproduced']} reproduce "
        f"within their margins, {n['values differ']} differ and {n['values inconclusive']} are inconclusive "
        f"over this run's seeds; of its {findings} findings, {n['findings hold']} hold, "
        f"{n['findings fail']} fail and {n['findings inconclusive']} are inconclusive (the {arithmetic} "
        f"closed-form and protocol rows, counted apart, agree in {n['arithmetic agree']})."
    )


def _family_sentence(ledger: pd.DataFrame) -> str:
    parts = []
    family = ledger["experiment"].str[0]
    for f in sorted(family.unique()):
        n = verdict_counts(ledger[family == f])
        judged = n["values reproduced"] + n["values differ"] + n["values inconclusive"]
        if judged:
            parts.append(f"{FAMILIES.get(f, f)} ({f}), {n['values reproduced']} of {judged}")
    if not parts:
        return ""
    return "Trained values reproduced, by family: " + "; ".join(parts) + "."


def _offset_sentence(ledger: pd.DataFrame) -> str:
    rows = _rows(ledger, LOSS_ROWS)
    offsets = [_number(r.reproduced) - study_value(r.published) for r in rows.itertuples()]
    offsets = [o for o in offsets if not math.isnan(o)]
    if not offsets:
        return ""
    lower = all(o < 0 for o in offsets)
    size = f"{abs(max(offsets, key=abs)):.2f}" if len(offsets) == 1 else None
    low, high = sorted(abs(o) for o in offsets)[:: len(offsets) - 1]
    size = size or f"{low:.2f} to {high:.2f}"
    where = "below" if lower else "away from"
    gates = []
    for r in _rows(ledger, SATURATION_ROWS).itertuples():
        label = r.description.replace(",", "")  # "forget gate f 5th percentile"
        ours, study = _number(r.reproduced), study_value(r.published)
        gates.append(f"{label} {ours:.2g} against the study's {study:.2g}")
    text = (
        f"Most differences follow from two facts: this run's validation losses are {size} nats/char "
        f"{where} the study's (the grid's three models, medians over seeds)"
    )
    if gates:
        text += ", and its gates are far more saturated (" + "; ".join(gates) + ")"
    return text + "."


def _inconclusive_sentence(ledger: pd.DataFrame) -> str:
    open_rows = ledger[ledger["verdict"].eq("inconclusive") & ledger["kind"].isin(["value", "finding"])]
    if open_rows.empty:
        return "No trained verdict is inconclusive."
    values = open_rows[open_rows["kind"].eq("value")]
    findings = open_rows[open_rows["kind"].eq("finding")]
    parts = []
    if len(values):
        named = ", ".join(f"`{r.id}`" for r in values.itertuples())
        parts.append(f"{_count(len(values), 'value')} whose interval crosses a margin's edge ({named})")
    if len(findings):
        named = ", ".join(f"`{r.id}` ({r.interval.split(' of ')[0]})" for r in findings.itertuples())
        holds = "holds" if len(findings) == 1 else "hold"
        parts.append(
            f"{_count(len(findings), 'finding')} that {holds} in some seed bootstraps, not others ({named})"
        )
    seeds = sorted({int(m) for m in re.findall(r"over (\d+) seeds", " ".join(open_rows["interval"]))})
    now = f" (now {seeds[0]})" if len(seeds) == 1 else ""
    return (
        f"{len(open_rows)} trained verdicts are inconclusive: "
        + ", and ".join(parts)
        + f"; more seeds{now} would settle them one way or the other."
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def reproduce_sentences(ledger: pd.DataFrame) -> list[str]:
    """The three to five sentences, as one paragraph's sentences (empty ones left out)."""
    found = [_count_sentence(ledger), _family_sentence(ledger), _offset_sentence(ledger),
             _inconclusive_sentence(ledger)]  # fmt: skip
    return [s for s in found if s]


def this_run(row) -> str:
    """A headline row's value with its interval or share (``1.568 < 1.574; holds in 0.73
    of bootstraps over 3 seeds``)."""
    interval = str(getattr(row, "interval", "") or "")
    return f"{row.reproduced}; {interval}" if interval else str(row.reproduced)
