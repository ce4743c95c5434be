"""The README's counts of training jobs against `snakemake -n` on the default config:
the whole run, what each reference stage adds (in the order the reference run made
them), and the one-artifact example. Dry runs need no corpus: the plan names the jobs
before any text exists."""

from __future__ import annotations

import re

import pytest
from conftest import DEFAULT_CONFIG, REPO, run_snakemake

pytestmark = pytest.mark.workflow

STAGES = ("stage_study", "stage_regimes", "stage_questions", "stage_protocol")
README = (REPO / "README.md").read_text()


def planned_trainings(workdir, *targets) -> int:
    proc = run_snakemake(workdir, "-n", *targets, configfile=DEFAULT_CONFIG)
    found = re.search(r"^train\s+(\d+)\s*$", proc.stdout + proc.stderr, re.M)
    return int(found.group(1)) if found else 0


def test_the_readme_counts_are_the_dry_runs(tmp_path):
    stated = re.search(
        r"\((\d+) training jobs in a dry\s+run: `stage_study` (\d+), `stage_regimes` (\d+) more,\s+"
        r"`stage_questions` (\d+) more,\s+`stage_protocol` (\d+) more",
        README,
    )
    assert stated, "the Quick start's sentence of training jobs per stage is missing"
    total, *per_stage = (int(n) for n in stated.groups())
    assert planned_trainings(tmp_path) == total
    # each stage's new trainings: the union of the stages so far, less the one before
    cumulative = [planned_trainings(tmp_path, *STAGES[: k + 1]) for k in range(len(STAGES))]
    assert [b - a for a, b in zip([0, *cumulative], cumulative, strict=False)] == per_stage
    assert cumulative[-1] == total

    example = re.search(r"results/tables/gru_vs_lstm.csv\s+# corpus \+ (\d+) training jobs", README)
    assert planned_trainings(tmp_path, "results/tables/gru_vs_lstm.csv") == int(example.group(1))
