"""The toy run in its own place (issue 52): `config/smoke.yaml` writes everything under
the directory the README gives it, never into the real run's data/ and results/, and is
refused in the checkout itself; every page and ledger it writes says first that it is a
toy run. Dry runs and the session's one smoke run (`smoke_run`): no second smoke DAG."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import DEFAULT_CONFIG, REPO, SMOKE_CONFIG, SNAKEFILE, run_snakemake

from gatedrnn.plan.toy import is_toy, toy_note

README = (REPO / "README.md").read_text()
TOY_COMMAND = re.search(
    r"^snakemake --cores 2 --configfile config/smoke.yaml --directory (\w+)$", README, re.M
)


def test_the_toy_config_is_the_toy_and_the_default_is_not():
    assert TOY_COMMAND, "the README's toy run names no --directory of its own"
    assert f"/{TOY_COMMAND.group(1)}/" in (REPO / ".gitignore").read_text().split()
    smoke, default = (yaml.safe_load(path.read_text()) for path in (SMOKE_CONFIG, DEFAULT_CONFIG))
    assert is_toy(smoke) and not is_toy(default) and toy_note(default) == ""
    note = toy_note(smoke)
    assert note.startswith("A toy run on a generated corpus: its verdicts mean nothing.")
    assert f"{smoke['train']['steps']} steps" in note and f"width {smoke['grid']['reference_width']}" in note


def planned_outputs(workdir) -> list[str]:
    """Every output a default-config dry run in ``workdir`` would write, sorted."""
    proc = run_snakemake(workdir, "-n", configfile=DEFAULT_CONFIG)
    return sorted(re.findall(r"^\s+output: (.+)$", proc.stdout, re.M))


@pytest.mark.workflow
def test_the_toy_config_is_refused_in_the_checkout_itself():
    proc = run_snakemake(REPO, "-n", check=False)
    assert proc.returncode != 0
    said = proc.stdout + proc.stderr
    assert "toy run on a generated corpus" in said and "--directory toy" in said, said[-3000:]


@pytest.mark.workflow
def test_a_toy_run_leaves_the_real_runs_plan_as_it_was(smoke_run, tmp_path):
    """In a checkout, the README's toy run then `snakemake -n` on the default config: the
    same jobs as before the toy run. The session's finished smoke run stands in for the
    toy run's files, and the README's command, run there, writes nothing outside them."""
    root = tmp_path / "checkout"
    shutil.copytree(REPO / "config", root / "config")  # what the README's command names
    before = planned_outputs(root)
    assert before
    toy = root / TOY_COMMAND.group(1)
    shutil.copytree(smoke_run, toy, symlinks=True, ignore=shutil.ignore_patterns(".snakemake"))
    command = TOY_COMMAND.group(0).split()[1:]
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), *command, "-n"], cwd=root,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert {p.name for p in root.iterdir()} == {"config", toy.name, ".snakemake"}  # .snakemake: the dry runs
    assert not (root / "data").exists() and not (root / "results").exists()
    assert planned_outputs(root) == before


@pytest.mark.workflow
def test_a_toy_runs_ledger_and_answers_say_first_that_it_is_a_toy(smoke_run):
    note = toy_note(yaml.safe_load(SMOKE_CONFIG.read_text()))
    results = smoke_run / "results"
    for page in ("claims.md", "open_questions.md"):
        head = "\n".join((results / page).read_text().splitlines()[:4])
        assert f"> **{note}**" in head, page
    page = (results / "claims.html").read_text()
    top = page.split("<h2>", 1)[1].split('<p class="summary">', 1)[0]  # under the title, above all
    assert f'<p class="toy-run"><strong>{html.escape(note)}</strong></p>' in top
