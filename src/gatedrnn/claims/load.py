"""Claims from ``workflow/resources/published.yaml`` and ``workflow/resources/new_findings.yaml``: groups
flattened, ids checked, the new findings kept under their questions' switches, and
the tables the claims name (the ``claims`` rule's inputs). The files' format is
``docs/claims-language.md``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import yaml

from gatedrnn.claims.spec import ENTRY_KEYS, Claim, ClaimError


def flatten_groups(entries: list) -> list[dict]:
    """Claims with their ``group``'s keys filled in (``where`` merged, the claim's keys
    winning; a claim that changes the group's ``rule`` keeps none of its ``tolerance``,
    ``why`` or ``finding``)."""
    flat = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            raise ClaimError(f"a claim must be a mapping, not {entry!r}")
        if "group" not in entry:
            flat.append(dict(entry))
            continue
        shared = {k: v for k, v in entry.items() if k not in ("group", "claims")}
        unknown = set(shared) - ENTRY_KEYS
        if unknown:
            raise ClaimError(f"group {entry['group']!r}: unknown keys {sorted(unknown)}")
        if not isinstance(entry.get("claims"), list):
            raise ClaimError(f"group {entry['group']!r} needs a `claims:` list")
        for claim in entry["claims"]:
            merged = dict(shared)
            if "rule" in claim and claim["rule"] != shared.get("rule"):
                for key in ("tolerance", "why", "finding"):  # they belong to the group's rule
                    merged.pop(key, None)
            merged.update(claim)
            if "where" in shared and "where" in claim:
                merged["where"] = {**shared["where"], **claim["where"]}
            if "across_regimes" in shared and "across_regimes" in claim:
                view = {**shared["across_regimes"], **claim["across_regimes"]}
                if "where" in shared["across_regimes"] and "where" in claim["across_regimes"]:
                    view["where"] = {**shared["across_regimes"]["where"], **claim["across_regimes"]["where"]}
                merged["across_regimes"] = view
            flat.append(merged)
    return flat


def parse_claims(data: Mapping) -> list[Claim]:
    """Claims from the parsed ``published.yaml`` (groups flattened); ids must be unique."""
    if not isinstance(data, Mapping) or not isinstance(data.get("claims"), list):
        raise ClaimError("published.yaml must hold a `claims:` list")
    claims = [Claim.from_dict(entry) for entry in flatten_groups(data["claims"])]
    counts = Counter(c.id for c in claims)
    repeated = sorted(cid for cid, n in counts.items() if n > 1)
    if repeated:
        raise ClaimError(f"claim ids must be unique; repeated: {repeated}")
    return claims


def load_claims(path: str | Path) -> list[Claim]:
    """The claims of a ``published.yaml`` file."""
    with open(path) as handle:
        # libyaml's safe loader where available (same result, about 7x faster)
        return parse_claims(yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))


def select_questions(claims: list[Claim], enabled) -> list[Claim]:
    """The claims without a question and the new findings of the ``enabled`` questions."""
    enabled = set(enabled)
    return [c for c in claims if c.question is None or c.question in enabled]


def ledger_claims(published: str | Path, new_findings: str | Path, enabled, known) -> list[Claim]:
    """Every claim of a ledger: the published ones, then the new findings of the
    ``enabled`` questions (``known``: every question the config has, to catch a typo)."""
    findings = load_claims(new_findings)
    check_questions(findings, known)
    return load_claims(published) + select_questions(findings, enabled)


def check_questions(claims: list[Claim], known) -> None:
    """Refuse a new finding whose question the config does not have (a typo)."""
    unknown = sorted({c.question for c in claims if c.question is not None} - set(known))
    if unknown:
        raise ClaimError(f"new findings name unknown questions {unknown}; the config has {sorted(known)}")


def claim_tables(claims: list[Claim]) -> list[str]:
    """Every table the claims read, sorted (the ledger rule's inputs)."""
    return sorted({table for claim in claims for table in claim.tables()})


def regime_tables(claims: list[Claim]) -> list[str]:
    """Every table the claims' ``across_regimes`` views read (the regime-sensitivity table)."""
    return sorted({t for c in claims if c.regime_view is not None for t in c.regime_view.tables()})
