"""Every ``python -m gatedrnn...`` command the README and docs/ give passes on real inputs
(issue 31), run as a user runs it: the reference against itself, a smoke run against the
reference, and each subcommand with its documented arguments. A dependency upgrade that
breaks one (pandas 3's ``astype(str)`` keeping NaN broke the README's compare command)
fails here.

``test_every_documented_command_is_run_here`` keeps the list in step with the documents:
a command documented anew without a test here fails it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from conftest import DEFAULT_CONFIG, REPO, SMOKE_CONFIG, run_snakemake

DOCUMENTS = ["README.md", "config/README.md", "reference/README.md", "profiles/README.md",
             *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))]  # fmt: skip
COMMAND = re.compile(r"python -m (gatedrnn(?:\.[a-z_]+)+)(?:\s+([a-z][a-z-]+))?")

# module (and subcommand) -> the test below that runs it as documented
RUN_HERE = {
    "gatedrnn.compare": "test_the_reference_against_itself_is_identical",
    "gatedrnn.code_version": "test_code_version_lists_the_train_rules_modules",
    "gatedrnn.estimate": "test_estimate_collect_and_pages_on_a_smoke_run",
    "gatedrnn.reference": "test_pages_and_ledger_regenerate_the_committed_files",  # the layout's line
    "gatedrnn.reference collect": "test_estimate_collect_and_pages_on_a_smoke_run",
    "gatedrnn.reference pages": "test_pages_and_ledger_regenerate_the_committed_files",
    "gatedrnn.reference ledger": "test_pages_and_ledger_regenerate_the_committed_files",
    "gatedrnn.reference scoreboard": "test_scoreboard_and_confirm_targets_on_the_reference",
    "gatedrnn.reference confirm": "test_scoreboard_and_confirm_targets_on_the_reference",
    "gatedrnn.reference changes": "test_changes_against_the_previous_references_ledger",
    "gatedrnn.reference restore": "test_restore_puts_the_references_tables_back_into_a_results_folder",
    "gatedrnn.train.memory_calibration": "test_memory_calibration_fits_the_recorded_peaks",
    # run as documented, end to end at smoke size, in tests/test_verify.py
    "gatedrnn.verify": "test_verify.py::test_verify_end_to_end_at_smoke_size",
    "gatedrnn.verify fingerprint": "test_fingerprint.py::test_this_cpu_trains_the_fingerprints_bits",
    # on the smoke run, a run and a missing run, in tests/test_api.py
    "gatedrnn.api": "test_api.py::test_the_command_line_prints_the_run_or_one_error_line",
}


def run(*args: str, cwd=REPO) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (
        f"{' '.join(args)} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    )
    assert "Traceback" not in proc.stderr, proc.stderr[-4000:]
    return proc


def documented_commands() -> set[str]:
    found = set()
    for name in DOCUMENTS:
        for module, sub in COMMAND.findall((REPO / name).read_text()):
            found.add(f"{module} {sub}" if module == "gatedrnn.reference" and sub else module)
    return found


def test_every_documented_command_is_run_here():
    documented = documented_commands()
    assert "gatedrnn.compare" in documented and "gatedrnn.reference pages" in documented
    assert documented <= set(RUN_HERE), f"documented but not run by a test here: {documented - set(RUN_HERE)}"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A copy of the checkout's tracked files, to run the commands that write into it."""
    root = tmp_path_factory.mktemp("checkout")
    names = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True)
    for name in filter(None, names.stdout.decode().split("\0")):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    return root


def compared(output: str) -> dict[str, str]:
    """table -> status, from the compare command's report."""
    rows = {}
    for line in output.splitlines():
        parts = line.split()
        if parts and parts[0].endswith(".csv"):
            rows[parts[0]] = " ".join(parts[5:])
    return rows


def test_the_reference_against_itself_is_identical(tmp_path):
    """README: ``python -m gatedrnn.compare --run results --reference reference [--details
    values.csv] [--strict]``, with the reference as the run, and reference/README's
    ``--run reference/another_cpu``."""
    details = tmp_path / "values.csv"
    proc = run("gatedrnn.compare", "--run", "reference", "--reference", "reference",
               "--details", str(details), "--strict")  # fmt: skip
    tables = compared(proc.stdout)
    assert set(tables) == {p.name for p in (REPO / "reference/tables").glob("*.csv")}
    assert set(tables.values()) == {"compared"}
    values = pd.read_csv(details)
    assert set(values["status"]) == {"identical"} and len(values) > 1000
    if (REPO / "reference/tables/alphabet_check.csv").exists():  # stage protocol in
        # alphabet_check.csv has empty label cells: its rows are matched too
        assert (values["table"] == "alphabet_check.csv").any()
    if (REPO / "reference/another_cpu").exists():
        other = run("gatedrnn.compare", "--run", "reference/another_cpu", "--reference", "reference")
        assert "compared" in set(compared(other.stdout).values())


def test_code_version_lists_the_train_rules_modules():
    proc = run("gatedrnn.code_version", "workflow/scripts/train.py")
    assert re.match(r"workflow/scripts/train.py: [0-9a-f]{16}\n", proc.stdout)
    assert "  gatedrnn.train.loop\n" in proc.stdout


def test_pages_and_ledger_regenerate_the_committed_files(checkout):
    """``python -m gatedrnn.reference pages`` regenerates README.md, docs/results.md,
    docs/protocol-scoreboard.md and reference/README.md byte for byte; ``ledger`` the
    ledger and open questions (the manifest records when)."""
    before = {p: p.read_bytes() for p in checkout.rglob("*") if p.is_file()}
    run("gatedrnn.reference", "pages", cwd=checkout)
    if (checkout / "reference/claims.csv").exists():
        run("gatedrnn.reference", "ledger", cwd=checkout)
    else:  # stages still to come: the ledger waits for them, and says so
        proc = subprocess.run([sys.executable, "-m", "gatedrnn.reference", "ledger"], cwd=checkout,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert proc.returncode == 1 and "collect every stage first" in proc.stderr, proc.stderr
    changed = {str(p.relative_to(checkout)) for p in checkout.rglob("*") if p.is_file()
               and before.get(p) != p.read_bytes()}  # fmt: skip
    # nothing changed, so nothing is rewritten, the manifest's time and commit included (issue #53)
    assert not changed, changed


@pytest.mark.skipif(
    not (REPO / "reference/tables/protocol_scoreboard.csv").exists(), reason="stage protocol is still to come"
)
def test_scoreboard_and_confirm_targets_on_the_reference(checkout):
    proc = run("gatedrnn.reference", "scoreboard", cwd=checkout)
    assert "the committed scoreboard is what these tables give" in proc.stdout
    targets = run("gatedrnn.reference", "confirm", "--targets", cwd=checkout).stdout.split()
    assert targets and all(t.startswith("results/") for t in targets)
    assert any(t.endswith("/summary.json") for t in targets)


def previous_ledger() -> str:
    """The previous reference's ledger as reference/README.md gives it (`git show REV:PATH`)."""
    found = re.search(r"`git show (\S+:reference/claims\.csv) > old_claims\.csv`",
                      (REPO / "reference" / "README.md").read_text())  # fmt: skip
    assert found, "reference/README.md gives no `git show REV:reference/claims.csv > old_claims.csv`"
    return found.group(1)


def test_restore_puts_the_references_tables_back_into_a_results_folder(tmp_path):
    """reference/README.md: ``python -m gatedrnn.reference restore --reference ...``, from
    the committed reference into a fresh results/: every table, figure and seed row its
    stages collected, byte for byte, all with one modification time."""
    import os

    from gatedrnn.reference.restore import RESTORED_FOLDERS

    results = tmp_path / "results"
    proc = run("gatedrnn.reference", "restore", "--reference", "reference", "--results", str(results))
    listed = json.loads((REPO / "reference" / "manifest.json").read_text())["stages"]
    names = {
        n
        for stage in listed.values()
        for n in stage.get("files", [])
        if n.startswith(tuple(f"{folder}/" for folder in RESTORED_FOLDERS))
    }
    assert names and f"restored {len(names)} files" in proc.stdout
    assert {str(p.relative_to(results)) for p in results.rglob("*") if p.is_file()} == names
    assert all((results / n).read_bytes() == (REPO / "reference" / n).read_bytes() for n in names)
    assert len({os.stat(results / n).st_mtime for n in names}) == 1


def test_changes_against_the_previous_references_ledger(tmp_path):
    """reference/README's ``git show 1c4b81b^:reference/claims.csv > old_claims.csv`` then
    ``python -m gatedrnn.reference changes --old old_claims.csv``: both ledgers' counts per
    family, and the changed verdicts, each claim once."""
    shown = subprocess.run(["git", "-C", str(REPO), "show", previous_ledger()], capture_output=True)
    if shown.returncode != 0:  # a clone without that history (--depth)
        pytest.skip(f"git show {previous_ledger()}: {shown.stderr.decode().strip()}")
    old = tmp_path / "old_claims.csv"
    old.write_bytes(shown.stdout)
    proc = run("gatedrnn.reference", "changes", "--old", str(old))
    assert "values reproduced" in proc.stdout and "verdicts changed" in proc.stdout
    changed = proc.stdout.split("verdicts changed")[1].splitlines()
    listed = [line.split("|")[1].strip() for line in changed if line.startswith("| ")][1:]  # after the header
    assert listed and len(listed) == len(set(listed)), listed


def test_memory_calibration_fits_the_recorded_peaks():
    """docs/protocol.md's ``python -m gatedrnn.train.memory_calibration``, measuring nothing."""
    proc = run("gatedrnn.train.memory_calibration", "--recorded", "--fit")
    assert "held out" in proc.stdout


# ---------------------------------------------------------------- on a smoke run


@pytest.mark.workflow
def test_a_smoke_run_against_the_reference(smoke_run, tmp_path):
    """The README's compare command on a run of another config: every reference table is
    reported (another config's rows are not comparable), none crashes it."""
    details = tmp_path / "values.csv"
    proc = run("gatedrnn.compare", "--run", str(smoke_run / "results"), "--reference", "reference",
               "--details", str(details))  # fmt: skip
    tables = compared(proc.stdout)
    assert set(tables) == {p.name for p in (REPO / "reference/tables").glob("*.csv")}
    assert tables.get("alphabet_check.csv") != "missing in run"
    assert "compared" in set(tables.values()) and details.exists()


@pytest.mark.workflow
def test_estimate_collect_and_pages_on_a_smoke_run(smoke_run, tmp_path):
    """reference/README's sequence: ``estimate --json projected.json stage_study``, then
    ``collect --stage study --projection projected.json``, ``collect --stage protocol
    --note``, and ``pages``, into a new reference of the smoke run."""
    workdir = shutil.copytree(smoke_run, tmp_path / "run", symlinks=True)
    # a training job for the estimate to cost: a model gone, and a table it reaches
    shutil.rmtree(workdir / "results/models/default/lstm_w24_s0")
    (workdir / "results/tables/gru_vs_lstm.csv").unlink()
    projected = tmp_path / "projected.json"
    proc = run("gatedrnn.estimate", "--cores", "2", "--directory", str(workdir), "--configfile",
               str(SMOKE_CONFIG), "--json", str(projected), "stage_study")  # fmt: skip
    assert "projected wall time" in proc.stdout and json.loads(projected.read_text())
    out, smoke = tmp_path / "reference", ["--configfile", str(SMOKE_CONFIG)]
    collect = ["gatedrnn.reference", "collect", "--results", str(smoke_run / "results"), "--out", str(out),
               "--provenance", str(smoke_run / "data/corpus.json"), *smoke]  # fmt: skip
    # as documented, from a clean clone: collect refuses a checkout with uncommitted changes
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(REPO), str(checkout)], check=True)
    run(*collect, "--stage", "study", "--projection", str(projected), cwd=checkout)
    run(*collect, "--stage", "protocol", "--note", "the smoke run", cwd=checkout)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stages"]["study"]["projection"]["jobs_run"] > 0
    assert manifest["stages"]["protocol"]["note"] == "the smoke run"
    shutil.copyfile(REPO / "reference/README.md", out / "README.md")
    readme = shutil.copyfile(REPO / "README.md", tmp_path / "README.md")
    board = shutil.copyfile(REPO / "docs/protocol-scoreboard.md", tmp_path / "protocol-scoreboard.md")
    page = tmp_path / "results.md"
    run("gatedrnn.reference", "pages", "--reference", str(out), "--page", str(page), "--readme", str(readme),
        "--scoreboard", str(board), *smoke)  # fmt: skip
    assert "# Results of the reference run" in page.read_text()
    assert board.read_text() != (REPO / "docs/protocol-scoreboard.md").read_text()  # the smoke reference's
    # confirm writes into the run's results/: a second copy, whole
    again = shutil.copytree(smoke_run / "results", tmp_path / "again" / "results", symlinks=True)
    confirm = run("gatedrnn.reference", "confirm", "--reference", str(out), "--results", str(again), *smoke)
    assert "protocol_confirmation.csv" in confirm.stdout


@pytest.mark.workflow
def test_the_smoke_run_plans_exactly_the_smoke_configs_regimes_and_candidates(smoke_run):
    """``--configfile config/smoke.yaml`` replaces config.yaml (config/README.md): the run
    trains the smoke plan's runs and no other, and its alphabet check holds the smoke
    config's candidates only (it carried config.yaml's seven when Snakemake merged them)."""
    from gatedrnn.claims.front import regimes_to_confirm
    from gatedrnn.plan import Plan

    config = yaml.safe_load(SMOKE_CONFIG.read_text())
    plan = Plan.from_config(config)
    board = pd.read_csv(smoke_run / "results/tables/protocol_scoreboard.csv")
    distances = pd.read_csv(smoke_run / "results/tables/protocol_distance.csv")
    confirmation = plan.confirmation_runs(regimes_to_confirm(distances))
    planned = {run.path for run in (*plan.training_runs, *confirmation)}
    trained = {f"{d.parent.name}/{d.name}" for d in (smoke_run / "results/models").glob("*/*")}
    assert planned <= trained
    # other tests of the session may rerun the confirmation on an edited scoreboard: any
    # more runs are still this plan's, the confirmation of some regime of its board
    anywhere = plan.confirmation_runs(list(board["regime"]))
    assert trained <= planned | {run.path for run in anywhere}
    assert {path.split("/")[0] for path in trained} <= set(config["regimes"]) | {
        point["regime"] for point in (*plan.sweep_points, *plan.corpus_size_points)
    }
    table = pd.read_csv(smoke_run / "results/tables/alphabet_check.csv")
    assert list(table.loc[table["kind"] == "candidate", "name"]) == list(
        config["protocol"]["alphabet_candidates"]
    )


@pytest.mark.workflow
def test_a_configfile_replaces_the_config_yaml_beside_it(tmp_path):
    """Run where ``config/config.yaml`` lies, as in a checkout: Snakemake alone merged it
    under ``--configfile config/smoke.yaml``, and the alphabet check carried config.yaml's
    seven candidates beside the smoke config's one (no training: corpus and inventory)."""
    shutil.copytree(REPO / "config", tmp_path / "config")
    run_snakemake(tmp_path, "--cores", "1", "results/tables/alphabet_check.csv", timeout=600)
    table = pd.read_csv(tmp_path / "results/tables/alphabet_check.csv")
    smoke = yaml.safe_load(SMOKE_CONFIG.read_text())["protocol"]["alphabet_candidates"]
    assert list(table.loc[table["kind"] == "candidate", "name"]) == list(smoke)


# a command line of a code block, or a code span (which may wrap)
SNAKEMAKE_LINE = re.compile(r"^(snakemake [^`\n#]*)|`(snakemake [^`]*)`", re.M)
TARGET = re.compile(r"^(?:results/\S+|data/\S+|stage_\w+)$")


@pytest.mark.workflow
def test_every_documented_snakemake_target_plans(tmp_path):
    """Every target a `snakemake ...` command of the README and docs/ names (files under
    results/ and data/, stage rules) is one the workflow makes: one dry run of them all on
    the default config (issue 52: the README's commands moved to docs/ stay tested)."""
    targets = set()
    for name in ["README.md", *(d for d in DOCUMENTS if d.startswith("docs/"))]:
        for command in map("".join, SNAKEMAKE_LINE.findall((REPO / name).read_text())):
            targets |= {word for word in command.split() if TARGET.match(word)}
    targets -= {"results/report.html"}  # --report's output, made by snakemake itself after a run
    assert {"results/tables/gru_vs_lstm.csv", "data/corpus.txt", "stage_study"} <= targets, targets
    proc = run_snakemake(tmp_path, "-n", *sorted(targets), configfile=DEFAULT_CONFIG, check=False)
    assert proc.returncode == 0, (sorted(targets), proc.stdout[-3000:], proc.stderr[-3000:])
