"""The reference run's stages and machines, read from its manifest: which stages are
collected (a stage may come in parts), what each holds, and the results page's
provenance table. ``gatedrnn.report.results_page`` renders them."""

from __future__ import annotations

import json
from pathlib import Path

from gatedrnn.report.markdown import fmt

STAGES = {
    "study": "the study's own experiments (grid, forget-bias sweep, closed forms)",
    "regimes": "the regime sweep",
    "questions": "the open questions",
    "protocol": "which protocol reproduces the study",
}


def read_manifest(reference: Path) -> dict:
    """``reference/manifest.json``; no stage while there is none."""
    path = reference / "manifest.json"
    return json.loads(path.read_text()) if path.exists() else {"stages": {}}


def stage_kind(name: str) -> str:
    """The stage of STAGES a collected stage belongs to: a stage may be collected in
    parts, each named after it (``protocol_confirmation`` is part of ``protocol``)."""
    return next((kind for kind in STAGES if name == kind or name.startswith(kind + "_")), name)


def collected(manifest: dict, kind: str) -> list[str]:
    """The collected stages (or parts) of ``kind``, in the order they were collected."""
    stages = manifest.get("stages", {})
    names = [name for name in stages if stage_kind(name) == kind]
    return sorted(names, key=lambda name: stages[name].get("collected", ""))


def held(manifest: dict, kind: str) -> str:
    """What a stage kind holds, "(in part)" while its latest part was collected partial."""
    latest = manifest["stages"][collected(manifest, kind)[-1]]
    return STAGES[kind] + (" (in part)" if latest.get("partial") else "")


def stage_machine(manifest: dict, name: str) -> dict:
    """The machine a stage ran on: its own record, else the manifest's top-level one
    (stages collected before each recorded its own)."""
    own = manifest.get("stages", {}).get(name, {}).get("machine")
    keys = ("cpu", "cores", "python", "torch", "threads_per_job")
    return own or {key: manifest.get(key, "?") for key in keys}


def remaking_stages(manifest: dict) -> list[str]:
    """The collected stages of no kind in STAGES: runs that made earlier stages' analyses
    again after their code changed (``collect --remade``), in the order collected."""
    stages = manifest.get("stages", {})
    names = [name for name in stages if stage_kind(name) not in STAGES and "remade" in stages[name]]
    return sorted(names, key=lambda name: stages[name].get("collected", ""))


def machines(manifest: dict) -> list[str]:
    """The CPU models of the collected stages, in stage order, each once."""
    names = [name for kind in STAGES for name in collected(manifest, kind)] + remaking_stages(manifest)
    return list(dict.fromkeys(stage_machine(manifest, name)["cpu"] for name in names))


def provenance(manifest: dict) -> list[str]:
    stages = manifest.get("stages", {})
    lines = ["| stage | what | commit | CPU | trainings (of them retrained) |", "|---|---|---|---|---|"]
    for kind, what in STAGES.items():
        if not collected(manifest, kind):
            lines.append(f"| {kind} | {what} | not run yet | | |")
        parts = collected(manifest, kind)
        complete = bool(parts) and not stages[parts[-1]].get("partial")
        for number, name in enumerate(parts, 1):
            stage = stages[name]
            machine = stage_machine(manifest, name)
            trained = stage.get("training_jobs")
            again = len(stage.get("retrained", {}))
            count = "not recorded" if trained is None else f"{len(trained)} ({again})"
            # once the last part is in, each part says which it was; before, "(in part)"
            if len(parts) > 1 and complete:
                part = f", part {number} of {len(parts)}"
            else:
                part = " (in part)" if stage.get("partial") else ""
            lines.append(f"| {name} | {what}{part} | {stage['commit'][:12]} | {machine['cpu']} | {count} |")
    for name in remaking_stages(manifest):
        stage, machine = stages[name], stage_machine(manifest, name)
        changed = len(stage.get("remade", {}))
        what = f"analyses made again after their code changed ({changed} file{'s' * (changed != 1)} changed)"
        count = f"{len(stage.get('training_jobs', []))} ({len(stage.get('retrained', {}))})"
        lines.append(f"| {name} | {what} | {stage['commit'][:12]} | {machine['cpu']} | {count} |")
    corpus = manifest.get("corpus", {})
    totals = manifest.get("totals", {})
    retrained = totals.get("retrained_jobs")
    lines += [
        "",
        f"- **Machines**: {' and '.join(machines(manifest))}, {manifest.get('cores', '?')} cores, "
        f"{manifest.get('threads_per_job', '?')} thread(s) per job; Python {manifest.get('python', '?')}, "
        f"torch {manifest.get('torch', '?')}.",
        f"- **Corpus**: {corpus.get('source', '?')}, {fmt(corpus.get('characters'))} characters, "
        f"{corpus.get('vocab_size', '?')} distinct, sha256 `{corpus.get('corpus_sha256', '?')}`.",
        f"- **Training**: {totals.get('training_jobs', 0)} models, "
        f"{fmt(totals.get('cpu_hours', 0.0))} CPU-hours"
        + (
            f" ({retrained} of them trained again by a later stage that started without the earlier "
            "stages' models; a model's tables come from the stage that made them)."
            if retrained
            else "."
        ),
    ]
    if totals.get("steps_not_measured"):
        lines.append(
            f"- **Not benchmarked**: {fmt(totals['steps_not_measured'])} steps, trained by processes a "
            "session's end stopped before the job resumed from its checkpoint (about "
            f"{fmt(totals['cpu_hours_not_measured'])} CPU-hours more at each job's own cost per step)."
        )
    for name in remaking_stages(manifest):
        made = stages[name].get("remade", {})
        if made:
            files = ", ".join(f"`{Path(file).name}` ({was})" for file, was in made.items())
            lines.append(f"- **Made again** by {name}, with the bytes that changed (the stage that had "
                         f"each before): {files}.")  # fmt: skip
    if totals.get("cpu_hours_saved_by_prefix"):
        lines.append(
            f"- **Prefix sharing**: {fmt(totals['steps_saved_by_prefix'])} steps fewer trained "
            f"(about {fmt(totals['cpu_hours_saved_by_prefix'])} CPU-hours at each long run's own "
            "cost per step)."
        )
    return lines
