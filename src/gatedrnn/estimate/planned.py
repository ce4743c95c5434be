"""Which training jobs a Snakemake invocation would run (its dry run), with the
config as Snakemake merges it and the shapes and steps of each job."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gatedrnn.estimate.costs import TrainJob, evaluations, shape_of

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


WORKFLOW = Path(__file__).resolve().parents[3]  # the checkout: Snakefile, config/


def config_files(configfiles: list[str], workdir: Path) -> list[str]:
    """The config files Snakemake reads, in order: the Snakefile's ``configfile:``,
    ``config/config.yaml`` of the working directory (the workflow's own where that
    directory has none: the dry run is then given it), then each --configfile."""
    local = Path(workdir) / "config" / "config.yaml"
    return [str(local if local.is_file() else WORKFLOW / "config" / "config.yaml"), *configfiles]


def load_config(configfiles: list[str], workdir: Path) -> dict:
    """The config as Snakemake merges it (:func:`config_files`)."""
    import yaml
    from snakemake.utils import update_config

    config: dict = {}
    for path in config_files(configfiles, workdir):
        update_config(config, yaml.safe_load(Path(path).read_text()))
    return config


def missing_texts(planned: list[dict], configfiles: list[str], workdir: Path) -> list[str]:
    """The texts (corpus files) whose vocabulary the planned jobs need and that are not
    made yet, every one of them at once."""
    from gatedrnn.plan import Plan

    plan = Plan.from_config(load_config(configfiles, workdir))
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

    config = load_config(configfiles, workdir)
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
        cell = plan.cell_path(entry["cell"])  # a plug-in's import path, or the built-in
        width = resolve_width(entry["width"], cell, v, cfg["embed_dim"], cfg["layers"], cfg["readout_norm"])
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
            shape=shape_of(cell, width, v, cfg),
            steps=cfg["steps"] - start,
            evaluations=evaluations(cfg["steps"], cfg["eval_every"], start),
            after=after,
        )
        jobs.append(job)
    return jobs, int(config["train"]["threads"])


# The targets that reach round two of the protocol search (none given: `rule all`).
ROUND_TWO_TARGETS = {
    "all",
    "stage_protocol",
    "results/tables/protocol_round_two.csv",
    "results/tables/protocol_round_two_front.csv",
}


def round_two_after_front(targets: list[str], configfiles: list[str], workdir: Path) -> list[dict]:
    """``{regime, cell, width, seed}`` of every point a front could ask round two for (every
    round-one regime on the front; :func:`capped_round_two` keeps what its bound allows)
    not trained yet, when ``targets`` reach round two and its checkpoint
    (protocol_round_two_plan) has not run: a dry run cannot list its jobs before then.
    None once the checkpoint has run (the dry run lists them) or when it is off."""
    from gatedrnn.plan import PROTOCOL_ROUND_TWO_PLAN, Plan, model_file

    plan = Plan.from_config(load_config(configfiles, workdir))
    reached = not targets or bool(ROUND_TWO_TARGETS & set(targets))
    if not (plan.round_two_enabled and reached) or (Path(workdir) / PROTOCOL_ROUND_TWO_PLAN).exists():
        return []
    runs = plan.round_two_runs(plan.round_two_regimes)
    return [{"regime": run.regime, "cell": run.model.rsplit("_", 1)[0], "width": run.model.rsplit("_", 1)[1],
             "seed": str(run.seed)} for run in runs
            if not (Path(workdir) / model_file(run, "summary.json")).exists()]  # fmt: skip


def costliest_points(jobs: list[TrainJob], points: int) -> list[TrainJob]:
    """Of ``jobs`` (one regime is one point), those of the ``points`` costliest points, in
    the jobs' order."""
    cost: dict[str, float] = {}
    for job in jobs:
        cost[job.regime] = cost.get(job.regime, 0.0) + job.seconds
    kept = set(sorted(cost, key=lambda regime: -cost[regime])[:points])  # stable: the first of a tie
    return [job for job in jobs if job.regime in kept]


def round_two_bound(config: dict) -> int:
    """The most points ``protocol.round_two.max_trainings`` lets round two plan."""
    from gatedrnn.plan.round_two import round_two_trainings

    return config["protocol"]["round_two"]["max_trainings"] // round_two_trainings(1, config)


def capped_round_two(jobs: list[TrainJob], config: dict) -> list[TrainJob]:
    """The largest round two ``protocol.round_two.max_trainings`` lets a front ask for:
    of ``jobs`` (every point a front could ask for, costed; one regime is one point),
    the costliest points whose trainings stay within the bound, in the jobs' order. A
    front asking for more is refused when round two is planned, so none runs longer."""
    return costliest_points(jobs, round_two_bound(config))


# The targets that reach round two's confirmation (none given: `rule all`).
CONFIRMATION_TARGETS = {
    "all",
    "stage_protocol",
    "results/tables/protocol_round_two_front.csv",
    "results/tables/protocol_round_two_confirmation_regimes.csv",
}


def _entry(run) -> dict:
    cell, width = run.model.rsplit("_", 1)
    return {"regime": run.regime, "cell": cell, "width": width, "seed": str(run.seed)}


def confirmation_after_round_two(
    targets: list[str], configfiles: list[str], workdir: Path, planned: list[dict]
) -> list[dict]:
    """``{regime, cell, width, seed}`` of every training round two's confirmation (rule
    protocol_round_two_confirmation) could ask for, when ``targets`` reach it and its
    checkpoint (protocol_round_two) has not run: a dry run cannot list its jobs before then.
    Any regime of either round may be on the front of both rounds or near it, so: the
    sweep's two models under every round-one regime and every round-two point (those
    of round two's plan once it exists, else every point a front could ask for:
    :func:`capped_round_two_confirmation` keeps what its bound allows) at each seed of
    ``protocol.confirm.seeds``, less the runs trained before it (round one's, round two's
    at its seeds, those already made, those ``planned`` by the dry run); and the
    shorter run a confirmed run continues (prefix sharing) where that is not made
    either. None once the checkpoint has run (the dry run lists them) or when it is off."""
    import pandas as pd

    from gatedrnn.plan import PROTOCOL_ROUND_TWO, PROTOCOL_ROUND_TWO_PLAN, Plan, Run, model_file

    plan = Plan.from_config(load_config(configfiles, workdir))
    reached = not targets or bool(CONFIRMATION_TARGETS & set(targets))
    if not (plan.round_two_enabled and reached) or (Path(workdir) / PROTOCOL_ROUND_TWO).exists():
        return []
    made = Path(workdir) / PROTOCOL_ROUND_TWO_PLAN
    second = list(plan.round_two_regimes)  # every point a front could ask for, until the plan is made
    if made.exists():  # the plan's points (one of another config's points this config cannot train)
        second = [regime for regime in pd.read_csv(made)["regime"] if regime in plan.round_two_regimes]
    first = [point["regime"] for point in (*plan.sweep_points, *plan.corpus_size_points)]
    before = {*plan.regime_sweep_runs, *plan.corpus_size_runs, *plan.round_two_runs(second)}
    before = {(run.regime, run.model, str(run.seed)) for run in before}
    before |= {(entry["regime"], f"{entry['cell']}_{entry['width']}", entry["seed"]) for entry in planned}
    chosen: dict[tuple, Run] = {}
    pending = list(plan.confirmation_runs([*first, *second]))
    while pending:
        run = pending.pop(0)
        key = (run.regime, run.model, str(run.seed))
        if key in before or key in chosen or (Path(workdir) / model_file(run, "summary.json")).exists():
            continue
        chosen[key] = run
        shorter = plan.prefix_regime(run.regime)
        if shorter is not None:  # trained first where it is not made (the train rule's input)
            pending.append(Run(shorter, run.model, run.seed))
    return [_entry(run) for run in chosen.values()]


def capped_round_two_confirmation(jobs: list[TrainJob], config: dict) -> list[TrainJob]:
    """The most round two's confirmation can train: of ``jobs``
    (:func:`confirmation_after_round_two`, costed), every round-one regime's, and those of
    the costliest round-two points round two may plan within
    ``protocol.round_two.max_trainings`` (round two confirms only what it trained)."""
    from gatedrnn.plan import Plan

    first = set(Plan.from_config(config).regimes)
    second = costliest_points([job for job in jobs if job.regime not in first], round_two_bound(config))
    return [job for job in jobs if job.regime in first or job in second]
