"""Determinism: two complete smoke runs in separate directories make the same bytes.

Every output under data/ and results/ must be byte-identical between the two runs,
but these, which hold measurements of the run rather than its results (the report
test-artifacts/determinism.json lists them with the reasons):

- results/logs/** and results/benchmarks/**: steps/s, wall-clock time, memory (not
  compared at all);
- results/models/**/summary.json: ``wall_seconds`` (compared without it, and without
  ``resumed_from_step``, null in both).

No result carries a timing: every table under results/tables/, every ledger file
(results/claims.*) and results/open_questions.md must match to the byte, with no
exception and no masking.
"""

from __future__ import annotations

import json

import pytest
from faults.runs import NOT_COMPARED, VOLATILE_SUMMARY_KEYS, compared_files, output_differences

pytestmark = pytest.mark.workflow

# The results a reader quotes: compared as raw bytes, whatever compared_files does.
RESULTS = ("results/tables/*", "results/claims.*", "results/open_questions.md")


def results(workdir) -> list[str]:
    return sorted(
        path.relative_to(workdir).as_posix()
        for pattern in RESULTS
        for path in workdir.glob(pattern)
        if path.is_file()
    )


def test_two_smoke_runs_make_byte_identical_tables_and_outputs(smoke_run, smoke_run_again, artifacts_dir):
    tables = sorted(p.name for p in (smoke_run / "results/tables").iterdir())
    assert tables and tables == sorted(p.name for p in (smoke_run_again / "results/tables").iterdir())
    differences = output_differences(smoke_run, smoke_run_again)
    quoted = results(smoke_run)
    report = {
        "files_compared": len(compared_files(smoke_run)),
        "tables": tables,
        "tables_byte_identical": [t for t in tables if f"results/tables/{t}" not in differences],
        "results_compared_as_bytes": quoted,
        "differing": differences,
        "not_compared": NOT_COMPARED,
        "summary_json_compared_without": list(VOLATILE_SUMMARY_KEYS),
    }
    (artifacts_dir / "determinism.json").write_text(json.dumps(report, indent=2) + "\n")
    assert differences == {}, differences
    # every table, every ledger file and the answers, byte for byte
    assert {"results/claims.csv", "results/claims.md", "results/open_questions.md"} <= set(quoted)
    assert len([rel for rel in quoted if rel.startswith("results/tables/")]) == len(tables)
    assert quoted == results(smoke_run_again)
    assert [
        rel for rel in quoted if (smoke_run / rel).read_bytes() != (smoke_run_again / rel).read_bytes()
    ] == []


def test_summaries_differ_only_in_timing(smoke_run, smoke_run_again):
    summaries = sorted((smoke_run / "results/models").rglob("summary.json"))
    assert summaries
    for path in summaries:
        a = json.loads(path.read_text())
        b = json.loads((smoke_run_again / path.relative_to(smoke_run)).read_text())
        assert {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)} <= {"wall_seconds"}, path
        assert a["resumed_from_step"] is None and b["resumed_from_step"] is None
