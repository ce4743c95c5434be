"""Running Snakemake in the background, finding and killing its jobs, comparing outputs.

Process lookups go through psutil, as the tests need the pid of one training job:
the python process running a ``*.train.py`` script whose open log file names its model.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import yaml
from conftest import SMOKE_CONFIG, snakemake_cmd
from snakemake.utils import update_config

from gatedrnn.train.checkpoints import list_checkpoints

# Keys of summary.json that record how a run went rather than what it made.
VOLATILE_SUMMARY_KEYS = ("wall_seconds", "resumed_from_step")
# Outputs that hold timings, not results: never compared byte for byte.
NOT_COMPARED = {
    "results/logs": "run logs carry steps/s rates and durations",
    "results/benchmarks": "benchmarks carry wall-clock and memory measurements",
}
COMPARED_ROOTS = ("data", "results")


# --- configs ----------------------------------------------------------------------


def smoke_config() -> dict:
    return yaml.safe_load(SMOKE_CONFIG.read_text())


def write_config(
    path: Path, overrides: dict | None = None, config: dict | None = None, keep_order: bool = False
) -> Path:
    """A complete config file: the smoke config (or ``config``) with ``overrides`` merged
    in as Snakemake merges config files (dicts recursively, anything else replaced).
    ``keep_order``: the keys in the smoke config's order, not sorted; needed to run in a
    copy of the session's smoke run, since Snakemake compares a rule's params with the
    order of their keys (a sorted corpus block reads as changed params, and retrains all)."""
    config = copy.deepcopy(config if config is not None else smoke_config())
    update_config(config, copy.deepcopy(overrides or {}))  # in place
    path.write_text(yaml.safe_dump(config, sort_keys=not keep_order))
    return path


# --- background runs and processes --------------------------------------------------


def start_snakemake(
    workdir: Path, configfile: Path, *args: str, log_name: str = "snakemake"
) -> subprocess.Popen:
    """Snakemake in its own session (so its whole process group can be killed at once),
    stdout and stderr to ``<workdir>.<log_name>.out`` beside the working directory."""
    out = open(workdir.parent / f"{workdir.name}.{log_name}.out", "w")  # noqa: SIM115 (closed by finish)
    proc = subprocess.Popen(
        snakemake_cmd(workdir, *args, configfile=configfile),
        stdout=out,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    proc.output_file = out  # type: ignore[attr-defined]
    return proc


def finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str]:
    """Wait for a background run; its exit status and everything it printed."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        proc.output_file.close()  # type: ignore[attr-defined]
    return proc.returncode, Path(proc.output_file.name).read_text()  # type: ignore[attr-defined]


def descendants(root: int) -> list[int]:
    """The processes below ``root``, generation by generation, each in pid order."""
    parents = {proc.pid: proc.info["ppid"] for proc in psutil.process_iter(["ppid"])}
    found, frontier = [], {root}
    while frontier:
        children = {pid for pid, parent in parents.items() if parent in frontier}
        found.extend(sorted(children))
        frontier = children
    return found


def process_group_alive(pgid: int) -> bool:
    """Whether a live (not zombie) process remains in the session ``pgid``: start_snakemake
    makes a new session, whose id is also its process group's."""
    for proc in psutil.process_iter(["status"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        try:
            if os.getsid(proc.pid) == pgid:
                return True
        except OSError:
            continue
    return False


def train_jobs(root: int) -> dict[str, int]:
    """{model directory name (e.g. 'lstm_w24_s0'): pid} of the running training jobs
    under ``root``, found by the log file each keeps open."""
    jobs = {}
    for pid in descendants(root):
        try:
            proc = psutil.Process(pid)
            if not any(".train.py" in arg for arg in proc.cmdline()):
                continue
            paths = [f.path for f in proc.open_files()]
        except psutil.Error:
            continue
        for path in paths:
            if "/results/logs/train/" in path and path.endswith(".log"):
                jobs[Path(path).stem] = pid
    return jobs


def wait_until(condition: Callable[[], object], timeout: float, what: str, proc=None, interval=0.005):
    """Poll ``condition`` until it returns something true; fail after ``timeout`` seconds
    or as soon as ``proc`` (a background Snakemake) has exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"snakemake exited ({proc.returncode}) before {what}")
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def newest_checkpoint_step(checkpoint_dir: Path) -> int:
    found = list_checkpoints(checkpoint_dir)
    return found[0][0] if found else 0


# --- outputs ----------------------------------------------------------------------


def compared_files(workdir: Path) -> list[str]:
    """Every output file under data/ and results/ but logs and benchmarks (relative paths)."""
    files = []
    for root in COMPARED_ROOTS:
        for path in sorted((workdir / root).rglob("*")):
            rel = path.relative_to(workdir).as_posix()
            if path.is_file() and not any(rel.startswith(prefix + "/") for prefix in NOT_COMPARED):
                files.append(rel)
    return files


def comparable_bytes(path: Path) -> bytes:
    """The file's bytes; for summary.json, its JSON without the volatile keys."""
    if path.name == "summary.json":
        summary = json.loads(path.read_text())
        for key in VOLATILE_SUMMARY_KEYS:
            summary.pop(key, None)
        return json.dumps(summary, sort_keys=True).encode()
    return path.read_bytes()


def output_differences(reference: Path, other: Path) -> dict[str, str]:
    """{relative path: 'missing' | 'extra' | 'differs'} between two working directories."""
    ref_files, other_files = set(compared_files(reference)), set(compared_files(other))
    diff = {rel: "missing" for rel in ref_files - other_files}
    diff.update({rel: "extra" for rel in other_files - ref_files})
    for rel in ref_files & other_files:
        if comparable_bytes(reference / rel) != comparable_bytes(other / rel):
            diff[rel] = "differs"
    return dict(sorted(diff.items()))
