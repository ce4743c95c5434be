"""The command line of ``python -m bench``: one subcommand per benchmark (listed in ``bench/__init__.py``)."""

from __future__ import annotations

import argparse
import contextlib
import sys

import bench
from bench import bench_cells, bench_gates
from bench.common import format_models
from bench.dag import cmd_dag
from bench.evaluation import cmd_eval
from bench.grid import grid_models, load_config, reference_and_gru, reference_models
from bench.harness import resolve_vocab
from bench.numerics import cmd_numerics, cmd_numerics_worker
from bench.overhead import cmd_overhead
from bench.threads import cmd_state_hash, cmd_threads, cmd_worker
from bench.train_step import STEP_CONTENDERS, cmd_step_worker, cmd_train_step
from bench.variants import cmd_variants

# Stand-alone benchmarks with their own flags: `python -m bench cells --width 8` runs bench_cells.main.
SCRIPTS = {"cells": bench_cells, "gates": bench_gates}
GRID_HELP = "cell:width,... (default: the grid of config/config.yaml, widths resolved on V; bench/README.md)"
VOCAB_HELP = "vocabulary size V (default: data/corpus.txt's, else the config's synthetic corpus's)"


def resolve_defaults(args) -> None:
    """Fill the defaults that are computed, not typed: V, the models and the checkpoint cadence."""
    if "vocab" in args:
        resolve_vocab(args)
    if "models" in args and args.models is None:
        args.models = format_models(args.default_models(args.vocab))
    if "share_models" in args and args.share_models is None:
        args.share_models = format_models(reference_models())
    if "checkpoint_every" in args and args.checkpoint_every is None:
        args.checkpoint_every = 100
        with contextlib.suppress(Exception):
            args.checkpoint_every = int(load_config()["train"]["checkpoint_every"])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=bench.__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p, steps, rounds, device=True):
        p.add_argument(
            "--threads", type=int, default=None, help="torch threads (default: config train.threads)"
        )
        p.add_argument("--steps", type=int, default=steps, help="steps (or passes) per timing")
        p.add_argument("--rounds", type=int, default=rounds, help="interleaved rounds (medians over them)")
        p.add_argument("--models", default=None, help=GRID_HELP)
        p.add_argument("--vocab", type=int, default=None, help=VOCAB_HELP)
        p.add_argument(
            "--checkpoint-every",
            type=int,
            default=None,
            help="the workflow's train.checkpoint_every (default: config/config.yaml's)",
        )
        if device:
            p.add_argument("--device", default="auto", help="auto (CUDA when present) | cpu | cuda")
        p.add_argument(
            "--retain",
            action="store_true",
            help="call bench.memory.retain_freed_memory() first (the train job does not)",
        )
        p.set_defaults(default_models=grid_models)

    def worker(p, steps):  # the internal subcommands a benchmark starts in fresh processes
        p.add_argument("--cell", required=True)
        p.add_argument("--hidden", type=int, required=True)
        p.add_argument("--vocab", type=int, default=None)
        p.add_argument("--threads", type=int, default=1)
        p.add_argument("--steps", type=int, default=steps)
        p.add_argument("--retain", action="store_true")

    p = sub.add_parser("train-step", help="tokens/s of the training step, bare loop, non-training share")
    common(p, steps=4, rounds=5)
    p.add_argument("--fma-units", type=int, default=2, help="FMA units per core for the peak estimate")
    p.add_argument("--share-steps", type=int, default=200, help="steps of the instrumented run (0: skip)")
    p.add_argument(
        "--share-models", default=None, help="models of the instrumented run (default: the reference LSTM)"
    )
    p.add_argument(
        "--in-process",
        action="store_true",
        help="time every contender in this process (default: a fresh process per timing)",
    )
    p.set_defaults(func=cmd_train_step)

    p = sub.add_parser("_step", help=argparse.SUPPRESS)
    p.add_argument("--contender", choices=STEP_CONTENDERS, required=True)
    worker(p, steps=4)
    p.add_argument("--device", default="auto")
    p.set_defaults(func=cmd_step_worker)

    p = sub.add_parser("eval", help="the evaluation pass against a bare forward")
    common(p, steps=2, rounds=5)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("dag", help="snakemake -n time for the full default DAG")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--root", default=".", help="workflow directory")
    p.add_argument("snakemake_args", nargs="*", help="more arguments for snakemake -n (after --)")
    p.set_defaults(func=cmd_dag)

    p = sub.add_parser("overhead", help="a finished run's benchmark files against its jobs' compute")
    p.add_argument("--root", default=".", help="workflow directory (reads results/benchmarks/train)")
    p.add_argument("--cores", type=int, default=None, help="cores the run had (default: this machine's)")
    p.set_defaults(func=cmd_overhead)

    p = sub.add_parser("variants", help="oneDNN, layout, Adam foreach/fused, torch.compile; bit-identity")
    common(p, steps=3, rounds=5)
    p.add_argument(
        "--variants",
        default="baseline,mkldnn off,time-major,adam for-loop,adam fused",
        help="comma-separated; also: torch.compile",
    )
    p.add_argument("--allow-rnn", action="store_true", help="torch.compile: let dynamo trace into the RNN")
    p.add_argument("--repro-steps", type=int, default=5, help="steps of the bit-identity runs (0: skip)")
    p.set_defaults(func=cmd_variants)

    p = sub.add_parser("numerics", help="step time of each numerics.cpu_isa setting beside native; bits")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: config train.threads)")
    p.add_argument("--steps", type=int, default=4, help="bare steps per timing (after 1 warm-up)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians over them)")
    p.add_argument("--models", default=None, help=GRID_HELP)
    p.add_argument("--vocab", type=int, default=None, help=VOCAB_HELP)
    p.add_argument(
        "--settings",
        default="portable_avx2,portable,avx2",
        help="comma-separated numerics.cpu_isa settings, or one library: aten=avx2, onednn=AVX2, "
        "mkl=COMPATIBLE+STRICT (+ for a comma), or a setting with one library changed: "
        "portable:mkl=AVX2+STRICT (native is always timed)",
    )
    p.set_defaults(func=cmd_numerics, default_models=grid_models)

    p = sub.add_parser("_numerics_step", help=argparse.SUPPRESS)
    worker(p, steps=4)
    p.set_defaults(func=cmd_numerics_worker)

    p = sub.add_parser("threads", help="jobs x threads on this machine's cores (separate processes)")
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument(
        "--models", default=None, help="cell:width,... (default: the reference LSTM and the budget GRU)"
    )
    p.add_argument("--vocab", type=int, default=None, help=VOCAB_HELP)
    p.add_argument("--malloc", action="store_true", help="also compare glibc malloc tuning")
    p.add_argument(
        "--omp-passive", action="store_true", help="also 1 job x all cores, OMP_WAIT_POLICY=PASSIVE"
    )
    p.add_argument(
        "--repro-steps", type=int, default=0, help="bit-identity runs of this many steps (0: skip)"
    )
    p.add_argument("--layouts", default=None, help='instead: e.g. "2x1,1x2,1x1:malloc,1x2:omp-passive"')
    p.set_defaults(func=cmd_threads, default_models=reference_and_gru)

    p = sub.add_parser("_state_hash", help=argparse.SUPPRESS)
    worker(p, steps=3)
    p.set_defaults(func=cmd_state_hash)

    p = sub.add_parser("_worker", help=argparse.SUPPRESS)
    worker(p, steps=4)
    p.set_defaults(func=cmd_worker)

    for name, module in SCRIPTS.items():  # listed for --help; main() hands them their own arguments
        sub.add_parser(name, help=module.__doc__.splitlines()[0], add_help=False)
    return parser


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in SCRIPTS:
        SCRIPTS[argv[0]].main(argv[1:], prog=f"python -m bench {argv[0]}")
        return
    args = build_parser().parse_args(argv)
    resolve_defaults(args)
    args.func(args)
