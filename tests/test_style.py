"""Lint and format checks, so that the one test command covers them too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

PYTHON_PATHS = ["src", "tests", "workflow/scripts", "bench"]


def run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)


def tool(name: str) -> str:
    """The tool installed beside this interpreter (the venv's), else the one on PATH."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or name


def test_ruff_check_is_clean():
    proc = run(tool("ruff"), "check", *PYTHON_PATHS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format_is_clean():
    proc = run(tool("ruff"), "format", "--check", *PYTHON_PATHS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_snakefmt_is_clean():
    proc = run(tool("snakefmt"), "--check", "Snakefile", "workflow/Snakefile", "workflow/rules")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_snakemake_lint_is_clean_on_the_default_config():
    proc = run(sys.executable, "-m", "snakemake", "--lint", "--nolock")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "Congratulations, your workflow is in a good condition!" in output, output


def test_the_package_layers_import_only_downward():
    """import-linter's contracts in pyproject.toml: core < io < train < analysis < tables
    < (claims | questions) < report < the workflow's tools, and no science module
    imports Snakemake or the benchmarks."""
    env_path = f"{REPO / 'src'}"
    proc = subprocess.run(
        [tool("lint-imports")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": env_path},
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout, proc.stdout[-4000:]


def test_no_module_of_the_package_is_over_400_lines():
    long = {
        str(path.relative_to(REPO)): n
        for path in (REPO / "src").rglob("*.py")
        if (n := len(path.read_text().splitlines())) > 400
    }
    assert not long, f"split these modules by concern: {long}"
