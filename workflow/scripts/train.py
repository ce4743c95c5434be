"""Rule train: one (cell, width, seed) model (gatedrnn.train.loop.train_model)."""

import os
import sys
from pathlib import Path

from gatedrnn.io.files import exclusive_folder_lock
from gatedrnn.numerics import check_in_force
from gatedrnn.scripting import run_logged
from gatedrnn.train.checks import check_before_training
from gatedrnn.train.interrupt import SIGTERM_EXIT_STATUS, TrainingInterrupted
from gatedrnn.train.loop import pick_device
from gatedrnn.train.pipeline import train_one


def main(log):
    # One training job per model directory at a time: Snakemake's own lock can let two
    # runs started at the same instant both start this job (docs/protocol.md).
    with exclusive_folder_lock(Path(snakemake.output.model).parent, "this training job", log):
        train(log)


def train(log):
    # Which device trains (auto: CUDA when usable, else CPU) and what the
    # scheduler handed the job (tests/slurm checks this line).
    log(
        f"device {pick_device(snakemake.params.device)} (train.device {snakemake.params.device}; "
        f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '<unset>')})"
    )
    # What the config alone could not settle (the corpus's length and vocabulary, the
    # GPU), before training. probe.length and the regime's own keys come from the config,
    # not params: a check, not an input (changing the probe must not retrain a model).
    check_before_training(
        snakemake.input.corpus,
        snakemake.input.provenance,
        regime=snakemake.wildcards.regime,
        train_config=snakemake.params.train,
        train_fraction=snakemake.params.train_fraction,
        device=snakemake.params.device,
        probe_length=snakemake.config["probe"]["length"],
        overrides=snakemake.config["regimes"].get(snakemake.wildcards.regime, {}),
    )
    # What the kernels run under (numerics.cpu_isa, pinned by the workflow before torch
    # started): refused when torch dispatches elsewhere, recorded in the summary.
    numerics = check_in_force(snakemake.params.cpu_isa, str(pick_device(snakemake.params.device)))
    log(
        f"numerics {numerics['cpu_isa']}: PyTorch {numerics['torch_cpu_capability']}, "
        f"MKL {numerics['mkl_branch']}, oneDNN {numerics['environment']['ONEDNN_MAX_CPU_ISA'] or 'native'} "
        f"on {numerics['cpu_model']}"
    )
    try:
        summary = train_one(
            corpus_path=snakemake.input.corpus,
            provenance_path=snakemake.input.provenance,
            # a plug-in's import path (its file names carry its class name), or the built-in
            cell=snakemake.params.cell,
            width_token=snakemake.wildcards.width,
            seed=int(snakemake.wildcards.seed),
            regime=snakemake.wildcards.regime,
            train_config=snakemake.params.train,
            train_fraction=snakemake.params.train_fraction,
            checkpoint_dir=snakemake.params.checkpoint_dir,
            checkpoint_every=snakemake.params.checkpoint_every,
            device=snakemake.params.device,
            threads=snakemake.params.threads,
            scheduled_threads=snakemake.threads,
            # the same model under a shorter regime of the same protocol (gatedrnn.train.prefix)
            prefix_summary=snakemake.input.get("prefix"),
            outputs=snakemake.output,
            numerics=numerics,
            log=log,
        )
    except TrainingInterrupted as err:  # SIGTERM (a time limit): checkpointed, rerun resumes
        print(f"ERROR: {err}", file=sys.__stderr__, flush=True)
        sys.exit(SIGTERM_EXIT_STATUS)
    if summary.get("diverged"):
        print(
            f"WARNING: {snakemake.output.summary}: training DIVERGED at step {summary['diverged_at_step']}; "
            "written as a diverged result",
            file=sys.__stderr__,
            flush=True,
        )


run_logged(snakemake.log[0], main)
