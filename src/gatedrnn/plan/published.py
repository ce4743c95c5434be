"""The tables a claims file (workflow/resources/published.yaml, workflow/resources/new_findings.yaml) names:
the claims ledger's inputs, read when the plan is built."""

from __future__ import annotations

from collections.abc import Iterable

import yaml


def published_tables(path: str, questions: Iterable[str] | None = None) -> list[str]:
    """Every `table:` the claims file names (claims, groups and compare sides), sorted;
    the regime-sensitivity table of `across_regimes` views is an input of its own.
    `questions`: only the entries (or groups) without a `question:` or naming one of
    these (new_findings.yaml under the enabled questions)."""
    questions = None if questions is None else set(questions)

    def walk(node):
        if isinstance(node, dict) and questions is not None:
            if node.get("question") is not None and node["question"] not in questions:
                return
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "table" and isinstance(value, str):
                    yield value
                elif key != "across_regimes":
                    yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    return sorted(set(walk(load_entries(path))))


def load_entries(path: str) -> list:
    """The `claims:` list of a claims file."""
    with open(path) as handle:
        # libyaml's safe loader where PyYAML has it: published.yaml is the largest
        # file read while the DAG is built (0.11 s with the pure-Python loader)
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return yaml.load(handle, Loader=loader)["claims"]


def regime_view_tables(path: str) -> list[str]:
    """The tables of the claims that have an `across_regimes` view (their own, whose
    seed spread sets the band a regime is judged by), sorted: the scoreboard's inputs
    beside the regime tables."""
    found: set[str] = set()

    def tables_of(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "table" and isinstance(value, str):
                    found.add(value)
                elif key not in ("across_regimes", "claims"):
                    tables_of(value)
        elif isinstance(node, list):
            for value in node:
                tables_of(value)

    for group in load_entries(path):
        entries = group.get("claims", [group])
        for entry in entries:
            if "across_regimes" in entry or "across_regimes" in group:
                tables_of(group)
                tables_of(entry)
    return sorted(found)
