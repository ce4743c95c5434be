"""Shared fixtures: the repository's paths and one complete smoke run per session.

Workflow tests run Snakemake as a user would (the real CLI, in a fresh working
directory) on config/smoke.yaml; the corpus is generated, so no network is used.

The suite's time (issue #50: under 20 minutes in CI on either CPU kind; `.ci/run`
prints its wall time and warns past the budget) goes mostly to Snakemake runs. Rules
for this file and the tests that use it:

- ``smoke_run`` is made once per test session, also when pytest-xdist runs the session
  on several workers (CI: ``-n 2``): the first worker to ask builds the run under a lock
  in the session's common temporary folder, the others wait for it and share it
  (:func:`shared_smoke_run`). Never a second build: a test that needs a run made again
  remakes what it checks in a copy (tests/test_faults_determinism.py).
- Tests only read them. A test that runs Snakemake in a finished run, or edits one,
  works on its own copy (:func:`copy_of_smoke_run`, a second or so): a dry run writes
  ``.snakemake/`` too, and another worker may be copying the shared run at that moment.
- Under pytest-xdist, CI distributes whole modules (``--dist loadfile``: a module's
  module-scoped fixtures, a trained reference run or a cluster, are made once), and the
  fault ledger of every worker is merged into one summary at the end (:func:`fault_ledger`).
"""

from __future__ import annotations

import fcntl
import json
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


def session_root(tmp_path_factory) -> Path:
    """The temporary folder every worker of this test session shares (pytest-xdist gives
    each worker its own basetemp inside it; without xdist it is the session's basetemp)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_smoke_run(tmp_path_factory, name: str) -> Path:
    """``<session root>/<name>``: the whole smoke DAG run to completion there, once per
    session whatever the number of workers (a lock; the run marked done when complete).
    A failed build is not tried again by the next worker: it fails with the same message."""
    root = session_root(tmp_path_factory)
    workdir, done, failed = root / name, root / f"{name}.done", root / f"{name}.failed"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if failed.exists():
            raise AssertionError(f"the smoke run {name} failed in another worker:\n{failed.read_text()}")
        if not done.exists():
            workdir.mkdir()
            try:
                # a guard against a hang, not a budget: the build shares the cores with
                # the other worker's tests (a few minutes on CI)
                run_snakemake(workdir, "--cores", "2", timeout=1800)
            except BaseException as err:
                failed.write_text(str(err))
                raise
            done.touch()
    return workdir


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Path:
    """A working directory in which the whole smoke DAG has run to completion.
    Shared by the whole session: read it, never run Snakemake in it nor edit it (use
    :func:`copy_of_smoke_run`)."""
    return shared_smoke_run(tmp_path_factory, "smoke")


def copy_of_smoke_run(smoke_run: Path, dst: Path) -> Path:
    """A private copy of the finished smoke run (modification times kept: it is as
    up to date as the original), for a test that runs Snakemake in it or edits it."""
    return copy_tree(smoke_run, dst)


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
def fault_ledger(artifacts_dir, tmp_path_factory):
    """The session's tally of faults and bad inputs (tests/faults/ledger.py), written to
    test-artifacts/fault_summary.json when the session ends. Under pytest-xdist each
    worker leaves its part in the session root, and the controller merges them
    (:func:`pytest_sessionfinish`) before it writes the summary."""
    from faults.ledger import LEDGER

    yield LEDGER
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        LEDGER.write_part(session_root(tmp_path_factory) / f"fault_ledger.{worker}.json")
    else:
        LEDGER.write(artifacts_dir / "fault_summary.json")


def pytest_sessionfinish(session):
    """Under pytest-xdist, on the controller once every worker is done: the workers'
    fault ledgers, merged into the session's one (written and shown as without xdist)."""
    if hasattr(session.config, "workerinput") or not getattr(session.config.option, "numprocesses", None):
        return  # a worker, or no xdist: the fixture wrote the summary
    from faults.ledger import LEDGER

    root = session_root(session.config._tmp_path_factory)  # the controller's basetemp
    parts = sorted(root.glob("fault_ledger.*.json"))
    for part in parts:
        LEDGER.merge(json.loads(part.read_text()))
    if parts:
        LEDGER.write(REPO / "test-artifacts" / "fault_summary.json")


def pytest_terminal_summary(terminalreporter):
    from faults.ledger import LEDGER

    if LEDGER:
        terminalreporter.write_sep("-", "fault injection")
        terminalreporter.write_line(LEDGER.headline())


# Under pytest-xdist, the modules that hold the session's longest tests start first, so
# that no worker is left alone with one of them at the end: the real-SLURM test (4 to 8
# minutes), the smoke run and its remake (the determinism check) and the kill-and-rerun runs.
# .ci/run passes --no-loadscope-reorder (xdist would order modules by their number of
# tests); the other modules keep their order.
LONG_MODULES_FIRST = ("test_slurm.py", "test_faults_determinism.py", "test_faults_kill.py")


def pytest_collection_modifyitems(config, items):
    if not getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return  # one process: the order does not change the time
    rank = {name: k for k, name in enumerate(LONG_MODULES_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable
