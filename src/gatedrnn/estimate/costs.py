"""What one training job costs: its shape, and seconds per step from this machine's
benchmarks or from a calibration under the run's pinned numerics."""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from gatedrnn.estimate.scaling import anchors, family, nearest, scaled
from gatedrnn.io.files import read_json
from gatedrnn.numerics import check_in_force

STARTUP_SECONDS = 3.0  # a fresh interpreter's imports (torch, pandas) and the corpus, measured
CALIBRATION_STEPS = 3
# where `python -m gatedrnn.estimate` keeps its calibrations, in the working directory
KEPT_CALIBRATIONS = ".snakemake/gatedrnn/calibrations.json"


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


def benchmark_costs(results: Path) -> dict[Shape, Cost]:
    """Seconds per step of every shape this machine has trained before: each finished
    job's CPU time (its benchmark file) over the steps its last process trained."""
    costs: dict[Shape, list[tuple[float, str]]] = {}
    for summary_path in sorted((results / "models").glob("*/*/summary.json")):
        regime, run = summary_path.parent.parent.name, summary_path.parent.name
        bench = results / "benchmarks" / "train" / regime / f"{run}.tsv"
        if not bench.exists():
            continue
        summary = read_json(summary_path, "training summary")
        if summary.get("diverged"):
            continue
        cfg = summary["train_config"]
        # its last process trained from its own checkpoint or from a shorter run's state
        prefix = (summary.get("prefix_from") or {}).get("step") or 0
        start = max(summary.get("resumed_from_step") or 0, prefix)
        trained = cfg["steps"] - start
        lines = bench.read_text().splitlines()
        row = dict(zip(lines[0].split("\t"), lines[-1].split("\t"), strict=False))
        try:
            cpu = float(row["cpu_time"])
        except (KeyError, ValueError):
            continue
        if trained <= 0 or not cpu > STARTUP_SECONDS:
            continue
        cell = summary.get("cell_path") or summary["cell"]  # a plug-in by its import path
        shape = shape_of(cell, summary["width"], summary["vocab_size"], cfg)
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
    """Time ``steps`` real training steps (after one untimed) and one validation pass of
    ``shape`` on random tokens, single-threaded, in CPU seconds: a step's the median of
    its steps, so that one step slowed by the machine's other work does not set it (a
    calibration stands for every width of its cell now, :mod:`gatedrnn.estimate.scaling`)."""
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
        took = []
        for _ in range(steps):
            t0 = time.process_time()
            step()
            took.append(time.process_time() - t0)
        per_step = sorted(took)[len(took) // 2]
        t0 = time.process_time()
        evaluate(model, val)
        per_eval = time.process_time() - t0
    finally:
        torch.set_num_threads(threads)
    return Cost(step=per_step, evaluation=per_eval, source="calibration")


def calibration_key(shape: Shape) -> Shape:
    """Shapes that time alike: the optimizer's update is a pass over the parameters,
    well under 1 % of a step's forward and backward over every window's characters, so
    shapes that differ in the optimizer alone share one calibration."""
    return replace(shape, optimizer="")


def _machine(cpu_isa: str | None) -> str:
    import torch

    from gatedrnn.numerics import cpu_model

    return f"{cpu_model()} | torch {torch.__version__} | numerics {cpu_isa}"


def _read_kept(path: Path | None, machine: str) -> dict[Shape, Cost]:
    """Calibrations an earlier estimate kept in ``path``, of this CPU model, torch and numerics."""
    try:
        kept = json.loads(path.read_text()) if path is not None and path.is_file() else {}
    except ValueError:
        return {}
    return {Shape(**entry["shape"]): Cost(entry["step"], entry["evaluation"], "calibration")
            for entry in kept.get(machine, [])}  # fmt: skip


def _keep(path: Path, machine: str, calibrated: dict[Shape, Cost]) -> None:
    try:
        kept = json.loads(path.read_text()) if path.is_file() else {}
    except ValueError:
        kept = {}
    kept[machine] = [{"shape": asdict(shape), "step": cost.step, "evaluation": cost.evaluation}
                     for shape, cost in calibrated.items()]  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kept, indent=1, sort_keys=True))


def _anchors(missing: dict[Shape, Shape], steps: dict[Shape, int], calibrated: dict[Shape, Cost]) -> dict:
    """The shapes to calibrate: every shape of a cell calibrated shape by shape, and of a
    FLOP-scaled family (:mod:`gatedrnn.estimate.scaling`) those its other shapes are
    carried from."""
    todo: dict[Shape, Shape] = {}
    families: dict[Shape, dict[Shape, int]] = {}
    for key, shape in missing.items():
        if key in calibrated:
            continue
        if (kin := family(key)) is None:
            todo[key] = shape
        else:
            families.setdefault(kin, {})[key] = steps[key]
    for kin, members in families.items():
        timed = [other for other in calibrated if family(other) == kin]
        todo |= {key: missing[key] for key in anchors(members, timed)}
    return todo


def cost_jobs(jobs: list[TrainJob], known: dict[Shape, Cost], log=print, cpu_isa: str | None = None,
              keep: Path | None = None) -> None:  # fmt: skip
    """Every job's seconds: a shape without a benchmark calibrated once under ``cpu_isa``
    (one line per model), or carried by FLOP count from its family's calibrated shape
    (:mod:`gatedrnn.estimate.scaling`); calibrations kept in ``keep`` by an earlier call on
    this CPU model, torch and numerics are used again, and new ones added to it."""
    missing: dict[Shape, Shape] = {}  # calibration key -> the first shape of it
    steps: dict[Shape, int] = {}
    for job in jobs:
        if job.shape not in known:
            key = calibration_key(job.shape)
            missing.setdefault(key, job.shape)
            steps[key] = steps.get(key, 0) + job.steps
    calibrated: dict[Shape, Cost] = {}
    if missing:
        if cpu_isa is not None:
            found = check_in_force(cpu_isa)  # refuses other kernels before anything is timed
        machine = _machine(cpu_isa) if keep is not None else ""
        calibrated = _read_kept(keep, machine)
        todo = _anchors(missing, steps, calibrated)
        before = [key for key in missing if key in calibrated]
        if before:
            log(f"  {len(before)} shapes calibrated before on this machine ({keep})")
        if todo and cpu_isa is not None:
            log(f"  calibrating under {numerics_line(found)}")
        by_model: dict[tuple, list[Shape]] = {}
        for key, shape in todo.items():
            by_model.setdefault((shape.cell, shape.width, shape.layers), []).append(key)
        for (cell, width, layers), keys in by_model.items():
            started = time.perf_counter()
            for key in keys:
                calibrated[key] = calibrate(todo[key])
            depth = f", {layers} layers" if layers > 1 else ""
            log(f"  calibrated {cell} width {width}{depth}: {len(keys)} shape(s) of windows, "
                f"{CALIBRATION_STEPS} steps each, {time.perf_counter() - started:.0f} s")  # fmt: skip
        if keep is not None and todo:
            _keep(keep, machine, calibrated)
        derived = [key for key in missing if key not in calibrated]
        for key in derived:
            anchor = nearest(key, [other for other in calibrated if family(other) == family(key)])
            step, evaluation = scaled(calibrated[anchor].step, calibrated[anchor].evaluation, anchor, key)
            calibrated[key] = Cost(step, evaluation, "calibration")
        if derived:
            log(f"  {len(derived)} more shapes of the same cells and batches carried from those by FLOPs")
    for job in jobs:
        cost = known.get(job.shape) or calibrated[calibration_key(job.shape)]
        job.seconds = STARTUP_SECONDS + job.steps * cost.step + job.evaluations * cost.evaluation
        job.source = cost.source


def numerics_line(found: dict) -> str:  # found: gatedrnn.numerics.check_in_force's
    """``numerics portable: PyTorch AVX2, MKL COMPATIBLE,STRICT, oneDNN AVX``."""
    onednn = found["environment"].get("ONEDNN_MAX_CPU_ISA") or "native"
    return (f"numerics {found['cpu_isa']}: PyTorch {found['torch_cpu_capability']}, "
            f"MKL {found['mkl_branch'] or 'n/a'}, oneDNN {onednn}")  # fmt: skip
