"""The routes by which other people pick the workflow up, replayed on a fresh clone:
the Snakemake workflow catalog's inclusion check (its scraper, scripts/generate-catalog.py
of snakemake/snakemake-workflow-catalog, and its "Adding workflows" page), and
`snakedeploy deploy-workflow`.

The catalog includes a repository whose README names "snakemake" and "workflow", whose
Snakefile is workflow/Snakefile whenever a workflow/ folder exists, and whose rules
folder holds .smk files; it lists the workflow under "standardized usage" when
.snakemake-workflow-catalog.yml parses and config/README.md exists, and records the
output of `snakemake --lint` and `snakefmt --check`. Its deploy instructions use the
latest release's tag; a clone has none, so docs/deploy.md pins a commit."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import REPO

pytestmark = pytest.mark.workflow


def run(*cmd, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A fresh clone of this repository's committed tree (what the catalog downloads)."""
    path = tmp_path_factory.mktemp("catalog") / "clone"
    proc = run("git", "clone", "--quiet", "--depth", "1", f"file://{REPO}", path, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    return path


def catalog_verdict(repo: Path) -> tuple[str, list[str]]:
    """The catalog's decision for a checkout: "skipped", "generic" or "standardized",
    with the reasons it logs."""
    notes = []
    readme = (repo / "README.md").read_text().lower() if (repo / "README.md").exists() else ""
    if "snakemake" not in readme or "workflow" not in readme:
        return "skipped", ["README.md does not name snakemake and workflow"]
    prefix = "workflow/" if (repo / "workflow").exists() else ""
    if not (repo / f"{prefix}Snakefile").is_file():
        return "skipped", ["Skipped because of missing Snakefile"]
    rules = repo / f"{prefix}rules"
    if rules.exists() and not any(path.suffix == ".smk" for path in rules.iterdir()):
        return "skipped", ["rule modules are not using .smk extension"]
    settings_file = repo / ".snakemake-workflow-catalog.yml"
    settings = None
    if settings_file.exists():
        try:
            settings = yaml.safe_load(settings_file.read_text())
        except yaml.YAMLError as err:
            notes.append(f"no standardized usage: .snakemake-workflow-catalog.yml does not parse: {err}")
    if settings is not None and (repo / "config" / "README.md").exists():
        return "standardized", notes
    notes.append("no .snakemake-workflow-catalog.yml or no config/README.md")
    return "generic", notes


def test_catalog_replay_says_standardized(clone, artifacts_dir):
    verdict, notes = catalog_verdict(clone)
    usage = yaml.safe_load((clone / ".snakemake-workflow-catalog.yml").read_text())["usage"]
    # the fields the catalog reads (Repo in its scraper), with the types it renders
    assert isinstance(usage["mandatory-flags"]["desc"], str)
    assert isinstance(usage["mandatory-flags"]["flags"], str | list)
    assert set(usage["software-stack-deployment"]) == {"conda", "apptainer", "apptainer+conda"}
    assert all(isinstance(value, bool) for value in usage["software-stack-deployment"].values())
    assert usage["report"] is True
    (artifacts_dir / "catalog_replay.txt").write_text(f"{verdict}\n" + "".join(f"{n}\n" for n in notes))
    assert verdict == "standardized", notes


def test_catalog_lint_and_format_checks_are_clean_on_the_clone(clone):
    """The catalog shows `snakemake --lint` (run at the clone's root) and `snakefmt --check`
    of workflow/Snakefile and workflow/rules/*.smk beside the workflow: both clean."""
    lint = run(sys.executable, "-m", "snakemake", "--lint", cwd=clone)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    snakefmt = Path(sys.executable).with_name("snakefmt")
    files = [clone / "workflow/Snakefile", *sorted((clone / "workflow/rules").glob("*.smk"))]
    fmt = run(snakefmt, "--check", *files, cwd=clone)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_the_deploy_page_pins_by_what_a_clone_has():
    """A fresh clone has no tags: docs/deploy.md deploys the branch or pins a commit
    (snakedeploy's --branch and --commit), and names the release by the package's version,
    which CITATION.cff and CHANGELOG.md carry too."""
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    deploy = (REPO / "docs" / "deploy.md").read_text()
    assert re.search(r"snakedeploy deploy-workflow \S+ \S+ --branch main", deploy)
    assert re.search(r"snakedeploy deploy-workflow \S+ \S+ --commit COMMIT", deploy)
    assert "--tag" not in deploy and "--tag" not in (REPO / "README.md").read_text()
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["version"] == version and f'version = "{version}"' in deploy


def snakedeploy_command() -> str | None:
    """snakedeploy beside this interpreter (the test extra's), else on PATH."""
    beside = Path(sys.executable).with_name("snakedeploy")
    return str(beside) if beside.exists() else shutil.which("snakedeploy")


NO_SNAKEDEPLOY = "snakedeploy is not installed (pip install -e '.[test]')"


@pytest.mark.skipif(snakedeploy_command() is None, reason=NO_SNAKEDEPLOY)
def test_snakedeploy_deploys_a_local_clone(clone, tmp_path):
    """`snakedeploy deploy-workflow` on a local clone: the user gets config/ (settings
    only, not the workflow's data) and a module of workflow/Snakefile, which plans."""
    snakedeploy = snakedeploy_command()
    dest = tmp_path / "deployed"
    # pinned to the clone's commit, as docs/deploy.md says (a clone has no tags)
    commit = run("git", "rev-parse", "HEAD", cwd=clone).stdout.strip()
    proc = run(
        snakedeploy, "deploy-workflow", clone, dest, "--commit", commit, "--name", "gatedrnn", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in (dest / "config").iterdir()) == sorted(
        p.name for p in (clone / "config").iterdir()
    )
    assert not list((dest / "config").glob("published*")) and not list(
        (dest / "config").glob("new_findings*")
    )
    deployed = (dest / "workflow" / "Snakefile").read_text()
    # the workflow itself, not the root's entry point (which a module would include twice)
    declaration = re.search(r"snakefile:\s*\n\s*(\S+)", deployed).group(1)
    assert declaration == '"workflow/Snakefile"', deployed
    # snakedeploy names the file relative to the source repository (for GitHub:
    # github(..., path="workflow/Snakefile", commit=...)); a local one is this clone
    (dest / "workflow" / "Snakefile").write_text(
        deployed.replace(declaration, f'"{clone}/workflow/Snakefile"')
    )
    plan = run(sys.executable, "-m", "snakemake", "-n", "--configfile", "config/smoke.yaml", cwd=dest)
    text = plan.stdout + plan.stderr
    assert plan.returncode == 0, text[-4000:]
    assert re.search(r"^train\s+\d+", text, re.M), text[-4000:]
