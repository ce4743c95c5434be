"""Collecting a finished stage of the reference run into ``reference/``: its small
outputs, and the manifest that says how, where and from what they were made."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from gatedrnn.io.files import atomic_write_bytes, read_json
from gatedrnn.plan import paths as plan_paths

REFERENCE = Path("reference")
MANIFEST = "manifest.json"
LEDGER_FILES = ("claims.csv", "claims.md", "claims.html")
# the regime sweep models' seed rows (results/regime_runs/<regime>/<run>.json), relative
# to results/: collected with the tables, so that a part whose models are not all
# trained goes on from them
SEED_ROWS = Path(plan_paths.SEED_ROWS).relative_to("results").as_posix()
PROSE_FILES = ("open_questions.md",)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit(repo: Path, outside: Path | None = None) -> str:
    """HEAD, with ``-dirty`` if a tracked file has uncommitted changes (those under
    ``outside``, the folder being collected into, do not count: they are its output)."""
    pathspec = []
    if outside is not None:
        try:
            inside = Path(outside).resolve().relative_to(Path(repo).resolve())
            pathspec = ["--", ".", f":(exclude){inside.as_posix()}"] if inside.parts else []
        except ValueError:  # a folder outside the checkout
            pathspec = []
    try:
        out = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True)
        status = ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no", *pathspec]
        dirty = subprocess.run(status, capture_output=True, text=True).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "")
    except OSError:
        return "unknown"


def clean_commit(repo: Path, out: Path | None = None) -> str:
    """The checkout's commit; refused (ValueError) while it has uncommitted changes
    outside ``out`` (the folder collected into): a stage made from a dirty tree names a
    commit that cannot rebuild it."""
    commit = git_commit(repo, out)
    if commit.endswith("-dirty"):
        raise ValueError(
            f"the checkout {repo} has uncommitted changes (git status), so no commit could rebuild "
            "what would be collected: commit them, or collect from a clean clone of a tagged commit"
        )
    return commit


def read_benchmark(path: Path) -> dict:
    lines = path.read_text().splitlines()
    row = dict(zip(lines[0].split("\t"), lines[-1].split("\t"), strict=False))
    return {"wall_s": float(row["s"]), "cpu_s": float(row["cpu_time"]), "max_rss_mb": float(row["max_rss"])}


def training_jobs(results: Path) -> dict[str, dict]:
    """``<regime>/<model>_s<seed>`` -> wall and CPU seconds, peak RSS, steps, the step it
    resumed from (its own checkpoint) and the step it started from (a shorter run's state)."""
    jobs = {}
    for bench in sorted((results / "benchmarks" / "train").glob("*/*.tsv")):
        regime, run = bench.parent.name, bench.stem
        entry = read_benchmark(bench)
        summary_path = results / "models" / regime / run / "summary.json"
        if summary_path.exists():
            summary = read_json(summary_path, "training summary")
            entry["steps"] = summary["train_config"]["steps"]
            entry["resumed_from_step"] = summary.get("resumed_from_step")
            # a long run that continued a shorter run's state (prefix sharing) trained fewer steps
            entry["prefix_from_step"] = (summary.get("prefix_from") or {}).get("step")
            entry["threads"] = summary.get("threads")
            entry.update(trained_bits(results / "models" / regime / run, summary))
        jobs[f"{regime}/{run}"] = entry
    return jobs


def trained_bits(model_dir: Path, summary: dict) -> dict:
    """What ``python -m gatedrnn.verify`` compares a retraining with: the sha256 of the
    final weights (:func:`gatedrnn.numerics.weights_sha256`) and of ``history.csv``, the
    best validation loss, the corpus, and the numerics it was trained under (each
    only where the run has it: none before numerics.cpu_isa existed)."""
    import torch

    from gatedrnn.numerics import file_sha256, weights_sha256

    bits = {key: summary[key] for key in ("best_val_loss", "corpus_sha256", "numerics") if key in summary}
    if (model_dir / "model.pt").exists():
        state = torch.load(model_dir / "model.pt", map_location="cpu", weights_only=True)
        bits["weights_sha256"] = weights_sha256(state)
    if (model_dir / "history.csv").exists():
        bits["history_sha256"] = file_sha256(model_dir / "history.csv")
    return bits


def _relative_owners(owner: dict[str, str]) -> dict[str, str]:
    """File -> stage, keyed by the path inside reference/ (``tables/x.csv``); older
    manifests keyed it by the absolute path of the checkout that collected it."""
    fixed = {}
    for key, stage in owner.items():
        parts = Path(key).parts
        if key.startswith("/"):
            key = "/".join(parts[-2:]) if parts[-2] in ("tables", "figures") else parts[-1]
        fixed[key] = stage
    return fixed


def _copy_checked(src: Path, dst: Path, key: str, owner: dict[str, str], stage: str,
                  remade: dict[str, str] | None = None) -> None:  # fmt: skip
    """Refuse a copy over another stage's file; the copies themselves come after every check.
    With ``remade`` (analyses made again after their code changed) the file is taken over
    instead, and ``remade`` keeps the stage that had it."""
    if dst.exists() and dst.read_bytes() != src.read_bytes() and owner.get(key, stage) != stage:
        if remade is None:
            raise ValueError(
                f"{dst} was collected by stage {owner[key]!r} and the run's {src} differs from it; "
                "collect each stage from one run, or start reference/ afresh (or, for analyses made "
                "again after a change to their code, collect with --remade)"
            )
        remade[key] = owner[key]
        owner[key] = stage
    owner.setdefault(key, stage)


def _trained_by_this_stage(run_jobs: dict[str, dict], manifest: dict, stage: str) -> dict[str, dict]:
    """The run's jobs less those another stage (or part) collected from the same
    ``results/`` already: the same benchmark, wall and CPU seconds alike, is the
    same training, not a new one to count again."""
    seen = {(name, job["wall_s"], job["cpu_s"]) for name, job in manifest.get("training_jobs", {}).items()
            if job.get("stage") != stage}  # fmt: skip
    for other, record in manifest.get("stages", {}).items():
        if other != stage:
            seen |= {(name, job["wall_s"], job["cpu_s"]) for name, job in record.get("retrained", {}).items()}
    return {name: job for name, job in run_jobs.items() if (name, job["wall_s"], job["cpu_s"]) not in seen}


def cpu_identity(numerics: dict | None) -> str | None:
    """A CPU as far as the kernels can tell: its model name and the vector extensions
    the libraries dispatch on (two chips both named ``AMD EPYC`` may differ in AVX-512)."""
    if not numerics or not numerics.get("cpu_model"):
        return None
    flags = numerics.get("cpu_flags") or []
    return f"{numerics['cpu_model']} ({' '.join(flags)})" if flags else numerics["cpu_model"]


def same_bits(first: dict, again: dict) -> dict:
    """A retraining set beside the model's first training: the same final weights
    (sha256 of their tensors) or not, and the CPU of the first (:func:`cpu_identity`).
    Empty where either lacks the hash (trained before numerics.cpu_isa)."""
    if not first.get("weights_sha256") or not again.get("weights_sha256"):
        return {}
    return {
        "same_weights_as_first": first["weights_sha256"] == again["weights_sha256"],
        "first_cpu": cpu_identity(first.get("numerics")),
    }


def retraining_agreement(manifest: dict) -> dict:
    """Over every retraining the stages recorded: how many could be compared with the
    first training, how many gave its weights bit for bit (of them, on another CPU
    model), and the first that did not."""
    again = [(name, job) for stage in manifest.get("stages", {}).values()
             for name, job in sorted(stage.get("retrained", {}).items())]  # fmt: skip
    compared = [(name, job) for name, job in again if "same_weights_as_first" in job]
    identical = [(name, job) for name, job in compared if job["same_weights_as_first"]]
    differing = [name for name, job in compared if not job["same_weights_as_first"]]
    return {
        "compared": len(compared),
        "identical": len(identical),
        "identical_on_another_cpu": sum(
            1 for _, job in identical if job.get("first_cpu") != cpu_identity(job.get("numerics"))
        ),
        "first_differing": differing[0] if differing else None,
    }


def steps_measured(job: dict) -> int:
    """The steps the process that finished a job trained, which its benchmark measures:
    from a shorter run's state it started from (prefix sharing), or from its own
    checkpoint when a stop (a session's end) made it resume, which lies past the prefix."""
    return job.get("steps", 0) - max(job.get("prefix_from_step") or 0, job.get("resumed_from_step") or 0)


def measured_share(job: dict) -> float:
    """The share of a job's own steps (past any prefix) whose CPU time its benchmark
    holds: all, unless it resumed from its own checkpoint; Snakemake benchmarks only
    the process that finished, so the steps before the checkpoint go unmeasured."""
    own = job.get("steps", 0) - (job.get("prefix_from_step") or 0)
    return steps_measured(job) / own if own > 0 else 1.0


def steps_not_measured(job: dict) -> int:
    """The steps a job's stopped processes trained before it resumed (none measured)."""
    return max(0, (job.get("resumed_from_step") or 0) - (job.get("prefix_from_step") or 0))


def cpu_s_not_measured(job: dict) -> float:
    """Those steps' CPU time at the cost per step of the process that finished the job."""
    share = measured_share(job)
    return job["cpu_s"] * (1 / share - 1) if 0 < share < 1 else 0.0


def projection_against_actual(projected: dict[str, float], jobs: dict[str, dict]) -> dict:
    """``python -m gatedrnn.estimate --json``'s projected CPU seconds per job, set
    against the CPU seconds the same jobs took (those the run has). A job resumed
    from its own checkpoint is set against the projection of the steps its
    benchmark measured (:func:`measured_share`). The file's ``upper_bounds`` (round
    two and its confirmation at their largest, before their checkpoints) are no
    projection of jobs the stage runs: left out."""
    projected = {name: seconds for name, seconds in projected.items() if not isinstance(seconds, dict)}
    ran = [name for name in projected if name in jobs]
    planned = sum(projected[name] * measured_share(jobs[name]) for name in ran)
    actual = sum(jobs[name]["cpu_s"] for name in ran)
    return {
        "jobs_projected": len(projected),
        "jobs_run": len(ran),
        "jobs_resumed": sum(1 for name in ran if measured_share(jobs[name]) < 1.0),
        "projected_cpu_hours": round(sum(projected.values()) / 3600, 3),
        "projected_cpu_hours_of_jobs_run": round(planned / 3600, 3),
        "actual_cpu_hours_of_jobs_run": round(actual / 3600, 3),
        "actual_over_projected": round(actual / planned, 3) if planned else None,
    }


def collect(
    results: Path,
    out: Path,
    stage: str,
    config: dict,
    corpus_provenance: Path,
    repo: Path,
    note: str = "",
    projection: Path | None = None,
    partial: bool = False,
    remade: bool = False,
) -> dict:
    """Copy the run's small outputs into ``out`` and record the stage in the manifest
    (its commit, its config, ``note``: how it was run where that is not plain, and,
    given the estimate's ``--json`` file made before the stage ran, its projected
    CPU time against the actual). ``remade``: the run made earlier stages' analyses again
    after their code changed; a file with other bytes becomes this stage's (see
    :func:`_copy_checked`), one with the same bytes stays its stage's."""
    manifest_path = out / MANIFEST
    manifest = {"stages": {}, "files": {}}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    owner = _relative_owners(manifest.setdefault("files", {}))
    manifest["files"] = owner
    sources = {}
    for sub, pattern in (("tables", "*.csv"), ("figures", "*.png"), (SEED_ROWS, "*/*.json")):
        for src in sorted((results / sub).glob(pattern)):
            sources[src.relative_to(results).as_posix()] = src
    for name in LEDGER_FILES + PROSE_FILES:
        if (results / name).exists():
            sources[name] = results / name
    taken_over: dict[str, str] | None = {} if remade else None
    for name, src in sources.items():
        _copy_checked(src, out / name, name, owner, stage, taken_over)
    # a remade stage's files: those it changed or added, not those it made again bit for bit
    copied = [name for name in sources if not remade or owner.get(name) == stage]
    provenance = json.loads(corpus_provenance.read_text()) if corpus_provenance.exists() else {}
    machine = this_machine(config)
    record = {
        "commit": clean_commit(repo, out),
        "collected": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config,
        "files": copied,
        "machine": machine,
    }
    if note:
        record["note"] = note
    if partial:
        record["partial"] = True  # some of the stage's targets are still to come
    if remade:
        record["remade"] = dict(sorted(taken_over.items()))  # file -> the stage that had it before
    manifest["stages"][stage] = record
    manifest["config"] = config
    manifest["corpus"] = {
        k: provenance.get(k) for k in ("corpus_sha256", "source", "characters", "vocab_size")
    }
    # The top-level machine is the first stage's (and that of the stages collected
    # before each recorded its own ``machine``): a later stage never overwrites it.
    if len(manifest["stages"]) == 1:
        manifest.update(machine)
    jobs = manifest.setdefault("training_jobs", {})
    run_jobs = _trained_by_this_stage(training_jobs(results), manifest, stage)
    retrained = {}
    for name, job in run_jobs.items():
        first = jobs.get(name)
        if first is None or first.get("stage") == stage:
            jobs[name] = job | {"stage": stage}
        else:
            # trained before by another stage (its results/ were gone): a cost of this stage,
            # and, under pinned numerics, a check that the same model came out bit for bit
            retrained[name] = job | same_bits(first, job)
    record["training_jobs"] = sorted(run_jobs)
    if retrained:
        record["retrained"] = retrained
        record["retrained_same_bits"] = retraining_agreement({"stages": {stage: record}})
    if projection is not None:
        projected = json.loads(projection.read_text())
        record["projection"] = projection_against_actual(projected, run_jobs)
    manifest["totals"] = totals(manifest)
    # every check passed: the copies, then the manifest, each written whole
    for name, src in sources.items():
        atomic_write_bytes(out / name, src.read_bytes())
    atomic_write_bytes(manifest_path, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    return manifest


def this_machine(config: dict) -> dict:
    """What a stage ran on: trained floats are bit-identical only on the same CPU
    model with the same threads per job (docs/numerics.md: comparing a run)."""
    import torch

    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        # the instruction set PyTorch's kernels dispatch to on this CPU (AVX2, AVX512, ...)
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "threads_per_job": config.get("train", {}).get("threads"),
        "cpu_isa": config.get("numerics", {}).get("cpu_isa"),
    }


def totals(manifest: dict) -> dict:
    """Every training the reference run took: each model's first training
    (``training_jobs``) and the retrainings of later stages that started without an
    earlier stage's ``results/`` (``retrained``)."""
    first = list(manifest.get("training_jobs", {}).values())
    again = [job for stage in manifest["stages"].values() for job in stage.get("retrained", {}).values()]
    every = first + again
    return {
        "training_jobs": len(first),
        "retrained_jobs": len(again),
        "cpu_hours": round(sum(j["cpu_s"] for j in every) / 3600, 3),
        "cpu_hours_first_trainings": round(sum(j["cpu_s"] for j in first) / 3600, 3),
        # the steps of stopped processes (before a resume) that no benchmark measured
        "steps_not_measured": sum(map(steps_not_measured, every)),
        "cpu_hours_not_measured": round(sum(map(cpu_s_not_measured, every)) / 3600, 3),
        "wall_hours_summed": round(sum(j["wall_s"] for j in every) / 3600, 3),
        "steps_saved_by_prefix": sum(j.get("prefix_from_step") or 0 for j in every),
        "cpu_hours_saved_by_prefix": round(sum(map(prefix_saving, every)) / 3600, 3),
        "retrained_same_bits": retraining_agreement(manifest),
    }


def prefix_saving(job: dict) -> float:
    """CPU seconds a job did not spend because it started from a shorter run's state:
    the steps it skipped at the cost per step of the steps it trained (:func:`steps_measured`)."""
    skipped = job.get("prefix_from_step") or 0
    trained = steps_measured(job)
    return skipped * job["cpu_s"] / trained if skipped and trained > 0 else 0.0


def record_derived(out: Path, stage: str, files: list[str], repo: Path, note: str) -> dict:
    """Record files computed from ``reference/``'s own tables (no run behind them: the
    final ledger, the open questions' answers) as stage ``stage`` of the manifest."""
    manifest_path = out / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    owner = _relative_owners(manifest.setdefault("files", {}))
    for name in files:
        owner[name] = stage
    manifest["files"] = owner
    manifest["stages"][stage] = {
        "commit": clean_commit(repo, out),
        "collected": datetime.now(UTC).isoformat(timespec="seconds"),
        "files": sorted(files),
        "note": note,
    }
    atomic_write_bytes(manifest_path, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    return manifest


def derived_unchanged(out: Path, stage: str, files: dict[Path, str]) -> bool:
    """Whether every file of ``files`` (path: text) already holds its text and the
    manifest already records them as stage ``stage``: then nothing is rewritten, the
    manifest's time and commit included."""
    recorded = json.loads((out / MANIFEST).read_text()).get("stages", {}).get(stage, {})
    if recorded.get("files") != sorted(path.name for path in files):
        return False
    return all(path.is_file() and path.read_text() == text for path, text in files.items())
