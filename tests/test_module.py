"""The workflow imported by another one as a Snakemake `module`, as its users deploy it:
an outer Snakefile in a temporary folder, with and without `prefix:` and a rule-name
prefix. It plans the smoke DAG, builds a closed-form table and one tiny training
through the module, imports the workflow's own package whatever else is on the path,
and keeps `train` and `gates` off the list of local rules (they go to the scheduler)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SMOKE_CONFIG, run_snakemake

pytestmark = pytest.mark.workflow

MODULE_SNAKEFILE = REPO / "workflow" / "Snakefile"
SCHEDULED = {"train", "gates"}
# one tiny training of the smoke config (40 steps, width 24) and a closed-form table
TRAINING = "results/models/default/rnn_budget24_s0/summary.json"
CLOSED_FORM = "results/tables/grad_reach_init.csv"

# name: (path prefix, rule-name pattern of `use rule * from gatedrnn as ...`)
IMPORTS = {
    "plain": ("", ""),
    "rule prefix": ("", "gatedrnn_*"),
    "prefix and rule prefix": ("gatedrnn", "gatedrnn_*"),
}


def outer_snakefile(folder: Path, prefix: str, rule_pattern: str, preamble: str = "") -> Path:
    """An outer workflow with a rule of its own, importing this one as module `gatedrnn`.
    It writes which rules are local (Snakemake keeps the list in `workflow._localrules`)
    to local_rules.json when it is parsed."""
    folder.mkdir(parents=True, exist_ok=True)
    prefix_line = f'    prefix:\n        "{prefix}"\n' if prefix else ""
    use = f"use rule * from gatedrnn as {rule_pattern}" if rule_pattern else "use rule * from gatedrnn"
    snakefile = folder / "Snakefile"
    snakefile.write_text(
        f"{preamble}"
        "import json\n\n"
        f'configfile: "{SMOKE_CONFIG}"\n\n'
        "rule outer_note:\n"
        '    output:\n        "outer_note.txt"\n'
        '    shell:\n        "echo outer > {output}"\n\n'
        "module gatedrnn:\n"
        f'    snakefile:\n        "{MODULE_SNAKEFILE}"\n'
        "    config:\n        config\n"
        f"{prefix_line}\n"
        f"{use}\n\n"
        'with open("local_rules.json", "w") as handle:\n'
        "    json.dump(sorted(workflow._localrules), handle)\n"
    )
    return snakefile


def module_run(folder: Path, *args: str, prefix: str = "", rule_pattern: str = "", env=None, check=True):
    snakefile = outer_snakefile(folder, prefix, rule_pattern)
    return run_snakemake(folder, *args, snakefile=snakefile, configfile=None, env=env, check=check)


def job_counts(text: str) -> dict[str, int]:
    table = text.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M)}


def renamed(name: str, rule_pattern: str) -> str:
    return rule_pattern.replace("*", name) if rule_pattern else name


@pytest.fixture(scope="module")
def standalone_counts(tmp_path_factory) -> dict[str, int]:
    """The smoke DAG's jobs, planned by the workflow on its own."""
    proc = run_snakemake(tmp_path_factory.mktemp("standalone"), "-n")
    return job_counts(proc.stdout + proc.stderr)


@pytest.fixture
def decoy_path(tmp_path) -> str:
    """A folder with another `gatedrnn` that refuses to be imported, first on PYTHONPATH."""
    decoy = tmp_path / "decoy" / "gatedrnn"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text('raise ImportError("the decoy gatedrnn was imported")\n')
    return os.pathsep.join([str(decoy.parent), os.environ.get("PYTHONPATH", "")])


@pytest.mark.parametrize("name", IMPORTS)
def test_module_plans_the_smoke_dag_and_schedules_train(tmp_path, name, standalone_counts, decoy_path):
    prefix, rule_pattern = IMPORTS[name]
    proc = module_run(
        tmp_path, "-n", prefix=prefix, rule_pattern=rule_pattern, env={"PYTHONPATH": decoy_path}
    )
    text = proc.stdout + proc.stderr
    counts = job_counts(text)
    # the same jobs as the workflow alone plans, under the imported names
    assert counts == {renamed(rule, rule_pattern): n for rule, n in standalone_counts.items()}
    # every file the module makes lies under its path prefix
    outputs = [path for line in re.findall(r"^\s+output: (.+)$", text, re.M) for path in line.split(", ")]
    assert outputs and all(path.startswith(f"{prefix}/") for path in outputs if prefix)

    local = set(json.loads((tmp_path / "local_rules.json").read_text()))
    module_rules = {renamed(rule, rule_pattern) for rule in standalone_counts}
    scheduled = {renamed(rule, rule_pattern) for rule in SCHEDULED}
    assert not local & scheduled, local & scheduled
    assert module_rules - scheduled <= local
    assert "outer_note" not in local  # the outer workflow's rules are its own business


def test_module_builds_a_closed_form_table_and_trains_one_model(tmp_path, decoy_path):
    """Through the module with both prefixes: the table equals the one the workflow
    makes on its own, and the training job ran the workflow's own package."""
    prefix, rule_pattern = IMPORTS["prefix and rule prefix"]
    module_run(
        tmp_path / "outer", "--cores", "2", f"{prefix}/{CLOSED_FORM}", f"{prefix}/{TRAINING}",
        prefix=prefix, rule_pattern=rule_pattern, env={"PYTHONPATH": decoy_path},
    )  # fmt: skip
    outer = tmp_path / "outer" / prefix
    alone = tmp_path / "alone"
    run_snakemake(alone, "--cores", "1", CLOSED_FORM)
    assert (outer / CLOSED_FORM).read_bytes() == (alone / CLOSED_FORM).read_bytes()

    summary = json.loads((outer / TRAINING).read_text())
    assert summary["best_val_loss"] > 0
    # the module's outputs lie under its prefix (its checkpoints do not: a params value
    # of the train rule that the rerun trigger compares, so kept as it is)
    assert (outer / "results/models").is_dir() and not (tmp_path / "outer/results/models").exists()
    log = (outer / "results/logs/train/default/rnn_budget24_s0.log").read_text()
    assert f"gatedrnn from {REPO / 'src' / 'gatedrnn'}" in log.splitlines()[0]


def test_a_gatedrnn_imported_before_the_module_is_refused(tmp_path, decoy_path):
    """An outer workflow that imported another gatedrnn first gets an error naming both."""
    decoy = Path(decoy_path.split(os.pathsep)[0])
    (decoy / "gatedrnn" / "__init__.py").write_text("")
    snakefile = outer_snakefile(tmp_path, "", "", preamble="import gatedrnn\n\n")
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(snakefile), "--directory", str(tmp_path), "-n"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": decoy_path}, timeout=120,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"gatedrnn was already imported from {decoy / 'gatedrnn'}" in output, output[-2000:]
    assert str(REPO / "src") in output
