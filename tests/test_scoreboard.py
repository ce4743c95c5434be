"""Which protocol reproduces the study: the small corpus (gatedrnn.io.variants), the
scoreboard of regimes (gatedrnn.claims.scoreboard) and its confirmation.

The scoreboard's counts are checked against the claims ledger's own per-regime
verdicts on the same tables (the ``regimes`` column of a ledger built with both
regime tables), its distance against the band arithmetic written out by hand."""

from __future__ import annotations

import hashlib
import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from gatedrnn.claims import build_ledger, claim_tables, load_claims, read_tables
from gatedrnn.claims.bands import Band
from gatedrnn.claims.front import protocol_front, regimes_to_confirm
from gatedrnn.claims.judge import RegimeJudgement
from gatedrnn.claims.ledger import regime_labels
from gatedrnn.claims.scoreboard import (
    SCOREBOARD_COLUMNS,
    best_regimes,
    regime_frame,
    regime_verdicts,
    scoreboard,
)
from gatedrnn.errors import CorpusError
from gatedrnn.io.variants import corpus_prefix, write_prefix_corpus
from gatedrnn.plan import CORPUS_SIZE, PROTOCOL_CONFIRMATION, PROTOCOL_SCOREBOARD, REGIME_SENSITIVITY, Plan
from gatedrnn.plan.paths import PROTOCOL_DISTANCE, PROTOCOL_FRONT

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "workflow" / "resources" / "published.yaml"
SMOKE = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())

# --------------------------------------------------------------------- the small corpus


def test_corpus_prefix_cuts_back_to_a_line_end():
    text = "ab\ncd\nef\n"
    assert corpus_prefix(text, 5) == "ab\n"
    assert corpus_prefix(text, 6) == "ab\ncd\n"
    assert corpus_prefix("abcdef", 3) == "abc"  # no newline: the characters as asked


@pytest.mark.parametrize("chars", [0, 9, 10])
def test_corpus_prefix_refuses_a_size_it_cannot_cut(chars):
    with pytest.raises(CorpusError, match="protocol.small_corpus.chars"):
        corpus_prefix("ab\ncd\nef\n", chars)


def test_write_prefix_corpus_records_what_it_cut_from(tmp_path):
    text = "".join(f"line {i} of the play\n" for i in range(100))
    (tmp_path / "corpus.txt").write_text(text)
    sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()  # the text's own: it is checked
    (tmp_path / "corpus.json").write_text(json.dumps({"source": "synthetic", "corpus_sha256": sha256}))
    out, record = tmp_path / "small.txt", tmp_path / "small.json"
    provenance = write_prefix_corpus(tmp_path / "corpus.txt", tmp_path / "corpus.json", 500, out, record)
    small = out.read_text()
    assert text.startswith(small) and small.endswith("\n") and len(small) <= 500
    assert provenance == json.loads(record.read_text())
    assert provenance["characters"] == len(small)
    assert provenance["vocab_size"] == len(set(small))
    assert provenance["parent_characters"] == len(text)
    with pytest.raises(CorpusError):
        write_prefix_corpus(tmp_path / "corpus.txt", tmp_path / "corpus.json", 10**6, out, record)
    assert not out.exists() and not record.exists()  # nothing half-written


# ---------------------------------------------------------------------- the arithmetic


def test_band_distance_on_the_logit_scale():
    found = RegimeJudgement("differs", 0.6, Band(0.0, 1.0, "logit", 0.1))
    assert found.band_distance(0.5) == pytest.approx(math.log(0.6 / 0.4) / 0.1, rel=1e-12)
    assert math.isnan(RegimeJudgement("holds").band_distance(0.5))  # a finding: no distance
    assert math.isnan(RegimeJudgement("within", 0.3, Band(0.0, 1.0)).band_distance(0.5))  # a range


def test_scoreboard_ranks_by_agreements_then_distance():
    verdicts = pd.DataFrame(
        [
            # regime a: one value reproduced (distance 0.5), one finding fails
            ("v1", "value", "gates", "a", "within", 0.1, 0.5),
            ("f1", "finding", "loss", "a", "fails", math.nan, math.nan),
            # regime b: the same agreements, nearer (distance 0.2 and 3)
            ("v1", "value", "gates", "b", "within", 0.1, 0.2),
            ("f1", "finding", "loss", "b", "fails", math.nan, math.nan),
            ("v2", "value", "loss", "b", "differs", 2.0, 3.0),
            # regime c: two agreements
            ("v1", "value", "gates", "c", "within", 0.1, 0.9),
            ("f1", "finding", "loss", "c", "holds", math.nan, math.nan),
        ],
        columns=["id", "kind", "family", "regime", "verdict", "value", "band_distance"],
    )
    regimes = pd.DataFrame(
        {
            "regime": list("abc"),
            "dataset": "default",
            "optimizer": "sgd",
            "lr": [0.1, 0.3, 1.0],
            "steps": 800,
            "batch_size": [32, 32, 64],
            "seq_len": 128,
            "seeds": 1,
        }  # fmt: skip
    )
    table = scoreboard(verdicts, regimes)
    assert list(table.columns) == SCOREBOARD_COLUMNS
    assert list(table["batch_size"]) == [64, 32, 32]  # each regime's windows beside it
    # a regime table written before the window axes: a scoreboard without them
    older = scoreboard(verdicts, regimes.drop(columns=["batch_size", "seq_len"]))
    assert list(older.columns) == [c for c in SCOREBOARD_COLUMNS if c not in ("batch_size", "seq_len")]
    pd.testing.assert_frame_equal(older, table.drop(columns=["batch_size", "seq_len"]))
    assert list(table["regime"]) == ["c", "a", "b"]  # b's RMS sqrt((0.04 + 9) / 2) > a's 0.5
    assert table.loc[table["regime"] == "b", "band_distance"].item() == pytest.approx(
        math.sqrt((0.2**2 + 9) / 2)
    )
    assert list(table["best"]) == [True, False, False]
    assert best_regimes(table, 2) == ["c", "a"]
    b = table[table["regime"] == "b"].iloc[0]
    assert (b["values_reproduced"], b["values_differ"], b["findings_fail"], b["agreements"]) == (1, 1, 1, 1)
    assert (b["loss_values"], b["loss_values_reproduced"], b["reproduces_loss"]) == (1, 0, False)
    assert (b["gate_values"], b["reproduces_gates"]) == (1, True)


# ------------------------------------------------------------- on the smoke run's tables


def ledger_tallies(ledger: pd.DataFrame, label: str) -> dict[str, int]:
    """The scoreboard's counts for one regime, read from the ledger's ``regimes`` text
    (``holds under a, b; differs under c``). A finding judged on one seed is inconclusive
    in the ledger, which says what that seed showed (``at that seed it holds under a``):
    the scoreboard counts that (issue #47)."""
    tallies = dict.fromkeys(["values_reproduced", "findings_hold", "values_differ", "findings_fail"], 0)
    for kind, text in zip(ledger["kind"], ledger["regimes"].fillna(""), strict=True):
        for group in filter(None, text.split("; ")):
            verdict, _, names = group.partition(" under ")
            verdict = verdict.removeprefix("at that seed it ")
            if label not in names.split(", "):
                continue
            key = {
                ("value", "holds"): "values_reproduced",
                ("finding", "holds"): "findings_hold",
                ("value", "differs"): "values_differ",
                ("finding", "fails"): "findings_fail",
            }.get((kind, verdict))
            if key is not None:
                tallies[key] += 1
    return tallies


@pytest.fixture(scope="module")
def smoke_boards(smoke_run):
    claims = load_claims(PUBLISHED)
    regimes = regime_frame(pd.read_csv(smoke_run / REGIME_SENSITIVITY), pd.read_csv(smoke_run / CORPUS_SIZE))
    tables = read_tables(claim_tables(claims), base=smoke_run)
    names = Plan.from_config(SMOKE).claim_models
    return claims, regimes, tables, names


def test_scoreboard_counts_are_the_ledgers_verdicts(smoke_run, smoke_boards):
    claims, regimes, tables, names = smoke_boards
    written = pd.read_csv(smoke_run / PROTOCOL_SCOREBOARD)
    # the rule wrote what the code gives on these tables
    again = scoreboard(regime_verdicts(claims, tables, names, regimes), regimes)
    pd.testing.assert_frame_equal(written, again, check_dtype=False)
    ledger = build_ledger(claims, tables, names, regimes)
    labels = regime_labels(regimes)
    assert set(written["regime"]) == set(regimes["regime"])
    assert (written["dataset"] == "small_corpus").sum() == len(Plan.from_config(SMOKE).corpus_size_points)
    for row in written.to_dict("records"):
        expected = ledger_tallies(ledger, labels[row["regime"]])
        assert {key: row[key] for key in expected} == expected, row["regime"]
    assert written["best"].sum() == 1 and written.loc[0, "rank"] == 1


def test_confirmation_trains_the_front_and_its_neighbours_at_every_seed(smoke_run, smoke_boards):
    claims, regimes, tables, names = smoke_boards
    distances = pd.read_csv(smoke_run / PROTOCOL_DISTANCE)
    # the checkpoint wrote what the code gives on these tables
    confirm = len(SMOKE["protocol"]["confirm"]["seeds"])
    again = protocol_front(
        regimes, claims, tables, names, confirm_seeds=confirm
    )  # through a CSV, as the rule wrote it
    pd.testing.assert_frame_equal(distances, pd.read_csv(io.StringIO(again.to_csv(index=False))))
    confirmation = pd.read_csv(smoke_run / PROTOCOL_CONFIRMATION)
    best = regimes_to_confirm(distances)
    assert best and set(best) == set(distances.loc[distances["on_front"] | distances["near_front"], "regime"])
    assert set(confirmation["regime"]) == set(best)
    # the front again, with the confirmed regimes' seeds in place of their first
    front = pd.read_csv(smoke_run / PROTOCOL_FRONT).set_index("regime")
    assert set(front.index) == set(distances["regime"])
    assert (front.loc[best, "seeds"] == len(SMOKE["protocol"]["confirm"]["seeds"])).all()
    # a regime is confirmed when its distances rest on every confirmation seed: the retrained ones
    assert front.loc[best, "confirmed"].all() and (front["confirmed"] == (front["seeds"] >= confirm)).all()
    # the smoke run's regime tables carry the gate quantiles: both blocks scored
    assert front["gates"].notna().all() and set(front["front_on"]) == {"loss and gates"}
    assert set(confirmation["seeds"]) == {len(SMOKE["protocol"]["confirm"]["seeds"])}
    for regime in best:
        for seed in SMOKE["protocol"]["confirm"]["seeds"]:
            assert list((smoke_run / "results/models" / regime).glob(f"*_s{seed}/summary.json"))


def test_the_small_corpus_is_the_corpus_head(smoke_run):
    corpus = (smoke_run / "data/corpus.txt").read_text()
    small = (smoke_run / "data/small_corpus/corpus.txt").read_text()
    assert corpus.startswith(small) and len(small) <= SMOKE["protocol"]["small_corpus"]["chars"]
    summary = json.loads(
        next((smoke_run / "results/models").glob("*_small/lstm_*_s0/summary.json")).read_text()
    )
    provenance = json.loads((smoke_run / "data/small_corpus/corpus.json").read_text())
    assert summary["corpus_sha256"] == provenance["corpus_sha256"]


def test_the_protocol_section_renders_from_a_run_s_tables(smoke_run, tmp_path):
    from gatedrnn.report.protocol_page import render_protocol_section

    tables = tmp_path / "reference" / "tables"
    tables.mkdir(parents=True)
    for name in ("protocol_scoreboard.csv", "protocol_confirmation.csv", "corpus_size.csv",
                 "regime_sensitivity.csv", "alphabet_check.csv", "forget_bias_memory_check.csv"):  # fmt: skip
        (tables / name).write_bytes((smoke_run / "results/tables" / name).read_bytes())
    section = render_protocol_section(tmp_path / "reference", REPO)
    assert "not in the reference run yet" not in section
    board = pd.read_csv(tables / "protocol_scoreboard.csv")
    best = board.sort_values("rank").iloc[0]
    label = f"{best['optimizer']} {float(best['lr']):g} x {int(best['steps'])}"
    label += f" at {int(best['batch_size'])}x{int(best['seq_len'])}"  # the regime's windows
    label += ", small corpus" if best["dataset"] != "default" else ""
    assert f"**{label}**" in section and f"\n| 1 | {label} |" in section  # named, and the top row
    assert "\n| rank | regime |" in section
