"""The checks of tests/slurm/run.sh, once its Snakemake runs have finished.

--slurm: the work directory run through the SLURM profiles; --local: the same
targets and config run locally. Prints one line per check; exit status 1 if
any failed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

# The rules of the SLURM runs that went through sbatch, and how many jobs each had:
# only training and gate extraction; corpus, tables and figures are localrules.
EXPECTED_JOBS = {
    "rule_train": 5,  # 4 smoke models (seed 0) + the requeued one
    "rule_gates": 1,
}

failures: list[str] = []

# The time stamp that starts every line a rule writes to its log (ISO 8601, then a space).
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d "


def check(ok: bool, what: str) -> bool:
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        failures.append(what)
    return ok


def scontrol_job(job_id: str) -> dict[str, str]:
    """`scontrol show job -o` as a dict (empty if SLURM no longer knows the job)."""
    out = subprocess.run(["scontrol", "-o", "show", "job", job_id], capture_output=True, text=True)
    if out.returncode != 0:
        return {}
    return dict(re.findall(r"(\S+?)=(\S*)", out.stdout))


def slurm_logs(workdir: Path) -> dict[str, list[Path]]:
    """rule_<rule> or group_<group> -> its SLURM job logs: the plugin writes
    .snakemake/slurm_logs/rule_<rule>/<wildcards>/<jobid>.log and
    .snakemake/slurm_logs/group_<group>_<its rules>/<jobid>.log."""
    logs: dict[str, list[Path]] = {}
    root = workdir / ".snakemake" / "slurm_logs"
    for path in sorted(root.glob("*/**/*.log")):
        top = path.relative_to(root).parts[0]
        if path.stem.isdigit():
            key = next((k for k in EXPECTED_JOBS if top == k or top.startswith(k + "_")), top)
            logs.setdefault(key, []).append(path)
    return logs


def same_bytes(slurm: Path, local: Path, relative: str) -> bool:
    a, b = slurm / relative, local / relative
    return check(
        a.is_file() and b.is_file() and a.read_bytes() == b.read_bytes(),
        f"{relative} byte-identical to the local run",
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slurm", type=Path, required=True)
    parser.add_argument("--local", type=Path, required=True)
    parser.add_argument("--requeued-jobid", default="")
    parser.add_argument("--requeue-model", required=True)
    args = parser.parse_args()
    slurm, local = args.slurm, args.local

    # 1. The jobs went through the scheduler.
    logs = slurm_logs(slurm)
    for rule, count in EXPECTED_JOBS.items():
        found = logs.get(rule, [])
        check(
            len(found) == count,
            f"{rule}: {len(found)} SLURM job log(s) (job ids {', '.join(p.stem for p in found)})",
        )
    others = sorted(set(logs) - set(EXPECTED_JOBS))
    check(not others, f"no other rule went through sbatch ({', '.join(others) or 'none did'})")
    submitted = sum(len(paths) for paths in logs.values())
    check(submitted == sum(EXPECTED_JOBS.values()), f"{submitted} sbatch submissions in all")
    log_ids = {p.stem for paths in logs.values() for p in paths}

    summaries = sorted((slurm / "results/models/default").glob("*/summary.json"))
    check(len(summaries) == 4, f"{len(summaries)} smoke models trained (4 expected)")
    for path in summaries:
        job_id = json.loads(path.read_text()).get("slurm_job_id")
        name = path.parent.relative_to(slurm)
        if check(
            bool(job_id) and str(job_id) in log_ids,
            f"{name}: slurm_job_id {job_id} with a SLURM log",
        ):
            state = scontrol_job(str(job_id)).get("JobState")
            check(state == "COMPLETED", f"{name}: scontrol says job {job_id} is {state}")

    # 2. Byte-identical to the local run.
    tables = sorted(p.name for p in (slurm / "results/tables").glob("*"))
    local_tables = sorted(p.name for p in (local / "results/tables").glob("*"))
    check(
        tables == local_tables and len(tables) == 4,
        f"the same tables in both runs ({', '.join(tables)})",
    )
    for name in tables:
        same_bytes(slurm, local, f"results/tables/{name}")
    for path in summaries:
        model = path.parent.relative_to(slurm)
        for name in ("history.csv", "model.pt"):
            same_bytes(slurm, local, f"{model}/{name}")

    # 3. The GPU request and the requeue.
    model = args.requeue_model
    summary_path = slurm / model / "summary.json"
    if check(summary_path.is_file(), f"{model} trained through SLURM (GPU profile)"):
        summary = json.loads(summary_path.read_text())
        job_id = str(summary.get("slurm_job_id"))
        check(
            bool(args.requeued_jobid) and job_id == args.requeued_jobid,
            f"{model}: slurm_job_id {job_id} is the job that was requeued ({args.requeued_jobid or 'none'})",
        )
        job = scontrol_job(job_id)
        tres = " ".join(f"{k}={v}" for k, v in job.items() if k.startswith("Tres") or k == "AllocTRES")
        check("gpu" in tres, f"job {job_id} was given a GPU: {tres or 'no TRES fields'}")
        restarts = int(job.get("Restarts", "0") or 0)
        check(
            restarts >= 1 and job.get("JobState") == "COMPLETED",
            f"job {job_id}: Restarts={restarts}, JobState={job.get('JobState')}",
        )
        resumed = summary.get("resumed_from_step")
        check(isinstance(resumed, int) and resumed > 0, f"{model}: resumed_from_step {resumed}")

        log_path = slurm / f"results/logs/train/{model.split('/', 2)[2]}.log"
        log = log_path.read_text() if log_path.is_file() else ""
        # each log line starts with its time stamp (gatedrnn.scripting.run_logged)
        device = re.search(
            rf"^{STAMP}device (\S+) \(train\.device (\S+); CUDA_VISIBLE_DEVICES=(\S*)\)$", log, re.M
        )
        check(
            device is not None and device.groups()[:2] == ("cpu", "auto") and device[3] != "<unset>",
            f"training log: {device[0] if device else 'no device line'} "
            "(a GPU was visible to the job, and device auto fell back to the CPU)",
        )
        check(
            re.search(rf"^{STAMP}resumed from checkpoint at step {resumed}$", log, re.M) is not None,
            f"training log: resumed from checkpoint at step {resumed}",
        )
        for name in ("history.csv", "model.pt"):
            same_bytes(slurm, local, f"{model}/{name}")

    print(f"{len(failures)} check(s) failed" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
