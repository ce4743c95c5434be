"""``python -m gatedrnn.estimate``: see :mod:`gatedrnn.estimate`."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from gatedrnn.estimate import __doc__ as DESCRIPTION
from gatedrnn.estimate.costs import KEPT_CALIBRATIONS, benchmark_costs, cost_jobs
from gatedrnn.estimate.planned import (
    WORKFLOW,
    capped_round_two,
    capped_round_two_confirmation,
    config_files,
    confirmation_after_round_two,
    load_config,
    missing_texts,
    planned_train_jobs,
    round_two_after_front,
    train_jobs_for,
)
from gatedrnn.estimate.schedule import report
from gatedrnn.numerics import DEFAULT as DEFAULT_CPU_ISA
from gatedrnn.numerics import pin_this_process

# Round two's jobs are known once round one's front is (a checkpoint): projected apart.
ROUND_TWO_NOTE = (
    "and after round one's front (protocol_front.csv), round two, which the dry run cannot list before "
    "its checkpoint has run; the largest it can be (the costliest points a front may ask for within "
    "protocol.round_two.max_trainings, {bound}; a front asking for more is refused when it is planned):"
)
# So is round two's confirmation, once round two's front is (a second checkpoint).
CONFIRMATION_NOTE = (
    "and after round two's front (protocol_round_two.csv), its confirmation, which the dry run cannot list "
    "before that checkpoint has run; the most it can train (any regime of either round may reach the front: "
    "the two models under every round-one regime and {points}, at protocol.confirm.seeds {seeds}, less the "
    "runs trained before it; round one's own confirmation, not listed before its scoreboard exists, is "
    "within this too, as a regime is confirmed once):"
)
# --json: the jobs the dry run lists, by name; these projections apart, at their largest.
UPPER_BOUNDS = "upper_bounds"


def fail(message: str) -> int:
    print(f"ERROR: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gatedrnn.estimate", description=DESCRIPTION.split("\n\n")[0]
    )
    parser.add_argument("--cores", type=int, required=True, help="the --cores you will give snakemake")
    parser.add_argument("--configfile", nargs="*", default=[], help="as for snakemake")
    parser.add_argument("--directory", default=".", help="the working directory (holds results/, data/)")
    parser.add_argument("--json", help="also write every job's projected seconds to this file")
    parser.add_argument("targets", nargs="*", help="as for snakemake (default: everything)")
    args = parser.parse_args(argv)

    if args.cores < 1:
        return fail(f"--cores {args.cores}: give the --cores you will give snakemake (1 or more)")
    if missing := [path for path in args.configfile if not Path(path).is_file()]:
        return fail(f"no config file {', '.join(missing)} (--configfile takes every word after it: "
                    "put the targets before it)")  # fmt: skip
    from gatedrnn.plan.config_files import config_file_problem  # no torch: the pin comes first

    if problem := next(filter(None, map(config_file_problem, args.configfile)), None):
        return fail(problem)
    workdir = Path(args.directory)
    if not workdir.is_dir():
        return fail(f"--directory {workdir} is not a directory")
    if args.json and (Path(args.json).is_dir() or not Path(args.json).parent.is_dir()):  # before the work
        where = Path(args.json).parent
        why = "is a directory" if Path(args.json).is_dir() else f"is in {where}, which does not exist"
        return fail(f"--json {args.json}: {why}; name a file in an existing folder")
    # The calibration must time the training's kernels: pin them before torch starts.
    cpu_isa = load_config(args.configfile, workdir).get("numerics", {}).get("cpu_isa", DEFAULT_CPU_ISA)
    pin_this_process(cpu_isa)

    cmd = [sys.executable, "-m", "snakemake", "--directory", str(workdir), "-s", str(WORKFLOW / "Snakefile")]
    cmd += ["--configfile", *config_files(args.configfile, workdir)]
    proc = subprocess.run([*cmd, "-n", *args.targets], capture_output=True, text=True)
    if proc.returncode != 0:
        return fail(f"the dry run failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    planned = planned_train_jobs(proc.stdout)
    # round two follows round one's front: its largest, projected apart (not in the dry run)
    later = round_two_after_front(args.targets, args.configfile, workdir)
    # and round two's confirmation follows round two's front: its largest, apart too
    confirming = confirmation_after_round_two(args.targets, args.configfile, workdir, planned)
    # The vocabulary sets the budget widths: make every text it is read from (seconds).
    texts = missing_texts(planned + later + confirming, args.configfile, workdir)
    if texts:
        print(f"making the texts whose vocabulary sets the widths: {' '.join(texts)}", file=sys.stderr)
        made = subprocess.run([*cmd, "--cores", "1", *texts], capture_output=True, text=True)
        if made.returncode != 0:
            return fail(f"making {' '.join(texts)} failed (snakemake --cores 1 {' '.join(texts)}):\n"
                        f"{made.stdout[-3000:]}\n{made.stderr[-3000:]}")  # fmt: skip
    try:
        jobs, threads = train_jobs_for(planned, args.configfile, workdir)
        round_two, _ = train_jobs_for(later, args.configfile, workdir)
        confirmation, _ = train_jobs_for(confirming, args.configfile, workdir)
    except FileNotFoundError as err:
        return fail(str(err))
    try:
        costs = benchmark_costs(workdir / "results")
    except ValueError as err:  # a damaged summary.json, named with the fix
        return fail(str(err))
    # calibrations are kept beside Snakemake's own records, for the next estimate here
    cost_jobs(jobs + round_two + confirmation, costs, cpu_isa=cpu_isa, keep=workdir / KEPT_CALIBRATIONS)
    print(report(jobs, args.cores, threads))
    config, bounds = load_config(args.configfile, workdir), {}
    if round_two:
        bounds["round_two"] = round_two = capped_round_two(round_two, config)
        note = ROUND_TWO_NOTE.format(bound=config["protocol"]["round_two"]["max_trainings"])
        print(f"\n{note}\n{report(round_two, args.cores, threads)}")
    if confirmation:
        bounds["round_two_confirmation"] = confirmation = capped_round_two_confirmation(confirmation, config)
        from gatedrnn.plan import PROTOCOL_ROUND_TWO_PLAN

        planned_points = (workdir / PROTOCOL_ROUND_TWO_PLAN).exists()
        points = "every point of round two's plan" if planned_points else "the costliest round two above"
        note = CONFIRMATION_NOTE.format(points=points, seeds=config["protocol"]["confirm"]["seeds"])
        print(f"\n{note}\n{report(confirmation, args.cores, threads)}")
    if args.json:
        projected: dict = {j.name: j.seconds for j in jobs}
        if bounds:  # beside the jobs' names (regime/run: a name has a slash, this key none)
            projected[UPPER_BOUNDS] = {
                part: {j.name: j.seconds for j in those} for part, those in bounds.items()
            }
        Path(args.json).write_text(json.dumps(projected, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
