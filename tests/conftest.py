"""Shared fixtures: the repository's paths and one complete smoke run per session.

Workflow tests run Snakemake as a user would (the real CLI, in a fresh working
directory) on config/smoke.yaml; the corpus is generated, so no network is used.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SNAKEFILE = REPO / "Snakefile"
SMOKE_CONFIG = REPO / "config" / "smoke.yaml"
DEFAULT_CONFIG = REPO / "config" / "config.yaml"


def snakemake_cmd(
    workdir: Path, *args: str, configfile: Path | None = SMOKE_CONFIG, snakefile: Path = SNAKEFILE
) -> list[str]:
    """The snakemake command line for ``workdir`` (the repo's Snakefile unless told, no profile)."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(snakefile), "--directory", str(workdir)]
    if configfile is not None:
        cmd += ["--configfile", str(configfile)]
    return cmd + list(args)


def run_snakemake(workdir: Path, *args: str, configfile: Path | None = SMOKE_CONFIG, timeout: float = 900,
                  check: bool = True, env: dict | None = None,
                  snakefile: Path = SNAKEFILE) -> subprocess.CompletedProcess:  # fmt: skip
    proc = subprocess.run(
        snakemake_cmd(workdir, *args, configfile=configfile, snakefile=snakefile),
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"snakemake failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
        )
    return proc


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Path:
    """A working directory in which the whole smoke DAG has run to completion."""
    workdir = tmp_path_factory.mktemp("smoke")
    run_snakemake(workdir, "--cores", "2")
    return workdir


@pytest.fixture(scope="session")
def smoke_run_again(tmp_path_factory) -> Path:
    """A second, independent complete smoke run (for determinism checks)."""
    workdir = tmp_path_factory.mktemp("smoke_again")
    run_snakemake(workdir, "--cores", "2")
    return workdir


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """Where tests leave files for a person to look at (screenshots, summaries)."""
    path = REPO / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


# --- fault injection (tests/test_faults_*.py) ------------------------------------------


@pytest.fixture(scope="session")
def fault_ledger(artifacts_dir):
    """The session's tally of faults and bad inputs (tests/faults/ledger.py), written to
    test-artifacts/fault_summary.json when the session ends."""
    from faults.ledger import LEDGER

    yield LEDGER
    LEDGER.write(artifacts_dir / "fault_summary.json")


def pytest_terminal_summary(terminalreporter):
    from faults.ledger import LEDGER

    if LEDGER:
        terminalreporter.write_sep("-", "fault injection")
        terminalreporter.write_line(LEDGER.headline())
