"""Config faults: every invalid config is refused before any job starts, naming the key.

The bulk of the generated configs go through ``snakemake.utils.validate`` against the
workflow's schema (what workflow/rules/common.smk calls); a few go through the real
``snakemake`` command line, which must stop before building the DAG and leave no
data/ or results/ behind.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import yaml
from conftest import run_snakemake
from faults.configs import SCHEMA_PATH, float_integer, invalid_configs
from faults.runs import smoke_config, write_config
from hypothesis import HealthCheck, given, settings
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from gatedrnn.plan.config_files import UniqueKeyLoader

SMOKE = smoke_config()
CLI_SETTINGS = settings(
    max_examples=3, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def test_the_smoke_config_itself_is_valid():
    validate(smoke_config(), str(SCHEMA_PATH))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(case=invalid_configs(SMOKE))
def test_invalid_config_is_refused_naming_the_key(case, fault_ledger):
    config, description, evidence, key = case
    name = fault_ledger.tried(f"config (validate): {description}")
    with pytest.raises(WorkflowError) as refusal:
        validate(config, str(SCHEMA_PATH))
    message = str(refusal.value)
    assert "Error validating config file" in message
    assert evidence in message, f"{description}: {evidence!r} not in\n{message[:2000]}"
    assert key in message
    fault_ledger.rejected(name)


def refused_by_the_cli(config: dict, description: str, evidence: str, fault_ledger) -> str:
    """Run the real command line (a real run, not a dry run) on ``config``; it must stop
    at validation: non-zero exit, ``evidence`` in its output, no DAG, no files."""
    name = fault_ledger.tried(f"config (snakemake CLI): {description}")
    workdir = Path(tempfile.mkdtemp(prefix="badconfig"))
    configfile = workdir.parent / f"{workdir.name}.yaml"
    configfile.write_text(yaml.safe_dump(config))
    proc = run_snakemake(workdir, "--cores", "1", "data/corpus.txt", configfile=configfile, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output[-3000:]
    assert evidence in output, f"{description}: {evidence!r} not in\n{output[-3000:]}"
    assert "Building DAG of jobs" not in output and "Job stats" not in output
    assert not (workdir / "data").exists() and not (workdir / "results").exists()
    fault_ledger.rejected(name)
    return output


@CLI_SETTINGS
@given(case=invalid_configs(SMOKE))
def test_invalid_config_is_refused_by_the_command_line(case, fault_ledger):
    config, description, evidence, key = case
    output = refused_by_the_cli(config, description, evidence, fault_ledger)
    assert "Error validating config file" in output and key in output


@settings(max_examples=2, deadline=None, derandomize=True)
@given(case=float_integer(SMOKE))
def test_integer_setting_written_as_a_float_is_refused(case, fault_ledger):
    """JSON Schema calls 40.0 an integer; the workflow must not (it crashed training
    with a bare TypeError before common.smk refused it)."""
    config, description, evidence = case
    output = refused_by_the_cli(config, description, evidence, fault_ledger)
    assert "without a decimal point" in output


def test_sweep_naming_an_undefined_regime_is_refused(tmp_path, fault_ledger):
    config = smoke_config()
    config["forget_bias_sweep"]["regimes"] = ["default", "forget_bias_9"]
    refused_by_the_cli(config, "forget_bias_sweep names an undefined regime", "forget_bias_9", fault_ledger)


def test_config_override_on_the_command_line_is_validated_too(tmp_path, fault_ledger):
    """``--config`` values are merged after the config files and validated with them."""
    name = fault_ledger.tried("config (snakemake CLI --config): train.optimizer=rmsprop")
    configfile = write_config(tmp_path / "smoke.yaml")
    workdir = tmp_path / "run"
    proc = run_snakemake(
        workdir, "--cores", "1", "data/corpus.txt", "--config", "train={optimizer: rmsprop}",
        configfile=configfile, check=False,
    )  # fmt: skip
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "Error validating config file" in output
    assert "rmsprop" in output and "optimizer" in output
    assert not (workdir / "data").exists()
    fault_ledger.rejected(name)


# A key given twice in one mapping is an error (PyYAML and Snakemake keep the last): the
# workflow's own check of a user's config files (gatedrnn.plan.config_files).
_NoDuplicateKeys = UniqueKeyLoader


REPO = Path(__file__).resolve().parents[1]
SHIPPED_YAML = sorted(
    path
    for pattern in ("config/*.yaml", "profiles/*/config.yaml", "workflow/resources/*.yaml", "envs/*.yaml")
    for path in REPO.glob(pattern)
) + sorted(REPO.glob(".snakemake-workflow-catalog.yml"))


@pytest.mark.parametrize("path", SHIPPED_YAML, ids=lambda p: str(p.relative_to(REPO)))
def test_no_shipped_yaml_gives_a_key_twice(path):
    yaml.load(path.read_text(), Loader=_NoDuplicateKeys)


def test_a_key_given_twice_is_caught():
    with pytest.raises(yaml.constructor.ConstructorError, match="seeds given twice"):
        yaml.load("a:\n  seeds: [0]\n  b: 1\n  seeds: [1]\n", Loader=_NoDuplicateKeys)
