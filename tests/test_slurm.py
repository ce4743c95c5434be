"""The SLURM profiles (profiles/slurm, profiles/slurm-gpu).

Always: they parse, submit to SLURM, and stay in step with each other; the
default profile never submits. Opt-in (GATEDRNN_SLURM_TEST=1, root, Debian):
tests/slurm/run.sh runs the workflow on a real one-node SLURM cluster.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SLURM = REPO / "profiles" / "slurm" / "config.yaml"
SLURM_GPU = REPO / "profiles" / "slurm-gpu" / "config.yaml"
DEFAULT = REPO / "profiles" / "default" / "config.yaml"


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def test_slurm_profile_submits_to_slurm():
    profile = load(SLURM)
    assert profile["executor"] == "slurm"
    assert profile["jobs"] >= 1
    assert profile["retries"] >= 1
    assert profile["rerun-incomplete"] is True
    assert profile["slurm-requeue"] is True
    assert {"mem_mb", "runtime"} <= set(profile["default-resources"])
    # cpus per training job follow the rule's threads (config train.threads)
    assert profile["set-resources"]["train"]["cpus_per_task"] == "threads"


def test_the_profiles_comments_say_what_the_readme_and_the_workflow_do():
    """Issue 52: the profile's header said every job goes through SLURM and that the full
    grid is 12 training jobs, where the README says only `train` and `gates` are submitted,
    and 135 trainings (today 204). The comments name the rules workflow/Snakefile schedules (all
    others are localrules) and the README's count of trainings (tested against
    `snakemake -n` in tests/test_readme_counts.py)."""
    import re

    snakefile = (REPO / "workflow" / "Snakefile").read_text()
    scheduled = set(
        re.findall(r"rules\.(\w+)\.rule", snakefile.split("SCHEDULED_RULES = ", 1)[1].split("\n")[0])
    )
    readme = (REPO / "README.md").read_text()
    cluster = readme.split("## Running on a cluster", 1)[1].split("\n## ", 1)[0]
    trainings = re.search(r"\((\d+) training jobs in a dry\s+run", readme).group(1)
    assert scheduled == {"train", "gates"}
    assert re.search(
        r"Only `train` and `gates` go through `sbatch` \(the " + trainings + " trainings", cluster
    )
    for path in (SLURM, SLURM_GPU):
        comments = "\n".join(line for line in path.read_text().splitlines() if line.lstrip().startswith("#"))
        prose = " ".join(line.lstrip("# ").strip() for line in comments.splitlines())
        assert not re.search(r"every job of the workflow|run every job|every job (?:as|through|goes)", prose,
                             re.IGNORECASE), path  # fmt: skip
        if path == SLURM:
            named = set(re.findall(r"`(\w+)`", prose.split("localrules", 1)[0].split("Submits", 1)[1]))
            assert named == scheduled, (path, named)
        counts = re.findall(r"(\d+) training jobs", prose)
        assert counts == [trainings], (path, counts)


def test_default_profile_never_submits():
    # Snakemake loads profiles/default on every run in this directory.
    profile = load(DEFAULT)
    assert "executor" not in profile
    assert not any(key.startswith("slurm") for key in profile)


def test_gpu_profile_is_the_slurm_profile_plus_one_gpu_per_training_job():
    cpu, gpu = load(SLURM), load(SLURM_GPU)
    gpu_train = dict(gpu["set-resources"]["train"])
    assert gpu_train.pop("gpu") == 1
    assert gpu_train == cpu["set-resources"]["train"]
    assert {k: v for k, v in gpu["set-resources"].items() if k != "train"} == {
        k: v for k, v in cpu["set-resources"].items() if k != "train"
    }
    assert {k: v for k, v in gpu.items() if k != "set-resources"} == {
        k: v for k, v in cpu.items() if k != "set-resources"
    }


@pytest.mark.skipif(
    importlib.util.find_spec("snakemake_executor_plugin_slurm") is None,
    reason="the SLURM executor plugin is an extra: pip install -e '.[slurm]'",
)
@pytest.mark.parametrize("profile", [SLURM, SLURM_GPU], ids=["slurm", "slurm-gpu"])
def test_snakemake_accepts_every_key_of_the_profile(profile):
    """Snakemake's own parser (with the SLURM plugin's options) reads the profile:
    a misspelt key or an unparsable resource fails here, not on the cluster."""
    from snakemake.cli import parse_args

    _, args = parse_args(["--profile", str(profile.parent), "--workflow-profile", "none", "--dry-run"])
    assert args.executor == "slurm"
    assert args.slurm_requeue is True
    assert args.slurm_jobname_prefix == "gatedrnn"
    assert "cpus_per_task" in args.set_resources["train"]
    assert ("gpu" in args.set_resources["train"]) == (profile == SLURM_GPU)


@pytest.mark.slurm
@pytest.mark.skipif(
    os.environ.get("GATEDRNN_SLURM_TEST") != "1",
    reason="starts a real SLURM cluster as root; set GATEDRNN_SLURM_TEST=1 (CI does)",
)
def test_workflow_on_a_real_slurm_cluster():
    proc = subprocess.Popen(
        ["bash", str(REPO / "tests" / "slurm" / "run.sh")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        out, _ = proc.communicate(timeout=1800)
    except subprocess.TimeoutExpired:
        proc.terminate()  # run.sh's trap cancels the jobs and stops its daemons
        out, _ = proc.communicate(timeout=120)
        pytest.fail(f"tests/slurm/run.sh still running after 30 minutes:\n{out[-6000:]}")
    print(out)
    verdicts = [line for line in out.splitlines() if line.startswith(("PASS", "FAIL", "SKIP"))]
    if proc.returncode == 0 and verdicts and verdicts[-1].startswith("SKIP"):
        pytest.skip(verdicts[-1])
    assert proc.returncode == 0 and verdicts and verdicts[-1].startswith("PASS:"), out[-6000:]
