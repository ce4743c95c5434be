"""The claims ledger (spec F): every claim judged against the tables, one row each,
with the verdict under each training regime of the regime sweep where it ran.

Entries and rules: ``docs/claims-language.md``; rendering: :mod:`.render`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import pandas as pd

from gatedrnn.claims.judge import ONE_SEED, judge, judge_across_regimes
from gatedrnn.claims.load import claim_tables
from gatedrnn.claims.spec import REGIME_COLUMN, Claim, ClaimError

LEDGER_COLUMNS = [
    "id",
    "experiment",
    "kind",
    "description",
    "published",
    "reproduced",
    "interval",
    "table",
    "column",
    "selector",
    "rule",
    "tolerance",
    "band",
    "verdict",
    "finding",
    "regimes",
]
# The ledger's counts, per family and in all: (label, kind, verdicts). The first four
# are the issue's: trained values and findings apart, each reproduced or not;
# arithmetic and protocol rows (closed forms, counts the protocol fixes) are kept out of them.
COUNTS = (
    ("values reproduced", "value", ("reproduced", "within")),
    ("findings hold", "finding", ("holds",)),
    ("values differ", "value", ("differs",)),
    ("findings fail", "finding", ("fails",)),
    ("values inconclusive", "value", ("inconclusive",)),
    ("findings inconclusive", "finding", ("inconclusive",)),
    ("arithmetic agree", "arithmetic", ("exact", "within", "reproduced", "holds")),
    ("arithmetic differ", "arithmetic", ("differs", "fails")),
    ("new", "new", ("new",)),
)


def regime_labels(regimes: pd.DataFrame) -> dict[str, str]:
    """``regime -> "adam 0.002 x 800"`` (optimizer, learning rate, steps; ``at 16x256``
    at windows other than most regimes') where the table says so, else the regime's
    name; the config's default regime is marked."""
    labels = {}
    rows = regimes.drop_duplicates(REGIME_COLUMN)
    windows = protocol_windows(rows)
    for row in rows.to_dict("records"):
        name = row[REGIME_COLUMN]
        if {"optimizer", "lr", "steps"} <= set(row):
            label = f"{row['optimizer']} {float(row['lr']):g} x {int(row['steps'])}"
            if windows is not None and windows_of(row) != windows:  # the window axes
                label = f"{label} at {windows_text(row)}"
            if row.get("dataset", "default") != "default":  # the corpus-size axis
                label = f"{label} on {str(row['dataset']).replace('_', ' ')}"
            labels[name] = f"{label} (default)" if name == "default" else label
        else:
            labels[name] = str(name)
    return labels


def windows_of(row: Mapping) -> tuple[int, int]:
    return int(row["batch_size"]), int(row["seq_len"])


def windows_text(row: Mapping) -> str:
    """``16x256``: windows per batch x characters per window (no comma: labels are
    listed with ", ")."""
    return "{}x{}".format(*windows_of(row))


def protocol_windows(regimes: pd.DataFrame) -> tuple[int, int] | None:
    """The (batch_size, seq_len) most regimes of a regime table train at (the
    optimizer points all train at the protocol's); None for a table without windows."""
    if not {"batch_size", "seq_len"} <= set(regimes.columns) or regimes.empty:
        return None
    counts = regimes.groupby(["batch_size", "seq_len"], sort=False).size()
    return tuple(int(v) for v in counts.idxmax())


def describe_regimes(verdicts: Mapping[str, str]) -> str:
    """``holds under a, b; differs under c`` (a finding: ``fails under c``; ``not run
    under d``; and ``diverged under e`` where every seed's training diverged). A finding
    judged on one seed (``inconclusive:holds`` / ``inconclusive:fails``) is inconclusive
    there, with the reason and what the one seed showed."""
    groups = {
        "holds under": [],
        "differs under": [],
        "fails under": [],
        "not run under": [],
        "diverged under": [],
    }
    one_seed = {"holds": [], "fails": []}
    for regime, verdict in verdicts.items():
        if verdict.startswith(ONE_SEED):
            one_seed[verdict.removeprefix(ONE_SEED)].append(regime)
            continue
        key = {
            "differs": "differs under",
            "fails": "fails under",
            "missing": "not run under",
            "diverged": "diverged under",
        }.get(verdict, "holds under")
        groups[key].append(regime)
    parts = [f"{key} {', '.join(names)}" for key, names in groups.items() if names]
    undecided = one_seed["holds"] + one_seed["fails"]
    if undecided:
        where = (
            "every regime"
            if len(undecided) == len(verdicts)
            else ", ".join(r for r in verdicts if r in undecided)
        )
        shown = "; ".join(f"{word} under {', '.join(names)}" for word, names in one_seed.items() if names)
        parts.append(
            f"inconclusive under {where}, one seed each (a comparison needs the seeds' spread); "
            f"at that seed it {shown}"
        )
    return "; ".join(parts)


def build_ledger(
    claims: list[Claim],
    tables: Mapping[str, pd.DataFrame],
    names: Mapping[str, str],
    regimes: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per claim (``LEDGER_COLUMNS``), in ``published.yaml``'s order.

    ``regimes``: the regime-sensitivity table (one row per cell and regime). Given,
    every claim with an ``across_regimes`` view is judged under each regime in it,
    and its ``regimes`` cell says where the verdict holds and where it differs.
    """
    missing = sorted(set(claim_tables(claims)) - set(tables))
    if missing:
        raise ClaimError(f"tables not given to the ledger: {missing}")
    repeated = sorted(cid for cid, n in Counter(c.id for c in claims).items() if n > 1)
    if repeated:  # e.g. a new finding reusing a published claim's id
        raise ClaimError(f"claim ids must be unique across the ledger; repeated: {repeated}")
    findings = {c.id for c in claims if c.rule == "direction"}
    for claim in claims:
        if claim.finding is not None and claim.finding not in findings:
            raise ClaimError(f"claim {claim.id}: `finding: {claim.finding}` names no direction entry")
    order = [] if regimes is None else list(dict.fromkeys(regimes[REGIME_COLUMN]))
    labels = {} if regimes is None else regime_labels(regimes)
    rows = []
    for claim in claims:
        filled = claim.fill(names)
        row = judge(filled, tables)
        verdicts = judge_across_regimes(filled, regimes, order, tables) if regimes is not None else {}
        row["regimes"] = describe_regimes({labels[r]: v for r, v in verdicts.items()})
        rows.append(row)
    verdicts = {row["id"]: row["verdict"] for row in rows}
    for claim, row in zip(claims, rows, strict=True):
        if claim.finding is not None:  # the finding's own row counts it; here it is reported beside
            row["finding"] = verdicts[claim.finding]
    return pd.DataFrame(rows, columns=LEDGER_COLUMNS)


def verdict_counts(ledger: pd.DataFrame) -> dict[str, int]:
    """``label -> rows`` for each of :data:`COUNTS`."""
    return {
        label: int((ledger["kind"].eq(kind) & ledger["verdict"].isin(verdicts)).sum())
        for label, kind, verdicts in COUNTS
    }


def summary_line(ledger: pd.DataFrame) -> str:
    """``216 claims: 20 values reproduced, 12 findings hold, 60 values differ, 8 findings
    fail, 5 values inconclusive, 3 findings inconclusive; arithmetic and protocol: 85
    agree, 4 differ; 17 new``."""
    n = verdict_counts(ledger)
    trained = ", ".join(f"{n[label]} {label}" for label, _, _ in COUNTS[:6])
    return (
        f"{len(ledger)} claims: {trained}; arithmetic and protocol: {n['arithmetic agree']} agree, "
        f"{n['arithmetic differ']} differ; {n['new']} new"
    )
