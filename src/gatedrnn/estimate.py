"""How long will it take? The projected CPU and wall time of the training jobs a
Snakemake invocation is about to run, before it runs them.

    python -m gatedrnn.estimate --cores 2 [--configfile config/config.yaml] [targets ...]

1. ``snakemake -n`` (same targets and config) says which training jobs would run; the
   texts whose vocabulary sets their widths (the corpus, the generated datasets) are
   made first where missing, all in one ``snakemake --cores 1`` call (seconds).
2. Each job's cost: ``steps to train x seconds per step + validations x seconds per
   validation + start-up``, per model shape (cell, width, layers, batch, length,
   embedding, vocabulary, optimizer). Seconds per step come from this machine's
   earlier jobs of the same shape (``results/benchmarks/train/``: CPU time over steps
   trained) when there are any, else from a short calibration: a few real training
   steps and one validation pass of that shape, single-threaded, timed here under the
   config's ``numerics.cpu_isa``, pinned before torch starts (the pinned kernels cost
   1.8 to 4x the CPU's own: unpinned, a projection is half the time).
3. Wall time at ``--cores``: the jobs placed longest-first on ``cores / threads``
   slots (a job that continues a shorter run's state, see prefix sharing, starts
   after it), which is how a greedy scheduler fills the machine.

Only training is costed (the rest takes seconds to a minute a job); a busy machine runs slower.
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from gatedrnn.numerics import DEFAULT as DEFAULT_CPU_ISA
from gatedrnn.numerics import check_in_force, pin_this_process

STARTUP_SECONDS = 3.0  # a fresh interpreter's imports (torch, pandas) and the corpus, measured
CALIBRATION_STEPS = 3


@dataclass(frozen=True)
class Shape:
    """What a training step's cost depends on."""

    cell: str
    width: int
    layers: int
    batch_size: int
    seq_len: int
    embed_dim: int
    vocab_size: int
    optimizer: str
    val_windows: int
    readout_norm: str


@dataclass
class TrainJob:
    regime: str
    model: str  # <cell>_<width token>
    seed: int
    shape: Shape
    steps: int  # steps this job trains
    evaluations: int
    after: str | None = None  # the job whose state this one continues (prefix sharing)
    seconds: float = math.nan
    source: str = ""  # "benchmark" | "calibration"

    @property
    def name(self) -> str:
        return f"{self.regime}/{self.model}_s{self.seed}"


@dataclass
class Cost:
    step: float  # CPU seconds per training step
    evaluation: float  # CPU seconds per validation pass
    source: str
    jobs: list[str] = field(default_factory=list)


def evaluations(steps: int, eval_every: int, start: int = 0) -> int:
    """Validation passes of a run from ``start`` to ``steps`` (step 0 too when start is 0)."""
    ends = {s for s in range(start + 1, steps + 1) if s % eval_every == 0} | {steps}
    return len(ends) + (1 if start == 0 else 0)


# --------------------------------------------------------------------- costs


def benchmark_costs(results: Path) -> dict[Shape, Cost]:
    """Seconds per step of every shape this machine has trained before: each finished
    job's CPU time (its benchmark file) over the steps its last process trained."""
    costs: dict[Shape, list[tuple[float, str]]] = {}
    for summary_path in sorted((results / "models").glob("*/*/summary.json")):
        regime, run = summary_path.parent.parent.name, summary_path.parent.name
        bench = results / "benchmarks" / "train" / regime / f"{run}.tsv"
        if not bench.exists():
            continue
        summary = json.loads(summary_path.read_text())
        if summary.get("diverged"):
            continue
        cfg = summary["train_config"]
        start = summary.get("resumed_from_step") or 0
        trained = cfg["steps"] - start
        lines = bench.read_text().splitlines()
        row = dict(zip(lines[0].split("\t"), lines[-1].split("\t"), strict=False))
        try:
            cpu = float(row["cpu_time"])
        except (KeyError, ValueError):
            continue
        if trained <= 0 or not cpu > STARTUP_SECONDS:
            continue
        shape = shape_of(summary["cell"], summary["width"], summary["vocab_size"], cfg)
        # validation passes cost about as much as a forward of val_windows windows;
        # counted as steps here (they are a few % of a job, see the calibration)
        per_step = (cpu - STARTUP_SECONDS) / trained
        costs.setdefault(shape, []).append((per_step, f"{regime}/{run}"))
    out = {}
    for shape, samples in costs.items():
        values = sorted(v for v, _ in samples)
        out[shape] = Cost(step=values[len(values) // 2], evaluation=0.0, source="benchmark",
                          jobs=[j for _, j in samples])  # fmt: skip
    return out


def shape_of(cell: str, width: int, vocab_size: int, cfg: dict) -> Shape:
    """``vocab_size``: the model's (train.vocabulary's), not the corpus's. A summary written
    before train.readout_norm existed is of a model without one."""
    return Shape(cell, int(width), cfg["layers"], cfg["batch_size"], cfg["seq_len"], cfg["embed_dim"],
                 int(vocab_size), cfg["optimizer"], cfg["val_windows"],
                 cfg.get("readout_norm", "none"))  # fmt: skip


def calibrate(shape: Shape, steps: int = CALIBRATION_STEPS) -> Cost:
    """Time ``steps`` real training steps (after one untimed) and one validation pass
    of ``shape`` on random tokens, single-threaded, in CPU seconds."""
    import torch

    from gatedrnn.train.config import TrainConfig
    from gatedrnn.train.loop import build_model, evaluate, make_optimizer, sequence_loss

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cfg = TrainConfig(optimizer=shape.optimizer, batch_size=shape.batch_size, seq_len=shape.seq_len,
                          embed_dim=shape.embed_dim, layers=shape.layers,
                          readout_norm=shape.readout_norm)  # fmt: skip
        model = build_model(shape.cell, shape.width, shape.vocab_size, 0, cfg)
        optimizer = make_optimizer(model, cfg)
        generator = torch.Generator().manual_seed(0)
        batch = torch.randint(0, shape.vocab_size, (shape.batch_size, shape.seq_len + 1), generator=generator)
        val = torch.randint(0, shape.vocab_size, (shape.val_windows, shape.seq_len + 1), generator=generator)

        def step():
            loss = sequence_loss(model, batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
            optimizer.step()

        step()
        t0 = time.process_time()
        for _ in range(steps):
            step()
        per_step = (time.process_time() - t0) / steps
        t0 = time.process_time()
        evaluate(model, val)
        per_eval = time.process_time() - t0
    finally:
        torch.set_num_threads(threads)
    return Cost(step=per_step, evaluation=per_eval, source="calibration")


def cost_jobs(jobs: list[TrainJob], known: dict[Shape, Cost], log=print, cpu_isa: str | None = None) -> None:
    """Every job's seconds, calibrating each shape without a benchmark once, under ``cpu_isa``."""
    calibrated: dict[Shape, Cost] = {}
    for job in jobs:
        cost = known.get(job.shape)
        if cost is None:
            if not calibrated and cpu_isa is not None:
                log(f"  calibrating under {numerics_line(check_in_force(cpu_isa))}")
            if job.shape not in calibrated:
                log(f"  calibrating {job.shape.cell} width {job.shape.width} ({CALIBRATION_STEPS} steps) ...")
                calibrated[job.shape] = calibrate(job.shape)
            cost = calibrated[job.shape]
        job.seconds = STARTUP_SECONDS + job.steps * cost.step + job.evaluations * cost.evaluation
        job.source = cost.source


def numerics_line(found: dict) -> str:  # found: gatedrnn.numerics.check_in_force's
    """``numerics portable: PyTorch AVX2, MKL COMPATIBLE,STRICT, oneDNN AVX``."""
    onednn = found["environment"].get("ONEDNN_MAX_CPU_ISA") or "native"
    return (f"numerics {found['cpu_isa']}: PyTorch {found['torch_cpu_capability']}, "
            f"MKL {found['mkl_branch'] or 'n/a'}, oneDNN {onednn}")  # fmt: skip


# ------------------------------------------------------------------ schedule


def makespan(jobs: list[TrainJob], slots: int) -> float:
    """Wall time of the jobs, longest first, on ``slots`` parallel slots; a job that
    continues another's state starts only once that one has finished."""
    slots = max(1, slots)
    done: dict[str, float] = {}
    pending = sorted(jobs, key=lambda j: (-j.seconds, j.name))
    free = [0.0] * slots
    heapq.heapify(free)
    while pending:
        waiting = {j.name for j in pending}
        ready = [j for j in pending if j.after is None or j.after in done or j.after not in waiting]
        job = ready[0] if ready else pending[0]
        pending.remove(job)
        start = max(heapq.heappop(free), done.get(job.after, 0.0) if job.after else 0.0)
        done[job.name] = start + job.seconds
        heapq.heappush(free, done[job.name])
    return max(done.values(), default=0.0)


# --------------------------------------------------------------- dry run


_JOB = re.compile(r"^(?:local)?rule (?P<rule>\w+):\s*$")
_WILDCARDS = re.compile(r"^\s+wildcards: (?P<text>.*)$")
_INPUT = re.compile(r"^\s+input: (?P<text>.*)$")


def planned_train_jobs(dry_run_output: str) -> list[dict]:
    """``{regime, cell, width, seed, inputs}`` of every ``train`` job in ``snakemake -n`` output."""
    jobs, current = [], None
    for line in dry_run_output.splitlines():
        m = _JOB.match(line)
        if m:
            current = {"inputs": []} if m["rule"] == "train" else None
            if current is not None:
                jobs.append(current)
            continue
        if current is None:
            continue
        if m := _WILDCARDS.match(line):
            current.update(dict(part.split("=", 1) for part in m["text"].split(", ")))
        elif m := _INPUT.match(line):
            current["inputs"] = [p.strip() for p in m["text"].split(",")]
    return [j for j in jobs if "regime" in j]


def load_config(configfiles: list[str]) -> dict:
    """The config as Snakemake merges it: config/config.yaml, then each --configfile."""
    import yaml
    from snakemake.utils import update_config

    config: dict = {}
    for path in [Path(__file__).resolve().parents[2] / "config" / "config.yaml", *configfiles]:
        update_config(config, yaml.safe_load(Path(path).read_text()))
    return config


def missing_texts(planned: list[dict], configfiles: list[str], workdir: Path) -> list[str]:
    """The texts (corpus files) whose vocabulary the planned jobs need and that are not
    made yet, every one of them at once."""
    from gatedrnn.plan import Plan

    plan = Plan.from_config(load_config(configfiles))
    corpora = {plan.corpus(entry["regime"])["provenance"]: plan.corpus(entry["regime"])["corpus"]
               for entry in planned}  # fmt: skip
    return sorted(text for provenance, text in corpora.items() if not (Path(workdir) / provenance).exists())


def train_jobs_for(planned: list[dict], configfiles: list[str], workdir: Path) -> tuple[list[TrainJob], int]:
    """The planned train jobs with their shapes and steps (widths resolved on the
    corpus's vocabulary, which must exist: `snakemake --cores 1 data/corpus.txt`)."""
    from gatedrnn.core.vocabularies import vocabulary_size
    from gatedrnn.core.widths import resolve_width
    from gatedrnn.plan import Plan
    from gatedrnn.train.config import TrainConfig

    config = load_config(configfiles)
    plan = Plan.from_config(config)
    vocab: dict[str, int] = {}
    jobs = []
    for entry in planned:
        regime = entry["regime"]
        corpus = Path(workdir) / plan.corpus(regime)["provenance"]
        if corpus.as_posix() not in vocab:
            if not corpus.exists():
                text = plan.corpus(regime)["corpus"]
                raise FileNotFoundError(
                    f"{corpus} is missing: the vocabulary sets the budget widths; make that text "
                    f"first (snakemake --cores 1 {text}, seconds)"
                )
            vocab[corpus.as_posix()] = json.loads(corpus.read_text())["vocab_size"]
        cfg = plan.train_config(regime)
        TrainConfig(**cfg)  # refuse what training would refuse
        v = vocabulary_size(cfg["vocabulary"], vocab[corpus.as_posix()])  # the run's own vocabulary
        width = resolve_width(
            entry["width"], entry["cell"], v, cfg["embed_dim"], cfg["layers"], cfg["readout_norm"]
        )
        start = 0
        after = None
        prefix = plan.prefix_regime(regime)
        if prefix is not None:
            start = plan.train_config(prefix)["steps"]
            after = f"{prefix}/{entry['cell']}_{entry['width']}_s{entry['seed']}"
        job = TrainJob(
            regime=regime,
            model=f"{entry['cell']}_{entry['width']}",
            seed=int(entry["seed"]),
            shape=shape_of(entry["cell"], width, v, cfg),
            steps=cfg["steps"] - start,
            evaluations=evaluations(cfg["steps"], cfg["eval_every"], start),
            after=after,
        )
        jobs.append(job)
    return jobs, int(config["train"]["threads"])


def format_hours(seconds: float) -> str:
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def report(jobs: list[TrainJob], cores: int, threads: int) -> str:
    slots = max(1, cores // max(1, threads))
    cpu = sum(j.seconds for j in jobs) * threads
    wall = makespan(jobs, slots)
    by_regime: dict[str, list[TrainJob]] = {}
    for job in jobs:
        by_regime.setdefault(job.regime, []).append(job)
    lines = [
        f"{len(jobs)} training jobs to run, {threads} thread(s) each, {slots} at a time (--cores {cores}):",
        f"  projected CPU time  {format_hours(cpu)}",
        f"  projected wall time {format_hours(wall)}",
        f"  costs from this machine's benchmarks: {sum(j.source == 'benchmark' for j in jobs)} jobs; "
        f"from calibration: {sum(j.source == 'calibration' for j in jobs)} jobs",
        f"  steps to train: {sum(j.steps for j in jobs):,} "
        f"({sum(1 for j in jobs if j.after)} jobs continue a shorter run's state)",
        "",
        f"{'regime':<28} {'jobs':>5} {'steps':>8} {'CPU':>10}",
    ]
    for regime, group in by_regime.items():
        lines.append(f"{regime:<28} {len(group):>5} {sum(j.steps for j in group):>8,} "
                     f"{format_hours(sum(j.seconds for j in group) * threads):>10}")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gatedrnn.estimate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cores", type=int, required=True, help="the --cores you will give snakemake")
    parser.add_argument("--configfile", nargs="*", default=[], help="as for snakemake")
    parser.add_argument("--directory", default=".", help="the working directory (holds results/, data/)")
    parser.add_argument("--json", help="also write every job's projected seconds to this file")
    parser.add_argument("targets", nargs="*", help="as for snakemake (default: everything)")
    args = parser.parse_args(argv)

    if missing := [path for path in args.configfile if not Path(path).is_file()]:
        print(f"ERROR: no config file {', '.join(missing)} (--configfile takes every word after it: "
              "put the targets before it)", file=sys.stderr)  # fmt: skip
        return 2
    # The calibration must time the training's kernels: pin them before torch starts.
    cpu_isa = load_config(args.configfile).get("numerics", {}).get("cpu_isa", DEFAULT_CPU_ISA)
    pin_this_process(cpu_isa)

    workdir = Path(args.directory)
    cmd = [sys.executable, "-m", "snakemake", "--directory", str(workdir)]
    if args.configfile:
        cmd += ["--configfile", *args.configfile]
    snakefile = Path(__file__).resolve().parents[2] / "Snakefile"
    cmd += ["-s", str(snakefile)]
    proc = subprocess.run([*cmd, "-n", *args.targets], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"ERROR: the dry run failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}", file=sys.stderr)
        return 2
    planned = planned_train_jobs(proc.stdout)
    # The vocabulary sets the budget widths: make every text it is read from (seconds).
    texts = missing_texts(planned, args.configfile, workdir)
    if texts:
        print(f"making the texts whose vocabulary sets the widths: {' '.join(texts)}", file=sys.stderr)
        made = subprocess.run([*cmd, "--cores", "1", *texts], capture_output=True, text=True)
        if made.returncode != 0:
            print(f"ERROR: making {' '.join(texts)} failed (snakemake --cores 1 {' '.join(texts)}):\n"
                  f"{made.stdout[-3000:]}\n{made.stderr[-3000:]}", file=sys.stderr)  # fmt: skip
            return 2
    try:
        jobs, threads = train_jobs_for(planned, args.configfile, workdir)
    except FileNotFoundError as err:
        print(f"ERROR: {err}", file=sys.stderr)
        return 2
    cost_jobs(jobs, benchmark_costs(workdir / "results"), cpu_isa=cpu_isa)
    print(report(jobs, args.cores, threads))
    if args.json:
        Path(args.json).write_text(json.dumps({j.name: j.seconds for j in jobs}, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
