# Helpers shared by every rules file: config validation, the plan of runs
# (gatedrnn.plan), and the rules' log and report boilerplate.

import json
import os
import sys
from pathlib import Path

import yaml

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate


def workflow_checkout(rules_dir):
    """The checkout's root, two folders above this rules file. The rule jobs import the
    package from its src/, so the workflow must lie on disk: imported straight from a
    repository (`module ...: snakefile: github(...)`), it refuses with the fix."""
    path = rules_dir.get_path_or_uri(secret_free=True)
    if not os.path.isdir(path):
        raise WorkflowError(
            f"gatedrnn's workflow is read from {path}, not from a folder on this machine; "
            "its jobs import the package beside the rules (src/), so clone the repository "
            "(git clone URL, then git checkout COMMIT to pin it: docs/deploy.md) and point "
            "the module's `snakefile:` at the clone's workflow/Snakefile."
        )
    return os.path.dirname(os.path.dirname(os.path.abspath(path)))


# Where this workflow's checkout is: from this file's own place (workflow/rules/), never
# workflow.basedir, which in a `module` is the importing workflow's folder.
WORKFLOW_ROOT = workflow_checkout(workflow.current_basedir)

# The package is plain Python beside the rules: this checkout's src/ comes first, for
# planning (here) and for every job's script (PYTHONPATH, inherited by local jobs, SLURM
# jobs and conda environments alike), whatever is installed.
SRC = os.path.join(WORKFLOW_ROOT, "src")
sys.path.insert(0, SRC)
_INHERITED = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
os.environ.update(
    PYTHONPATH=os.pathsep.join([SRC] + [p for p in _INHERITED if p != SRC])
)

import gatedrnn

# A copy imported before this file ran (by an importing workflow, say) would plan here.
if not os.path.abspath(gatedrnn.__file__).startswith(os.path.join(SRC, "")):
    raise WorkflowError(
        f"gatedrnn was already imported from {os.path.dirname(gatedrnn.__file__)}, not from "
        f"this workflow's {SRC}; import it only through this workflow (module), or put "
        f"{SRC} first on PYTHONPATH."
    )

from gatedrnn.code_version import code_version as _code_version
from gatedrnn.numerics import DEFAULT as DEFAULT_CPU_ISA
from gatedrnn.numerics import NumericsMismatch
from gatedrnn.numerics import pin as pin_numerics
from gatedrnn.plan.checks import refuse_non_finite
from gatedrnn.plan.config_files import (
    refuse_config_files,
    refuse_float_integers,
    SAFE_LOADER,
    retype_overrides,
)
from gatedrnn.plan.published import regime_view_tables
from gatedrnn.plan.resources import generated_text_problems, machine_memory_mb
from gatedrnn.plan.paths import CELL_ANALYSES
from gatedrnn.plan.table_rows import table_rows
from gatedrnn.plan.toy import toy_note

from gatedrnn.plan import (
    ALPHABET_CHECK,
    ANY_RUN,
    CORPUS,
    CORPUS_INVENTORY,
    CORPUS_PROVENANCE,
    CORPUS_SIZE,
    CORPUS_STEM,
    DATASETS,
    PROTOCOL_CONFIRMATION,
    PROTOCOL_FIGURE,
    PROTOCOL_SCOREBOARD,
    REGIME_SENSITIVITY,
    Plan,
    Run,
    checkpoint_dir,
    gate_file,
    log_file,
    model_file,
    run_files,
)
from gatedrnn.plan.paths import (
    PROTOCOL_CONFIRMATION_REGIMES,
    PROTOCOL_DISTANCE,
    PROTOCOL_FRONT,
    PROTOCOL_ROUND_TWO,
    PROTOCOL_ROUND_TWO_CONFIRMATION_REGIMES,
    PROTOCOL_ROUND_TWO_FIGURE,
    PROTOCOL_ROUND_TWO_FRONT,
    PROTOCOL_ROUND_TWO_PLAN,
    PROTOCOL_ROUND_TWO_REGIMES,
    seed_row_file,
    sized_small_corpus_files,
)

min_version("9.0")


# The config files as written (a key given twice, an empty file: named), and
# --config's nested values, which Snakemake passes as strings ('1600'), read as YAML
# where the schema wants a number (gatedrnn.plan.config_files).
SCHEMA_PATH = os.path.join(WORKFLOW_ROOT, "workflow/schemas/config.schema.yaml")
with open(SCHEMA_PATH) as _schema:
    retype_overrides(
        config, workflow.config_settings.config, yaml.load(_schema, Loader=SAFE_LOADER)
    )
refuse_config_files(workflow.configfiles, WorkflowError)
# NaN passes every bound of the schema and names another key when it fails: refused first.
refuse_non_finite(config, WorkflowError)
# The schema's defaults are config/config.yaml's values, for the reader (and the workflow
# catalog's parameter table), never filled in: a config lacking a key is refused.
validate(config, schema="../schemas/config.schema.yaml", set_default=False)
# JSON Schema counts 40.0 as an integer; the workflow does not (gatedrnn.plan.config_files).
refuse_float_integers(config, SCHEMA_PATH, WorkflowError)

# The instruction set of every job's CPU kernels (gatedrnn.numerics): set here, in
# Snakemake's own environment, before any job starts, so that every job (local, SLURM,
# conda) inherits it and has it before torch is imported; the config wins over the
# shell. The train job checks what torch dispatches to and records it in its summary.
# Under portable_avx2 this builds MKL's vendor shim once (a C compiler) and preloads it.
CPU_ISA = config.get("numerics", {}).get("cpu_isa", DEFAULT_CPU_ISA)
try:
    pin_numerics(CPU_ISA)
except NumericsMismatch as err:  # no working C compiler: the message names the way out
    raise WorkflowError(str(err)) from None

# The plan of runs (gatedrnn.plan, unit-tested in tests/test_plan.py): every regime,
# run, file name and target of this config. Refuses a config whose sweeps or open
# questions name a regime that is missing, clashing or on the wrong dataset.
try:
    PLAN = Plan.from_config(config)
except (
    ValueError
) as err:  # ConfigError and the plan's own refusals: the message says it all
    raise WorkflowError(f"Error validating config file: {err}") from None

# --cores 0 plans the jobs, then waits forever for a core (Snakemake says nothing).
if getattr(workflow.global_resources.get("_cores"), "value", None) == 0:
    raise WorkflowError(
        "--cores 0 gives no job a core; give --cores 1 or more (or --cores all)"
    )

# A toy run (a generated corpus: config/smoke.yaml) keeps out of the real run's data/ and
# results/: refused in the checkout itself, where those lie, before anything is written.
# Every page and ledger it writes opens with TOY_NOTE (gatedrnn.plan.toy).
TOY_NOTE = toy_note(config)
if TOY_NOTE and os.path.realpath(os.getcwd()) == os.path.realpath(WORKFLOW_ROOT):
    raise WorkflowError(
        "this config is a toy run on a generated corpus (corpus.source: synthetic): give it its "
        "own directory, so that it never mixes with the real run's data/ and results/: "
        "snakemake --cores 2 --configfile config/smoke.yaml --directory toy"
    )

# The most memory a training job can have (gatedrnn.plan.resources): --resources mem_mb
# (or a profile's resources:), else, run here, this machine's; a job estimated above
# it is refused before it starts (Snakemake would cap its mem_mb silently).
_GIVEN_MB = workflow.global_resources.get("mem_mb")
if getattr(_GIVEN_MB, "value", None) is not None:
    MEMORY_LIMIT = (int(_GIVEN_MB.value), "--resources mem_mb")
elif workflow.local_exec and not workflow.remote_exec and machine_memory_mb():
    MEMORY_LIMIT = (machine_memory_mb(), "this machine's memory")
else:
    MEMORY_LIMIT = None  # a cluster without --resources mem_mb: its scheduler's limits

if MEMORY_LIMIT is not None and MEMORY_LIMIT[0] < 1:
    raise WorkflowError(
        f"{MEMORY_LIMIT[1]} is {MEMORY_LIMIT[0]} MB: no job could start; give the run memory "
        "(--resources mem_mb=8000, say) or leave it out (this machine's memory)"
    )

# A generated text too large to build in this memory: refused now, not when it runs out.
for _problem in generated_text_problems(PLAN, MEMORY_LIMIT):
    raise WorkflowError(f"Error validating config file: {_problem}")

# The software of every rule (one environment; snakemake --lint wants it per rule).
ENV = "../../envs/gatedrnn.yaml"

# The report's families (workflow/report/workflow.rst): one category each.
REPORT_CATEGORIES = {
    "0": "0. Claims ledger",
    "A": "A. Closed-form tables",
    "B": "B. Gradient reach at initialisation",
    "C": "C. The trained LSTM's gates",
    "D": "D. GRU against LSTM",
    "E": "E. Reach and training dynamics",
    "G": "G. Beyond the study",
    "H": "H. Regime sensitivity",
}


def reported(path, family, subcategory=None, caption=None):
    """`path` flagged for the HTML report under its family's category. The caption is
    workflow/report/<name>.rst: a table's stem (gru_gates), a figure's stem with
    _figure (gru_gates_figure), a top-level file's stem and extension (claims_md)."""
    if caption is None:
        stem, extension = os.path.splitext(os.path.basename(path))
        if path.startswith("results/figures/"):
            caption = f"{stem}_figure"
        elif path.startswith("results/tables/"):
            caption = stem
        else:
            caption = f"{stem}_{extension.lstrip('.')}"
    return report(
        path,
        caption=f"../report/{caption}.rst",
        category=REPORT_CATEGORIES[family],
        subcategory=subcategory,
    )


def code_version(script, data=()):
    """The `code` param of every rule: a hash of the script and of each package module it
    imports (gatedrnn.code_version), and of the workflow's `data` files it reads (paths
    relative to the checkout, e.g. workflow/resources/published.yaml). When the code changes, the
    param changes, and Snakemake's params rerun trigger reruns the rule; comments,
    formatting and docstrings do not count, nor where the checkout lies."""
    script = os.path.join(WORKFLOW_ROOT, "workflow", "scripts", script)
    files = [os.path.join(WORKFLOW_ROOT, path) for path in data]
    return _code_version(script, SRC, files)


def log_for(name):
    """A rule's log (or one job's): results/logs/<name>.log."""
    return log_file(name)


def corpus_record(path):
    """The corpus's record (corpus.json), read while planning a job's resources; an
    empty or truncated one is named, with the fix (gatedrnn.io.files.read_json's words,
    without importing torch here)."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        lacking = [key for key in ("characters", "vocab_size") if key not in record]
    except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as err:
        lacking, record = [f"readable JSON ({err})"], None
    if lacking:
        raise WorkflowError(
            f"{path}: the corpus record is empty or truncated, or not the corpus rule's (it lacks "
            f"{', '.join(lacking)}); delete it and {Path(path).with_suffix('.txt')}, and rerun to "
            "remake both"
        )
    return record


def train_mem_mb(wildcards, input):
    """A training job's mem_mb (Plan.train_mem_mb). A refusal (too little memory, a
    damaged corpus record) is raised as Snakemake's ResourceValidationError, which it
    prints as one message: any other error of a resource function comes wrapped in an
    InputFunctionException with a traceback."""
    from snakemake.exceptions import ResourceValidationError

    try:
        record = corpus_record(input.provenance)
        return PLAN.train_mem_mb(Run.of(wildcards), record, MEMORY_LIMIT)
    except (ValueError, WorkflowError) as err:
        raise ResourceValidationError(str(err)) from None


def confirmation_runs(wildcards):
    """What protocol_confirmation trains: the sweep models of the regimes on the
    distance front and near it at every seed of protocol.confirm.seeds (known once the
    checkpoint protocol_scoreboard has run)."""
    # imported here, not when the DAG is planned: only a run past the checkpoint needs it
    import pandas as pd

    from gatedrnn.claims.front import regimes_to_confirm

    table = pd.read_csv(checkpoints.protocol_scoreboard.get().output.distance)
    return PLAN.confirmation_runs(regimes_to_confirm(table))


def round_two_runs(wildcards):
    """What protocol_round_two trains: the sweep models of round two's points at every
    seed of protocol.round_two.seeds (known once the checkpoint protocol_round_two_plan
    has run)."""
    import pandas as pd

    table = pd.read_csv(checkpoints.protocol_round_two_plan.get().output.table)
    return PLAN.round_two_runs(table["regime"])


def round_two_confirmation_runs(wildcards):
    """What protocol_round_two_confirmation trains: the sweep models of the regimes on
    the front of both rounds and near it (either round) at every seed of
    protocol.confirm.seeds (known once the checkpoint protocol_round_two has run)."""
    import pandas as pd

    from gatedrnn.claims.front import regimes_to_confirm

    table = pd.read_csv(checkpoints.protocol_round_two.get().output.table)
    return PLAN.confirmation_runs(regimes_to_confirm(table))


wildcard_constraints:
    **PLAN.wildcard_constraints,


# One running `snakemake` per working directory. Snakemake's own lock checks for other
# runs' lock files, then writes its own, so two runs started at the same instant can
# both pass it (docs/protocol.md, "Two runs at once"). Once a run has its jobs, before
# the first starts, it takes an exclusive flock on .snakemake/ for as long as it lives
# (the kernel drops it when the process ends, killed or not); a run that finds it
# held stops there. Dry runs and the job-side Snakemake of a cluster job (--no-hooks)
# never get here.
_RUN_LOCK = []


onstart:
    import errno
    import fcntl
    from snakemake.exceptions import WorkflowError
    from gatedrnn.plan.places import output_folders, place_problems

    # a folder the jobs write into that is a file or read-only: refused before any job
    _places = place_problems(output_folders(PLAN))
    if _places:
        raise WorkflowError(
            "cannot write this run's outputs:\n  " + "\n  ".join(_places)
        )
    fd = os.open(".snakemake", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        os.close(fd)
        if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
            print(
                f"note: .snakemake cannot be locked here ({err.strerror}); going on"
            )
        else:
            raise WorkflowError(
                f"another snakemake run holds {os.path.abspath('.snakemake')}: two runs "
                "started on this directory at once and both passed Snakemake's own lock. "
                "Let the other run finish, then run this command again"
            )
    else:
        _RUN_LOCK.append(fd)  # held until this process exits


# Where the claims files are (PUBLISHED_CLAIMS, ...): the claims rules and the figure
# rules that mark the study's values read published.yaml.
include: "claims_common.smk"
