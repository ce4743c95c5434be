"""Glue for the workflow's rule scripts: logging to the rule's ``log:`` file and
clear failures (a message naming the problem and the fix, not a bare traceback)."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import traceback
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from gatedrnn.errors import CorpusError, TrainingDiverged

# Errors whose message already says what is wrong and how to fix it.
EXPECTED_ERRORS = (CorpusError, TrainingDiverged, ValueError, FileNotFoundError, PermissionError, OSError)
# OSErrors that mean a path cannot be written: the message gets the fix appended.
UNWRITABLE = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENOTDIR, errno.EEXIST}
UNWRITABLE_HINT = (
    "; make that path writable (permissions, free disk space, no regular file where a "
    "directory belongs) and rerun"
)


def workflow_file(snakemake, relative: str) -> Path:
    """A file shipped with the workflow (``workflow/resources/published.yaml``), found from the rule
    script's own place (``workflow/scripts/``), whatever the working directory is."""
    return Path(snakemake.scriptdir).resolve().parents[1] / relative


def set_threads(threads: int) -> None:
    """PyTorch's threads for this process, without importing it: a rule that reads only
    tables never pays for torch (seconds per job). Where torch is loaded already, set
    now; where not, its thread pools start from the environment when it loads."""
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)
    else:
        os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = str(threads)


def run_logged(log_path: str, main: Callable[[Callable[[str], None]], None], threads: int = 1) -> None:
    """Run ``main(log)`` with stdout/stderr going to ``log_path``, on ``threads`` torch threads.

    Rule scripts run single-threaded unless they say otherwise: PyTorch's default is
    one thread per core, and a number must not depend on the machine's core count.

    An expected error is written to the log and to the console as one line
    ``ERROR: ...`` and the process exits with status 1; anything else keeps its
    traceback in the log. Every line ``log`` writes starts with the local time
    (ISO 8601, seconds); the first says which copy of the package runs.
    """
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    set_threads(threads)
    console = sys.__stderr__
    with open(log_path, "w", buffering=1) as log_file:

        def log(message: str) -> None:
            stamp = datetime.now().astimezone().isoformat(timespec="seconds")
            print(f"{stamp} {message}", file=log_file, flush=True)

        log(f"gatedrnn from {Path(__file__).parent} (pid {os.getpid()})")

        with contextlib.redirect_stdout(log_file), contextlib.redirect_stderr(log_file):
            try:
                main(log)
            except EXPECTED_ERRORS as err:
                message = f"ERROR: {err}"
                if isinstance(err, OSError) and err.errno in UNWRITABLE:
                    message += UNWRITABLE_HINT
                log(message)
                print(message, file=console, flush=True)
                sys.exit(1)
            except Exception:
                traceback.print_exc(file=log_file)
                raise
