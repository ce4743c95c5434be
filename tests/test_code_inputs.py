"""Code as a declared input, end to end: a real edit of a package module in a copy
of the workflow, then a dry run over a finished smoke run. Exactly the rules whose
scripts import the module (and what consumes their outputs) are planned; comment,
formatting and docstring edits plan nothing (gatedrnn.code_version)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import REPO, SMOKE_CONFIG, run_snakemake

from gatedrnn.plan import Plan

SMOKE = yaml.safe_load(SMOKE_CONFIG.read_text())

pytestmark = pytest.mark.workflow

# The rules that draw a figure (figure scripts import gatedrnn.report.*).
FIGURE_RULES = {
    "grad_reach_init_figure",
    "highway_figure",
    "val_loss_curves_figure",
    "lstm_cell_decay_figure",
    "gru_vs_lstm_gates_figure",
    "hidden_perturbation_decay_figure",
    "forget_bias_sweep_figure",
    "split_by_width_figure",
    "longer_training_figure",
    "regime_sensitivity_figure",
    "protocol_scoreboard_figure",
}
CLOSED_FORM_RULES = {
    "highway_table",
    "forget_bias_init_table",
    "cell_step_example_table",
    "param_counts_table",
    "gru_reset_placement_table",
}


@pytest.fixture
def workflow_copy(tmp_path, smoke_run):
    """(a copy of the workflow's code, a copy of a finished smoke run). copytree keeps
    modification times, so only what a test edits is newer than the run's outputs."""
    code = tmp_path / "code"
    for part in ("Snakefile", "workflow", "src", "config", "envs", "profiles"):
        source = REPO / part
        if source.is_dir():
            shutil.copytree(source, code / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            code.mkdir(exist_ok=True)
            shutil.copy2(source, code / part)
    run = tmp_path / "run"
    shutil.copytree(smoke_run, run, symlinks=True)
    return code, run


def planned_rules(code: Path, run: Path) -> dict[str, int]:
    proc = run_snakemake(run, "-n", snakefile=code / "Snakefile", configfile=code / "config/smoke.yaml")
    text = proc.stdout + proc.stderr
    if "Nothing to be done" in text:
        return {}
    table = text.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M)}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_a_finished_run_is_up_to_date_for_an_unedited_copy_of_the_code(workflow_copy):
    code, run = workflow_copy
    assert planned_rules(code, run) == {}


def test_editing_plotting_code_redraws_figures_and_retrains_nothing(workflow_copy):
    code, run = workflow_copy
    edit(code / "src/gatedrnn/report/style.py", "DPI = 150", "DPI = 151")
    planned = planned_rules(code, run)
    assert set(planned) - {"all"} == FIGURE_RULES, planned


def test_editing_closed_form_code_rebuilds_the_closed_form_tables_only(workflow_copy):
    code, run = workflow_copy
    edit(code / "src/gatedrnn/analysis/closed_form.py", "def sigmoid(x):", "def sigmoid(x):\n    x = x + 0")
    planned = set(planned_rules(code, run)) - {"all"}
    assert CLOSED_FORM_RULES <= planned, planned
    # and what reads their tables: the highway figure and the claims ledger
    assert planned - CLOSED_FORM_RULES <= {"highway_figure", "claims"}, planned
    assert "train" not in planned and "gates" not in planned


@pytest.mark.parametrize("module", ["src/gatedrnn/train/loop.py", "src/gatedrnn/core/model.py"])
def test_editing_training_or_model_code_retrains(workflow_copy, module):
    code, run = workflow_copy
    path = code / module
    path.write_text(path.read_text() + "\n_EDITED = True\n")
    planned = planned_rules(code, run)
    assert planned.get("train", 0) > 0, planned
    # every smoke model (config/smoke.yaml: 37 since issue #50), and the scoreboard's
    # confirmation's where the finished run's scoreboard already names them
    assert planned["train"] >= len(Plan.from_config(SMOKE).training_runs) == 37, planned


def test_training_code_holds_no_module_of_the_plan():
    # train.py gets what the plan decides through its params, so a fix to the plan of
    # runs between two stages of a reference run retrains nothing (docs/reruns.md)
    from gatedrnn.code_version import module_closure

    closure = module_closure(REPO / "workflow/scripts/train.py")
    assert {"gatedrnn.train.loop", "gatedrnn.core.model", "gatedrnn.numerics"} <= set(closure)
    assert [name for name in closure if name.startswith("gatedrnn.plan")] == []


def test_editing_the_plan_of_runs_retrains_nothing(workflow_copy):
    code, run = workflow_copy
    path = code / "src/gatedrnn/plan/round_two.py"
    path.write_text(path.read_text() + "\n_EDITED = True\n")
    planned = planned_rules(code, run)
    assert "train" not in planned, planned


def test_comments_whitespace_and_docstrings_are_not_code(workflow_copy):
    code, run = workflow_copy
    loop = code / "src/gatedrnn/train/loop.py"
    text = loop.read_text()
    text = text.replace("\n\n\n", "\n\n\n# a comment a reader added\n\n", 1)
    text = re.sub(r'^("""[^\n]*)', r"\1 (docstring edited)", text, count=1)
    loop.write_text(text + "\n\n# trailing comment\n")
    assert planned_rules(code, run) == {}


def test_a_finished_run_copied_to_another_directory_is_up_to_date_there(tmp_path, smoke_run):
    """Nothing in the run's metadata depends on where the run or the workflow lies."""
    moved = tmp_path / "elsewhere" / "run"
    shutil.copytree(smoke_run, moved, symlinks=True)
    proc = run_snakemake(moved, "-n")
    assert "Nothing to be done" in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-3000:]


def test_a_comment_in_a_rule_script_plans_nothing(workflow_copy):
    """Rule scripts count through code_version like the package's modules; Snakemake's
    own `code` trigger (the script's modification time) is off (profiles/default)."""
    code, run = workflow_copy
    for script in ("train.py", "gate_stats_table.py", "claims.py"):
        with open(code / "workflow/scripts" / script, "a") as handle:
            handle.write("# a comment a reader added\n")
    assert planned_rules(code, run) == {}


def test_a_run_and_its_code_copied_with_new_modification_times_plan_nothing(tmp_path, smoke_run):
    """`cp -r` gives every file a new modification time, in whatever order it copies."""
    copied = tmp_path / "copied"
    copied.mkdir()
    code = copied / "code"
    code.mkdir()
    for part in ("Snakefile", "workflow", "src", "config", "envs", "profiles"):
        if (REPO / part).exists():
            subprocess.run(["cp", "-r", str(REPO / part), str(code / part)], check=True)
    subprocess.run(["cp", "-r", str(smoke_run), str(copied / "run")], check=True)
    assert planned_rules(code, copied / "run") == {}


def test_a_changed_input_still_reruns_what_reads_it(workflow_copy):
    """Without the `code` trigger, a really changed input still counts: an edited
    corpus retrains (and the training job then refuses it: tests/test_faults_provenance.py)."""
    code, run = workflow_copy
    with open(run / "data/corpus.txt", "a", encoding="utf-8") as handle:
        handle.write("\nAn edit by hand.\n")
    planned = planned_rules(code, run)
    # every model trained on it (the generated long-memory corpus's are not), and the
    # small corpus cut from it
    assert planned.get("train", 0) > 0 and planned.get("small_corpus") == 1, planned
