"""The reference run, committed: a finished run's small outputs under ``reference/``
with a manifest that says how, where and from what they were made.

    python -m gatedrnn.reference collect --stage study     # after `snakemake --cores 2 stage_study`
    python -m gatedrnn.reference ledger                    # claims.{csv,md,html} from reference/tables
    python -m gatedrnn.reference pages                     # docs/results.md and the README's summary
    python -m gatedrnn.reference scoreboard                # check reference/'s scoreboard against its tables

``collect`` copies every table (CSV), every figure (PNG), the claims ledger and
``open_questions.md`` that the run has, and records in ``reference/manifest.json``:
the stage and the commit it was made at, the config, the corpus checksum, the
Python and torch versions, the CPU model and core count, the threads per job, and
each training job's wall and CPU time and peak memory (``results/benchmarks/``).
Stages accumulate: collecting ``regimes`` after ``study`` keeps the study's files
and adds the sweep's. A file another stage already collected must be identical
(same bytes) or collect refuses, naming it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

REFERENCE = Path("reference")
MANIFEST = "manifest.json"
LEDGER_FILES = ("claims.csv", "claims.md", "claims.html")
PROSE_FILES = ("open_questions.md",)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit(repo: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()  # fmt: skip
        return out.stdout.strip() + ("-dirty" if dirty else "")
    except OSError:
        return "unknown"


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
            summary = json.loads(summary_path.read_text())
            entry["steps"] = summary["train_config"]["steps"]
            entry["resumed_from_step"] = summary.get("resumed_from_step")
            # a long run that continued a shorter run's state (prefix sharing) trained fewer steps
            entry["prefix_from_step"] = (summary.get("prefix_from") or {}).get("step")
            entry["threads"] = summary.get("threads")
        jobs[f"{regime}/{run}"] = entry
    return jobs


def _copy_checked(src: Path, dst: Path, owner: dict[str, str], stage: str) -> None:
    key = dst.as_posix()
    if dst.exists() and dst.read_bytes() != src.read_bytes() and owner.get(key, stage) != stage:
        raise ValueError(
            f"{dst} was collected by stage {owner[key]!r} and the run's {src} differs from it; "
            "collect each stage from one run, or start reference/ afresh"
        )
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    owner.setdefault(key, stage)


def projection_against_actual(projected: dict[str, float], jobs: dict[str, dict]) -> dict:
    """``python -m gatedrnn.estimate --json``'s projected CPU seconds per job, set
    against the CPU seconds the same jobs took (those the run has)."""
    ran = [name for name in projected if name in jobs]
    planned = sum(projected[name] for name in ran)
    actual = sum(jobs[name]["cpu_s"] for name in ran)
    return {
        "jobs_projected": len(projected),
        "jobs_run": len(ran),
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
) -> dict:
    """Copy the run's small outputs into ``out`` and record the stage in the manifest
    (its commit, its config, ``note``: how it was run where that is not plain, and,
    given the estimate's ``--json`` file made before the stage ran, its projected
    CPU time against the actual)."""
    manifest_path = out / MANIFEST
    manifest = {"stages": {}, "files": {}}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    owner = manifest.setdefault("files", {})
    copied = []
    for sub, pattern in (("tables", "*.csv"), ("figures", "*.png")):
        for src in sorted((results / sub).glob(pattern)):
            dst = out / sub / src.name
            _copy_checked(src, dst, owner, stage)
            copied.append(dst.relative_to(out).as_posix())
    for name in LEDGER_FILES + PROSE_FILES:
        if (results / name).exists():
            _copy_checked(results / name, out / name, owner, stage)
            copied.append(name)
    provenance = json.loads(corpus_provenance.read_text()) if corpus_provenance.exists() else {}
    import torch

    manifest["stages"][stage] = {
        "commit": git_commit(repo),
        "collected": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config,
        "files": copied,
    }
    if note:
        manifest["stages"][stage]["note"] = note
    manifest.update(
        {
            "config": config,
            "corpus": {k: provenance.get(k) for k in ("corpus_sha256", "source", "characters", "vocab_size")},
            "python": platform.python_version(),
            "torch": torch.__version__,
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "threads_per_job": config.get("train", {}).get("threads"),
        }
    )
    jobs = manifest.setdefault("training_jobs", {})
    jobs.update(training_jobs(results))
    if projection is not None:
        projected = json.loads(projection.read_text())
        manifest["stages"][stage]["projection"] = projection_against_actual(projected, jobs)
    manifest["totals"] = {
        "training_jobs": len(jobs),
        "cpu_hours": round(sum(j["cpu_s"] for j in jobs.values()) / 3600, 3),
        "wall_hours_summed": round(sum(j["wall_s"] for j in jobs.values()) / 3600, 3),
        "steps_saved_by_prefix": sum(j.get("prefix_from_step") or 0 for j in jobs.values()),
    }
    out.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def reference_ledger(reference: Path, config: dict, workflow: Path):
    """The claims ledger of ``reference/``'s tables: the same claims and the same
    :func:`gatedrnn.claims.build_ledger` as the ``claims`` rule, each table the rule
    reads (``results/tables/x.csv``) read from ``reference/tables/x.csv`` instead.
    None while a table it needs is not in the reference yet (a stage to come)."""
    import pandas as pd

    from gatedrnn.claims import build_ledger, claim_tables, ledger_claims, regime_tables
    from gatedrnn.plan import Plan

    plan = Plan.from_config(config)
    claims = ledger_claims(workflow / "config/published.yaml", workflow / "config/new_findings.yaml",
                           enabled=plan.enabled_questions, known=list(config["open_questions"]))  # fmt: skip
    needed = claim_tables(claims)
    regimes = regime_tables(claims) if plan.sweep_points else []
    located = {path: reference / "tables" / Path(path).name for path in [*needed, *regimes]}
    if not all(p.exists() for p in located.values()):
        return None
    tables = {path: pd.read_csv(located[path]) for path in needed}
    regime_table = pd.read_csv(located[regimes[0]]) if regimes else None
    return build_ledger(claims, tables, plan.claim_models, regime_table)


def reference_scoreboard(reference: Path, config: dict, workflow: Path):
    """The scoreboard of regimes of ``reference/``'s tables: the regime tables and the
    claims' own tables, judged by :mod:`gatedrnn.claims.scoreboard` exactly as the
    ``protocol_scoreboard`` checkpoint does. None while a table is missing."""
    import pandas as pd

    from gatedrnn.claims import load_claims
    from gatedrnn.claims.scoreboard import regime_frame, regime_verdicts, scoreboard
    from gatedrnn.plan import CORPUS_SIZE, REGIME_SENSITIVITY, Plan
    from gatedrnn.plan.published import regime_view_tables

    plan = Plan.from_config(config)
    published = workflow / "config/published.yaml"
    regime_paths = ([REGIME_SENSITIVITY] if plan.sweep_points else []) + [CORPUS_SIZE]
    needed = regime_view_tables(str(published))
    located = {path: reference / "tables" / Path(path).name for path in [*needed, *regime_paths]}
    if not all(p.exists() for p in located.values()):
        return None
    regimes = regime_frame(*(pd.read_csv(located[path]) for path in regime_paths))
    tables = {path: pd.read_csv(located[path]) for path in needed}
    verdicts = regime_verdicts(load_claims(published), tables, plan.claim_models, regimes)
    return scoreboard(verdicts, regimes)


def write_ledger(ledger, out: Path) -> None:
    from gatedrnn.claims import render_html, render_markdown

    ledger.to_csv(out / "claims.csv", index=False)
    (out / "claims.md").write_text(render_markdown(ledger))
    (out / "claims.html").write_text(render_html(ledger))


def load_config(files: list[str]) -> dict:
    import yaml
    from snakemake.utils import update_config

    config: dict = {}
    for path in files:
        update_config(config, yaml.safe_load(Path(path).read_text()))
    return config


def main(argv: list[str] | None = None) -> int:
    summary = __doc__.split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python -m gatedrnn.reference", description=summary)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="copy a finished stage's outputs into reference/")
    c.add_argument("--stage", required=True, help="study | regimes | questions | ledger (any name)")
    c.add_argument("--results", default="results")
    c.add_argument("--out", default=str(REFERENCE))
    c.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    c.add_argument("--provenance", default="data/corpus.json")
    c.add_argument("--note", default="", help="how the stage was run, where that is not plain")
    c.add_argument(
        "--projection",
        help="the file `python -m gatedrnn.estimate --json FILE` wrote before the stage ran: "
        "the manifest sets its projected CPU time against the actual",
    )
    s = sub.add_parser(
        "ledger", help="claims.{csv,md,html} from reference/'s tables (once every stage is in)"
    )
    s.add_argument("--reference", default=str(REFERENCE))
    s.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    b = sub.add_parser(
        "scoreboard", help="the scoreboard of regimes from reference/'s tables, against its own"
    )
    b.add_argument("--reference", default=str(REFERENCE))
    b.add_argument("--configfile", nargs="+", default=["config/config.yaml"])
    g = sub.add_parser("pages", help="render docs/results.md and the README's summary from reference/")
    g.add_argument("--reference", default=str(REFERENCE))
    g.add_argument("--page", default="docs/results.md")
    g.add_argument("--readme", default="README.md")
    args = parser.parse_args(argv)
    if args.command == "ledger":
        ledger = reference_ledger(Path(args.reference), load_config(args.configfile), Path.cwd())
        if ledger is None:
            print("the reference lacks tables the ledger reads: collect every stage first", file=sys.stderr)
            return 1
        write_ledger(ledger, Path(args.reference))
        from gatedrnn.claims import summary_line

        print(summary_line(ledger))
        return 0
    if args.command == "scoreboard":
        board = reference_scoreboard(Path(args.reference), load_config(args.configfile), Path.cwd())
        if board is None:
            print(
                "the reference lacks tables the scoreboard reads: collect stage protocol first",
                file=sys.stderr,
            )
            return 1
        print(board.to_string(index=False))
        committed = Path(args.reference) / "tables" / "protocol_scoreboard.csv"
        if committed.exists():
            import pandas as pd

            same = pd.read_csv(committed).equals(board.astype(pd.read_csv(committed).dtypes.to_dict()))
            print(
                "the committed scoreboard is "
                + ("what these tables give" if same else "NOT what these tables give")
            )
            return 0 if same else 1
        return 0
    if args.command == "pages":
        from gatedrnn.report.protocol_page import render_protocol_section, replace_protocol_section
        from gatedrnn.report.results_page import (
            render_readme_summary,
            render_results_page,
            replace_readme_summary,
        )

        Path(args.page).write_text(render_results_page(args.reference))
        readme = Path(args.readme)
        text = replace_readme_summary(readme.read_text(), render_readme_summary(args.reference))
        text = replace_protocol_section(text, render_protocol_section(args.reference, Path.cwd()))
        readme.write_text(text)
        print(f"wrote {args.page} and the summary in {args.readme}")
        return 0
    if args.command == "collect":
        try:
            manifest = collect(Path(args.results), Path(args.out), args.stage, load_config(args.configfile),
                               Path(args.provenance), Path.cwd(), args.note,
                               Path(args.projection) if args.projection else None)  # fmt: skip
        except ValueError as err:
            print(f"ERROR: {err}", file=sys.stderr)
            return 1
        stage = manifest["stages"][args.stage]
        print(f"stage {args.stage}: {len(stage['files'])} files into {args.out} (commit {stage['commit']})")
        print(f"training jobs recorded: {manifest['totals']}")
        if "projection" in stage:
            print(f"projected against actual: {stage['projection']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
