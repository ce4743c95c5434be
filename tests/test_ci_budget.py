"""The suite's time budget (issue #50): `.ci/run` prints the test command's wall time
and a WARNING line past 20 minutes (.ci/budget.sh). A warning for the log's reader, not
a timed assertion: these tests feed it times, and run .ci/run's test step with a stand-in
for pytest, to check that the line is printed and pytest's exit status is kept."""

from __future__ import annotations

import subprocess

import pytest
from conftest import REPO

BUDGET = REPO / ".ci" / "budget.sh"
CI_RUN = REPO / ".ci" / "run"


def bash(script: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", **env})  # fmt: skip


@pytest.mark.parametrize(
    ("took", "warned"), [(0, False), (754, False), (1200, False), (1201, True), (3253, True)]
)
def test_the_report_names_the_wall_time_and_warns_past_20_minutes(took, warned):
    proc = bash(f". {BUDGET}; budget_report 1000 {1000 + took}")
    assert proc.returncode == 0 and proc.stderr == ""
    first = proc.stdout.splitlines()[0]
    minutes = f"{took // 60} min {took % 60:02d} s"
    assert first == f"== test suite wall time: {took} s ({minutes}); budget 1200 s (20 min)"
    assert ("WARNING" in proc.stdout) == warned
    if warned:
        assert f"over its 1200 s budget by {took - 1200} s" in proc.stdout


def test_the_budget_can_be_set_for_a_slower_machine():
    proc = bash(f". {BUDGET}; budget_report 0 1500", GATEDRNN_SUITE_BUDGET_S="1800")
    assert "budget 1800 s (30 min)" in proc.stdout and "WARNING" not in proc.stdout


@pytest.mark.parametrize("status", [0, 1, 3])
def test_ci_run_reports_after_the_test_command_and_keeps_its_exit_status(status):
    """.ci/run's test step, from its echo to its end, with `python -m pytest` stood in for."""
    text = CI_RUN.read_text()
    step = text[text.index('echo "== the test command') :]
    assert "python -m pytest" in step and "budget_report" in step
    proc = bash(f"set -euo pipefail\npython() {{ echo 'pytest ran'; return {status}; }}\n{step}")
    assert proc.returncode == status, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    reported = next(i for i, line in enumerate(lines) if "test suite wall time" in line)
    assert lines.index("pytest ran") < reported
