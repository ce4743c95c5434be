"""The conda environment (envs/gatedrnn.yaml, for `snakemake --sdm conda`) and how the
rules' scripts find the package without it being installed there."""

from __future__ import annotations

import re
import tomllib

import pytest
import yaml
from conftest import REPO

ENV = yaml.safe_load((REPO / "envs/gatedrnn.yaml").read_text())
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def pip_pins() -> list[str]:
    pips = [d for d in ENV["dependencies"] if isinstance(d, dict) and "pip" in d]
    return pips[0]["pip"] if pips else []


def test_the_environment_holds_dependencies_only():
    """No `-e ..`: Snakemake resolves an env file from its own copy under
    .snakemake/conda/, where `..` is not the checkout."""
    for line in pip_pins():
        assert not line.startswith(("-e", "--editable", ".", "/")), line
        assert "gatedrnn" not in line, line


def test_the_environment_pins_what_pyproject_pins_for_the_jobs():
    pins = dict(line.split("==") for line in pip_pins())
    wanted = dict(d.split("==") for d in PROJECT["dependencies"] if not d.startswith("snakemake"))
    assert pins == wanted
    python = [d for d in ENV["dependencies"] if isinstance(d, str) and d.startswith("python=")]
    assert python and re.match(r"python=3\.1[1-9]", python[0])
    assert PROJECT["requires-python"] == ">=3.11"


def test_every_rule_names_the_environment():
    for path in (REPO / "workflow/rules").glob("*.smk"):
        text = path.read_text()
        rules = len(re.findall(r"^(?:rule|checkpoint) \w+:", text, re.M))
        assert text.count("conda:\n        ENV") == rules, path.name


@pytest.mark.workflow
def test_the_jobs_import_the_checkouts_own_package(smoke_run):
    """common.smk puts <workflow>/src first on PYTHONPATH for every job: the package a
    rule's code version covers is the one its script runs, installed or not."""
    log = (smoke_run / "results/logs/gru_vs_lstm.log").read_text().splitlines()[0]
    assert f"gatedrnn from {REPO / 'src' / 'gatedrnn'} (pid " in log, log
