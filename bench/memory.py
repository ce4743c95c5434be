"""Process-level memory settings the benchmarks compare (the training job applies none of them)."""

from __future__ import annotations

import ctypes
import sys

MALLOC_ENV = {
    # Serve the step's large temporaries from the heap and keep it: no mmap/munmap
    # and no page zeroing per step. glibc reads these when the process starts.
    "MALLOC_MMAP_THRESHOLD_": str(1 << 30),
    "MALLOC_TRIM_THRESHOLD_": str(1 << 32),
    "MALLOC_TOP_PAD_": str(1 << 28),
}
# Process settings of the `threads` subcommand: environment variables, or (retain)
# retain_freed_memory() called in the process (the train job does not).
ENV_VARIANTS = {"-": {}, "malloc": MALLOC_ENV, "omp-passive": {"OMP_WAIT_POLICY": "PASSIVE"}, "retain": {}}


def retain_freed_memory() -> bool:
    """Keep freed memory in the process (glibc malloc) rather than handing it back to the OS.

    A CPU step allocates and frees tens of MB of temporaries each time; the LSTM's oneDNN
    workspace is larger than glibc's largest dynamic mmap threshold (32 MB), so by default
    it is a fresh mmap every step whose pages the kernel zeroes and faults in again (about
    12,000 page faults, some 10 % of an LSTM step's CPU time). Served from a heap that is
    never trimmed, they cost nothing (for ~30 MB more peak memory).

    NOT used by the training job: with it, where a buffer lands depends on the
    process's allocation history, CPU kernels take alignment-dependent paths, and a
    width-325 LSTM resumed from a checkpoint no longer ends bit-identical to an
    uninterrupted run (tests/test_train.py::test_resume_is_bit_identical_at_full_size).
    The benchmarks call it on request (``--retain``) to measure what it would buy.
    False where not glibc.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    return bool(
        mallopt(m_mmap_threshold, 1 << 30)
        and mallopt(m_trim_threshold, 2**31 - 1)
        and mallopt(m_top_pad, 1 << 28)
    )
