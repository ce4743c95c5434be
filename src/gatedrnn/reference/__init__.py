"""The reference run, committed: a finished run's small outputs under ``reference/``
with a manifest that says how, where and from what they were made.

    python -m gatedrnn.reference collect --stage study     # after `snakemake --cores 2 stage_study`
    python -m gatedrnn.reference ledger                    # claims.*, open_questions.md from reference/tables
    python -m gatedrnn.reference pages                     # docs/results.md, the README summary, ...
    python -m gatedrnn.reference scoreboard                # check reference/'s scoreboard against its tables
    python -m gatedrnn.reference confirm [--targets]       # the confirmation, from reference/'s tables
    python -m gatedrnn.reference restore --stage protocol  # a stage's tables into results/ (a fresh machine)

``collect`` copies every table (CSV), every figure (PNG), the claims ledger and
``open_questions.md`` that the run has, and records in ``reference/manifest.json``:
the stage and the commit it was made at, the config, the corpus checksum, the
Python and torch versions, the CPU model and core count, the threads per job, and
each training job's wall and CPU time and peak memory (``results/benchmarks/``);
each stage also records its own machine and its training jobs, and the models it
trained again because an earlier stage's ``results/`` were gone (``retrained``).
Stages accumulate: collecting ``regimes`` after ``study`` keeps the study's files
and adds the sweep's. A file another stage already collected must be identical
(same bytes) or collect refuses, naming it.

Modules: :mod:`gatedrnn.reference.manifest` (collecting a stage),
:mod:`gatedrnn.reference.tables` (what is computed from ``reference/``'s own tables:
the ledger, the scoreboard, the scoreboard's confirmation), :mod:`gatedrnn.reference.restore`
(a collected stage's tables back into a run, to go on from them), ``__main__`` (the command).
"""

from gatedrnn.reference.manifest import MANIFEST, REFERENCE, collect, read_benchmark, training_jobs
from gatedrnn.reference.tables import (
    complete_protocol,
    confirmation_files,
    load_config,
    page_ledger,
    reference_front,
    reference_ledger,
    reference_open_questions,
    reference_scoreboard,
    write_ledger,
)

__all__ = [
    "MANIFEST",
    "REFERENCE",
    "collect",
    "complete_protocol",
    "confirmation_files",
    "load_config",
    "read_benchmark",
    "page_ledger",
    "reference_ledger",
    "reference_front",
    "reference_open_questions",
    "reference_scoreboard",
    "training_jobs",
    "write_ledger",
]
