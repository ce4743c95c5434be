"""The first screen's sentence on inconclusive verdicts (issue #47), on a constructed
ledger: every inconclusive trained row is named, values and findings apart."""

from __future__ import annotations

import pandas as pd

from gatedrnn.report.verdict_words import _inconclusive_sentence


def _ledger(rows):
    return pd.DataFrame(rows, columns=["id", "kind", "verdict", "interval"])


def test_every_inconclusive_value_and_finding_is_named():
    ledger = _ledger(
        [
            ("C2.forget.mean", "value", "inconclusive", "[0.39, 0.41] over 10 seeds"),
            ("C2.forget.p5", "value", "differs", "[0.008, 0.01] over 10 seeds"),
            ("D3.finding.gru_wins", "finding", "inconclusive", "holds in 0.948 of bootstraps over 10 seeds"),
            ("A1.closed_form", "arithmetic", "inconclusive", ""),
        ]
    )
    text = _inconclusive_sentence(ledger)
    assert text.startswith("2 trained verdicts are inconclusive: 1 value ")
    assert "(`C2.forget.mean`)" in text and "`C2.forget.p5`" not in text
    assert "1 finding that holds in some" in text and "`D3.finding.gru_wins` (holds in 0.948)" in text
    assert "A1.closed_form" not in text
    assert text.endswith("more seeds (now 10) would settle them one way or the other.")


def test_no_inconclusive_row_says_so():
    ledger = _ledger([("C2.forget.mean", "value", "reproduced", "[0.49, 0.51] over 10 seeds")])
    assert _inconclusive_sentence(ledger) == "No trained verdict is inconclusive."
