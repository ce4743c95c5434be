"""Determinism: two complete smoke runs in separate directories make the same bytes.

Every table must be byte-identical. So must every other output but these, which
hold measurements of the run rather than its results (the list goes to
test-artifacts/determinism.json with the reasons):

- results/logs/**: training logs print steps/s and seconds;
- results/benchmarks/**: wall-clock time, memory and I/O of each job;
- results/models/**/summary.json: ``wall_seconds`` (compared without it, and without
  ``resumed_from_step``, which is null in both).
"""

from __future__ import annotations

import json

import pytest
from faults.runs import NOT_COMPARED, VOLATILE_SUMMARY_KEYS, compared_files, output_differences

pytestmark = pytest.mark.workflow


def test_two_smoke_runs_make_byte_identical_tables_and_outputs(smoke_run, smoke_run_again, artifacts_dir):
    tables = sorted(p.name for p in (smoke_run / "results/tables").iterdir())
    assert tables == sorted(p.name for p in (smoke_run_again / "results/tables").iterdir())
    differing_tables = [
        name
        for name in tables
        if (smoke_run / "results/tables" / name).read_bytes()
        != (smoke_run_again / "results/tables" / name).read_bytes()
    ]
    differences = output_differences(smoke_run, smoke_run_again)
    report = {
        "tables": tables,
        "tables_differing": differing_tables,
        "files_compared": len(compared_files(smoke_run)),
        "files_differing": differences,
        "not_compared": NOT_COMPARED,
        "summary_json_compared_without": list(VOLATILE_SUMMARY_KEYS),
    }
    (artifacts_dir / "determinism.json").write_text(json.dumps(report, indent=2) + "\n")
    assert tables and not differing_tables, differing_tables
    assert differences == {}, differences


def test_summaries_differ_only_in_timing(smoke_run, smoke_run_again):
    for path in sorted((smoke_run / "results/models").rglob("summary.json")):
        a = json.loads(path.read_text())
        b = json.loads((smoke_run_again / path.relative_to(smoke_run)).read_text())
        assert {k for k in a if a[k] != b.get(k)} <= {"wall_seconds"}, path
        assert a["resumed_from_step"] is None and b["resumed_from_step"] is None
