"""SIGTERM during training: finish the step in progress, checkpoint it, stop.

A scheduler ends a job at its time limit by sending SIGTERM, then SIGKILL after a
grace period (SLURM's ``KillWait``, 30 s by default). :func:`deferred_sigterm`
turns SIGTERM into a flag for the duration of a ``with`` block: the training loop
(:func:`gatedrnn.train.loop.train_model`) checks it after each step, writes a
checkpoint at that step through the usual atomic save and raises
:class:`TrainingInterrupted`; the rule script exits with :data:`SIGTERM_EXIT_STATUS`.
The rerun resumes from that step and ends bit-identical to an uninterrupted run.

The previous handler is put back when the block ends, however it ends: nothing
global outlives the training call. Python runs signal handlers in the main thread
only, so elsewhere (a training call from a worker thread) nothing is installed and
SIGTERM keeps whatever behaviour the process gave it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

# 128 + SIGTERM: the status a shell reports for a process ended by SIGTERM.
SIGTERM_EXIT_STATUS = 128 + signal.SIGTERM


class TrainingInterrupted(RuntimeError):
    """SIGTERM arrived: the step in progress finished and was checkpointed; rerun to resume."""

    def __init__(self, message: str, step: int):
        super().__init__(message)
        self.step = step


class SigtermFlag:
    """Set (``received`` true) once SIGTERM has arrived inside :func:`deferred_sigterm`."""

    def __init__(self) -> None:
        self.received = False

    def __call__(self, signum, frame) -> None:
        self.received = True


@contextlib.contextmanager
def deferred_sigterm(enabled: bool = True) -> Iterator[SigtermFlag | None]:
    """Within the block SIGTERM only sets the yielded flag; the previous handler is
    restored on exit. Yields None (and installs nothing) when not ``enabled`` or not
    in the main thread."""
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield None
        return
    flag = SigtermFlag()
    previous = signal.signal(signal.SIGTERM, flag)
    try:
        yield flag
    finally:
        # None: a handler installed from C, which Python cannot reinstate; the default is closest
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
