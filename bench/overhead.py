"""``overhead``: a finished run's benchmark files against its jobs' ``summary.json``."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

from bench.common import usable_cores


def read_benchmark(path: Path) -> dict | None:
    with open(path) as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    if not rows:
        return None
    row = rows[-1]

    def num(key):
        try:
            return float(row[key])
        except (KeyError, ValueError, TypeError):
            return math.nan

    return {
        "s": num("s"),
        "cpu_time": num("cpu_time"),
        "mean_load": num("mean_load"),
        "max_rss": num("max_rss"),
    }


def cmd_overhead(args) -> None:
    root = Path(args.root)
    bench_dir = root / "results" / "benchmarks" / "train"
    files = sorted(bench_dir.rglob("*.tsv")) if bench_dir.is_dir() else []
    if not files:
        print(f"No benchmark files under {bench_dir}: run the workflow first (each train job writes one).")
        return
    rows = []
    for path in files:
        rec = read_benchmark(path)
        if rec is None:
            continue
        regime = path.parent.name
        summary_path = root / "results" / "models" / regime / path.stem / "summary.json"
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
        end = path.stat().st_mtime
        rows.append(
            {
                "job": f"{regime}/{path.stem}",
                **rec,
                "train_model_s": summary.get("wall_seconds", math.nan),
                "threads": summary.get("threads", math.nan),
                "resumed": summary.get("resumed_from_step"),
                "start": end - rec["s"],
                "end": end,
            }
        )
    print(f"# overhead: {len(rows)} train job(s) from {bench_dir}")
    width = max(len(r["job"]) for r in rows) + 1
    print(
        f"{'job':<{width}} {'job s':>8} {'train_model s':>13} {'outside':>8} {'share':>6} "
        f"{'threads':>7} {'CPU/wall':>8} {'max RSS MB':>10}"
    )
    for r in rows:
        outside = r["s"] - r["train_model_s"]
        print(
            f"{r['job']:<{width}} {r['s']:>8.1f} {r['train_model_s']:>13.1f} {outside:>8.1f} "
            f"{100 * outside / r['s']:>5.1f}% {r['threads']:>7} {r['cpu_time'] / r['s']:>8.2f} "
            f"{r['max_rss']:>10.0f}" + ("  (resumed)" if r["resumed"] is not None else "")
        )
    span = max(r["end"] for r in rows) - min(r["start"] for r in rows)
    busy = sum(r["s"] * (r["threads"] if r["threads"] == r["threads"] else 1) for r in rows)
    cores = args.cores or usable_cores()
    ideal = busy / cores
    outside = sum(r["s"] - r["train_model_s"] for r in rows if r["train_model_s"] == r["train_model_s"])
    print()
    print(
        f"sum of job wall times {sum(r['s'] for r in rows):.1f} s; of their train_model time "
        f"{sum(r['train_model_s'] for r in rows):.1f} s; outside train_model {outside:.1f} s "
        f"({100 * outside / sum(r['s'] for r in rows):.2f} %)"
    )
    print(
        f"span of the train jobs (first start to last end, from file times): {span:.1f} s; "
        f"job-seconds x threads / {cores} cores = {ideal:.1f} s if the cores were always full: "
        f"the schedule's overhead (idle cores, gaps between jobs) is {span - ideal:.1f} s "
        f"({100 * (span - ideal) / span:.1f} % of the span). Spans of separate runs add their gaps."
    )
    print("CPU/wall = cpu_time / s of the job (Snakemake's benchmark): about the threads it kept busy.")
