"""Determinism: two complete smoke runs in separate directories make the same bytes.

Every output under data/ and results/ must be byte-identical between the two runs,
but these, which hold measurements of the run rather than its results (the report
test-artifacts/determinism.json lists them with the reasons):

- results/logs/** and results/benchmarks/**: steps/s, wall-clock time, memory (not
  compared at all);
- results/models/**/summary.json: ``wall_seconds`` (compared without it, and without
  ``resumed_from_step``, null in both);
- the files in TIMED below: compared with their timings masked, so everything else in
  them must still match to the byte.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from faults.runs import NOT_COMPARED, VOLATILE_SUMMARY_KEYS, compared_files, output_differences

pytestmark = pytest.mark.workflow


def without_columns(*names):
    def normalise(text: str) -> str:
        rows = list(csv.reader(io.StringIO(text)))
        keep = [i for i, name in enumerate(rows[0]) if name not in names] if rows else []
        return "\n".join(",".join(row[i] for i in keep) for row in rows)

    return normalise


def masked(pattern):
    return lambda text: re.sub(pattern, "<timing>", text)


# Outputs with a timing in them: why, and how the timing is taken out before comparing.
TIMED = {
    "results/tables/cho_vs_pytorch_gru.csv": (
        "columns seconds_per_step and time_over_pytorch time a training step",
        without_columns("seconds_per_step", "time_over_pytorch"),
    ),
    "results/open_questions.md": (
        "quotes cho_vs_pytorch_gru.csv's time_over_pytorch",
        masked(r"[0-9.]+ times nn\.GRU's time per step"),
    ),
}


def test_two_smoke_runs_make_byte_identical_tables_and_outputs(smoke_run, smoke_run_again, artifacts_dir):
    tables = sorted(p.name for p in (smoke_run / "results/tables").iterdir())
    assert tables and tables == sorted(p.name for p in (smoke_run_again / "results/tables").iterdir())
    differences = output_differences(smoke_run, smoke_run_again)
    timed = {rel: kind for rel, kind in differences.items() if rel in TIMED and kind == "differs"}
    untimed = {rel: kind for rel, kind in differences.items() if rel not in timed}
    timed_mismatch = [
        rel
        for rel in timed
        if TIMED[rel][1]((smoke_run / rel).read_text()) != TIMED[rel][1]((smoke_run_again / rel).read_text())
    ]
    report = {
        "files_compared": len(compared_files(smoke_run)),
        "tables": tables,
        "tables_byte_identical": [t for t in tables if f"results/tables/{t}" not in differences],
        "differing_only_in_timings": {rel: TIMED[rel][0] for rel in timed if rel not in timed_mismatch},
        "differing_otherwise": {**untimed, **{rel: "differs beyond its timings" for rel in timed_mismatch}},
        "not_compared": NOT_COMPARED,
        "summary_json_compared_without": list(VOLATILE_SUMMARY_KEYS),
    }
    (artifacts_dir / "determinism.json").write_text(json.dumps(report, indent=2) + "\n")
    assert report["differing_otherwise"] == {}, report["differing_otherwise"]


def test_timed_outputs_still_exist(smoke_run):
    """TIMED names real outputs (so that it is updated when they are renamed)."""
    assert [rel for rel in TIMED if not (smoke_run / rel).is_file()] == []


def test_summaries_differ_only_in_timing(smoke_run, smoke_run_again):
    summaries = sorted((smoke_run / "results/models").rglob("summary.json"))
    assert summaries
    for path in summaries:
        a = json.loads(path.read_text())
        b = json.loads((smoke_run_again / path.relative_to(smoke_run)).read_text())
        assert {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)} <= {"wall_seconds"}, path
        assert a["resumed_from_step"] is None and b["resumed_from_step"] is None
