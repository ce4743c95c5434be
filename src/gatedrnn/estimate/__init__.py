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
   1.8 to 4x the CPU's own: unpinned, a projection is half the time). Shapes that
   differ in the optimizer alone share one calibration; a cell PyTorch fuses (rnn,
   gru, lstm) is timed once per layers and batch size, its other widths, window
   lengths and vocabularies carried by the FLOP count of a step
   (:mod:`gatedrnn.estimate.scaling`); a Python-loop or plug-in cell shape by shape.
   Calibrations are kept in the working directory's
   ``.snakemake/gatedrnn/calibrations.json`` and used again by the next estimate on
   the same CPU model, torch and numerics.
3. Wall time at ``--cores``: the jobs placed longest-first on ``cores / threads``
   slots (a job that continues a shorter run's state, see prefix sharing, starts
   after it), which is how a greedy scheduler fills the machine.
4. What the dry run cannot list, each its own section, at the most it can train (a
   front decides it; :mod:`gatedrnn.estimate.planned`): when the targets reach them
   and until their checkpoints have run, the protocol's round two (the costliest
   points within ``protocol.round_two.max_trainings``) and round two's confirmation
   (every round-one regime and round two's points at the ``protocol.confirm.seeds``
   they lack; it holds round one's confirmation too, as a regime is confirmed once).
   ``--json`` writes the dry run's jobs by name, and these under ``upper_bounds``.

So a stage's projection covers its training jobs: those the dry run lists, and the
protocol's later rounds as upper bounds; round one's confirmation alone (targets that
stop before round two) is not projected. Only training is costed (the rest takes
seconds to a minute a job); a busy machine runs slower.
"""

from gatedrnn.estimate.costs import (
    CALIBRATION_STEPS,
    STARTUP_SECONDS,
    Cost,
    Shape,
    TrainJob,
    benchmark_costs,
    calibrate,
    cost_jobs,
    evaluations,
    numerics_line,
    shape_of,
)
from gatedrnn.estimate.planned import load_config, missing_texts, planned_train_jobs, train_jobs_for
from gatedrnn.estimate.schedule import format_hours, format_range, makespan, report

__all__ = [
    "CALIBRATION_STEPS", "STARTUP_SECONDS", "Cost", "Shape", "TrainJob", "benchmark_costs", "calibrate",
    "cost_jobs", "evaluations", "format_hours", "format_range", "load_config", "makespan", "missing_texts",
    "numerics_line", "planned_train_jobs", "report", "shape_of", "train_jobs_for",
]  # fmt: skip
