"""Measure training jobs' peak resident memory, to calibrate gatedrnn.core.memory.

    python -m gatedrnn.train.memory_calibration [--quick]

Each case is a fresh process that imports what a training job imports and runs the
train rule's code (:func:`gatedrnn.train.pipeline.train_one`, one thread) on a
generated corpus of the real corpus's shape (``chars`` characters drawn from
``vocab`` symbols); its peak is the kernel's ``ru_maxrss`` of that process
(``os.wait4``), exact where a sampling benchmark can miss a short peak. Prints one
row per case: the measured peak, :func:`gatedrnn.core.memory.estimate_train_peak_mb`
and the error. The baseline case imports and loads the corpus but trains nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from gatedrnn.core.memory import CALIBRATION, ENCODE_BYTES, MIB, estimate_train_peak_mb, memory_terms

CHILD = r"""
import json, sys
from types import SimpleNamespace
import snakemake.script  # noqa: F401  (a rule script's preamble)
import torch
from gatedrnn.scripting import run_logged
from gatedrnn.train.pipeline import train_one
case, corpus, out = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
torch.set_num_threads(1)
if case["cell"] == "none":
    from gatedrnn.io.reading import corpus_splits
    corpus_splits(corpus + "/corpus.txt", corpus + "/corpus.json", 0.9, "corpus")
    sys.exit()
cfg = dict(optimizer=case["optimizer"], lr=0.002, momentum=0.9, batch_size=case["batch_size"],
           seq_len=case["seq_len"], steps=case["steps"], clip_norm=1.0, eval_every=case["steps"] // 2,
           val_windows=case["val_windows"], embed_dim=case["embed_dim"], layers=case["layers"],
           forget_bias=None, readout_norm=case["readout_norm"], vocabulary="corpus")
outputs = SimpleNamespace(model=out + "/model.pt", history=out + "/history.csv",
                          summary=out + "/summary.json")
run_logged(out + "/train.log", lambda log: train_one(
    corpus_path=corpus + "/corpus.txt", provenance_path=corpus + "/corpus.json", cell=case["cell"],
    width_token=f"w{case['width']}", seed=0, regime="calibration", train_config=cfg, train_fraction=0.9,
    checkpoint_dir=out + "/ckpt", checkpoint_every=10**6, device="cpu", threads=1, outputs=outputs, log=log))
"""

BASE = {"optimizer": "adam", "batch_size": 32, "seq_len": 128, "steps": 4, "val_windows": 128,
        "embed_dim": 128, "layers": 1, "vocab": 84, "chars": 5_000_000,
        # the model RECORDED was measured on (before issue 27): no LayerNorm, the corpus's symbols
        "readout_norm": "none"}  # fmt: skip
CASES = [
    {"cell": "none", "width": 0},
    {"cell": "lstm", "width": 64},
    {"cell": "lstm", "width": 325},
    {"cell": "lstm", "width": 686},
    {"cell": "gru", "width": 377},
    {"cell": "rnn", "width": 686},
    {"cell": "cho_gru", "width": 377},
    {"cell": "lstm", "width": 325, "optimizer": "sgd"},
    {"cell": "lstm", "width": 325, "layers": 2},
    {"cell": "lstm", "width": 325, "batch_size": 64},
    {"cell": "lstm", "width": 325, "val_windows": 512},
    {"cell": "lstm", "width": 325, "chars": 60_000},
    {"cell": "lstm", "width": 1024},
    {"cell": "gru", "width": 128},
    {"cell": "gru", "width": 686},
    {"cell": "rnn", "width": 128},
    {"cell": "cho_gru", "width": 128},
    {"cell": "gru_noreset", "width": 470},
    # held out of the fit: checks of the estimate on shapes it did not see
    {"cell": "lstm", "width": 512, "held_out": True},
    {"cell": "gru", "width": 593, "held_out": True},
    {"cell": "gru", "width": 325, "layers": 2, "held_out": True},
    {"cell": "rnn", "width": 325, "val_windows": 256, "held_out": True},
    {
        "cell": "lstm",
        "width": 24,
        "batch_size": 8,
        "seq_len": 32,
        "val_windows": 16,
        "embed_dim": 16,
        "vocab": 52,
        "chars": 60_000,
        "held_out": True,
    },  # the smoke config's jobs
]
QUICK = [0, 1, 2, 3]
# Peaks (MiB) measured for CASES, in order, on this project's build machine (2 shared
# x86-64 cores, torch 2.13.0 CPU, Python 3.11): what CALIBRATION was fitted to
# (`--recorded --fit` shows the fit and every case's error without measuring).
RECORDED = [336, 438, 501, 643, 576, 576, 628, 501, 555, 599, 683, 465, 800, 462, 726, 437, 478, 619,
            574, 728, 636, 537, 355]  # fmt: skip


HELD_OUT = " (held out)"


def write_corpus(directory: Path, chars: int, vocab: int) -> None:
    """``chars`` characters from ``vocab`` printable ASCII symbols (the real corpus: 84)."""
    symbols = [chr(c) for c in range(32, 127)][: vocab - 1] + ["\n"]
    rng = random.Random(0)
    (directory / "corpus.txt").write_text("".join(rng.choices(symbols, k=chars)), encoding="utf-8")
    (directory / "corpus.json").write_text(json.dumps({"corpus_sha256": f"calibration-{chars}-{vocab}"}))


def measure(case: dict, corpus: Path, workdir: Path) -> float:
    """Peak RSS (MiB) of one fresh process running ``case``."""
    out = Path(tempfile.mkdtemp(dir=workdir))
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(case), str(corpus), str(out)], env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"case {case} failed ({proc.returncode}); see {out}/train.log")
    return usage.ru_maxrss / 1024  # KiB on Linux


def estimate(case: dict, calibration: dict | None = None) -> float:
    if case["cell"] == "none":  # imports and the corpus only
        c = CALIBRATION | (calibration or {})
        return c["baseline_mib"] + case["chars"] * ENCODE_BYTES / MIB
    return estimate_train_peak_mb(**shape(case), calibration=calibration)


def shape(case: dict) -> dict:
    keys = (
        "cell",
        "width",
        "embed_dim",
        "layers",
        "batch_size",
        "seq_len",
        "val_windows",
        "optimizer",
        "readout_norm",
    )
    return {key: case[key] for key in keys} | {"vocab_size": case["vocab"], "corpus_chars": case["chars"]}


def fit(rows: list[tuple[dict, float]]) -> dict:
    """Least squares of the training cases' peaks on floor, b and a per cell (the rest counted)."""
    import numpy as np

    trained = [
        (case, measured) for case, measured in rows if case["cell"] != "none" and not case.get("held_out")
    ]
    cells = sorted({case["cell"] for case, _ in trained})
    design, target = [], []
    for case, measured in trained:
        terms = memory_terms(**shape(case))
        row = [1.0, terms["val_units"] / MIB] + [
            terms["train_units"] / MIB if c == case["cell"] else 0.0 for c in cells
        ]
        design.append(row)
        target.append(measured - terms["counted"] / MIB)
    solution, *_ = np.linalg.lstsq(np.array(design), np.array(target), rcond=None)
    fitted = {"floor_mib": round(float(solution[0]), 1), "val_units": round(float(solution[1]), 3)}
    fitted["train_units"] = {c: round(float(v), 2) for c, v in zip(cells, solution[2:], strict=True)}
    baseline = [measured for case, measured in rows if case["cell"] == "none"]
    if baseline:
        first = next(case for case, _ in rows if case["cell"] == "none")
        fitted["baseline_mib"] = round(baseline[0] - first["chars"] * ENCODE_BYTES / MIB, 1)
    return fitted


def table(rows: list[tuple[dict, float]], calibration: dict | None = None) -> str:
    lines = ["| cell | width | optimizer | layers | batch | val windows | corpus chars | measured MiB | "
             "estimate MiB | error |", "|" + "---|" * 10]  # fmt: skip
    for case, measured in rows:
        est = estimate(case, calibration)
        lines.append(
            f"| {case['cell']} | {case['width']} | {case['optimizer']} | {case['layers']} | "
            f"{case['batch_size']} | {case['val_windows']} | {case['chars']:,} | {measured:.0f} | "
            f"{est:.0f} | {100 * (est - measured) / measured:+.1f}%{HELD_OUT * bool(case.get('held_out'))} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the baseline and three LSTM widths only")
    parser.add_argument("--only", help="comma-separated case numbers (0-based) to run")
    parser.add_argument("--save", help="write the measurements to this JSON file")
    parser.add_argument(
        "--load", help="read measurements from these JSON files (comma-separated); measure nothing"
    )
    parser.add_argument(
        "--fit", action="store_true", help="fit floor, b and a per cell; show the fit's errors"
    )
    parser.add_argument("--recorded", action="store_true", help="use RECORDED; measure nothing")
    args = parser.parse_args(argv)
    if args.recorded:
        rows = [(BASE | case, float(measured)) for case, measured in zip(CASES, RECORDED, strict=True)]
    elif args.load:
        rows = [(BASE | case, measured) for path in args.load.split(",") for case, measured in
                json.loads(Path(path).read_text())]  # fmt: skip
    else:
        chosen = QUICK if args.quick else range(len(CASES))
        if args.only:
            chosen = [int(i) for i in args.only.split(",")]
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp)
            corpora = {}
            for i in chosen:
                case = BASE | CASES[i]
                key = (case["chars"], case["vocab"])
                if key not in corpora:
                    corpora[key] = workdir / f"corpus_{key[0]}_{key[1]}"
                    corpora[key].mkdir()
                    write_corpus(corpora[key], *key)
                rows.append((case, measure(case, corpora[key], workdir)))
                print(f"{CASES[i]}: {rows[-1][1]:.0f} MiB", flush=True)
        if args.save:
            Path(args.save).write_text(json.dumps(rows, indent=1))
    calibration = fit(rows) if args.fit else None
    if calibration:
        print("fitted:", json.dumps(calibration))
    print(table(rows, calibration))


if __name__ == "__main__":
    main()
