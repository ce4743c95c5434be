"""Benchmarks of the workflow's own code, run on demand: ``python -m bench <subcommand>``.

Nothing here is a test and the science package never imports it: every
subcommand prints a table and asserts nothing. Run from the repository root
with the package importable (``PYTHONPATH=src``, or the package installed).
How the figures are taken, and what they were, is in ``bench/README.md``.

Subcommands (``--help`` on each lists its flags; all take ``--threads``,
``--device auto|cpu|cuda`` where they train, and ``--steps``/``--rounds``):

``train-step`` (:mod:`bench.train_step`, :mod:`bench.share`)
    tokens/s of :func:`gatedrnn.train.loop.train_model` itself (the marginal cost
    of a step: a run of 1 + n steps minus a run of 1 step, both with the
    same two evaluations, so sampling, ``loss.item()`` and the divergence
    check are in), of a bare PyTorch loop (same module and optimizer, one
    fixed batch: forward, loss, ``zero_grad``, backward, clip, ``step``) and
    of forward + backward alone, for every grid model; the floating-point
    work of a step and the fraction of the CPU's peak it reaches; then the
    share of a real ``train_model`` run (real eval and checkpoint cadence)
    spent outside the training step, measured and projected to a full job.
``eval`` (:mod:`bench.evaluation`)
    :func:`gatedrnn.train.loop.evaluate` on the validation windows against a bare
    ``no_grad`` and an ``inference_mode`` forward, and what validation costs a job.
``dag`` (:mod:`bench.dag`)
    ``snakemake -n --nolock`` on the full default DAG against ``snakemake --version``.
``overhead`` (:mod:`bench.overhead`)
    a finished run's ``results/benchmarks/train`` files against its jobs'
    ``summary.json``: per-job overhead outside ``train_model``, the run's span
    against its jobs' compute.
``variants`` (:mod:`bench.variants`)
    what oneDNN (``torch.backends.mkldnn``), a time-major layout, Adam's
    ``foreach``/``fused`` and ``torch.compile`` do for a CPU step, and whether
    each leaves the trained bytes unchanged.
``threads`` (:mod:`bench.threads`, :mod:`bench.memory`)
    throughput of the machine's cores split into jobs x threads (separate
    processes, started together), and glibc malloc tuning.
``numerics`` (:mod:`bench.numerics`)
    the step time of each ``numerics.cpu_isa`` setting, and of one library pinned at
    a time, beside ``native`` (fresh processes pinned before torch starts); their bits.
``cells``, ``gates`` (:mod:`bench.bench_cells`, :mod:`bench.bench_gates`)
    ``nn.GRU`` against the GRU variants; gate extraction against a step loop.

The grid, its vocabulary and the threads come from ``config/config.yaml`` and
the corpus (:mod:`bench.grid`); timing and statistics are in :mod:`bench.common`.
The token ids are uniform random ids below V (no download needed): a step's
cost does not depend on the text.
"""
