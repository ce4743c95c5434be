"""Running a process on an emulated CPU (qemu-user), for the numerics fingerprint.

``qemu-x86_64 -cpu MODEL`` runs an x86-64 program on this machine with the CPUID of
another CPU model: MKL, oneDNN and PyTorch read that vendor, those features and those
cache sizes and choose their kernels by them, as they would on such a machine. IEEE
arithmetic is exact under emulation, so a kernel choice that changes the bits shows as a
difference; an approximate instruction (rcpps, rsqrtps), which real Intel and AMD chips
compute differently, shows too, since qemu computes it in yet another way. That is how
the two non-portable kernels under the first ``portable`` pin were found (gatedrnn.numerics).

Debian: ``apt-get install qemu-user``. TCG emulates AVX2 and FMA (qemu 7.2), not AVX-512.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

QEMU = "qemu-x86_64"


class NoEmulator(RuntimeError):
    """qemu-x86_64 is missing, or does not know the CPU model."""


def version(qemu: str) -> str:
    first = subprocess.run([qemu, "--version"], capture_output=True, text=True, check=True).stdout
    return first.splitlines()[0].replace("qemu-x86_64 version ", "").split(" (")[0]


def known_models(qemu: str) -> set[str]:
    # qemu prints the list and exits 1
    listing = subprocess.run([qemu, "-cpu", "help"], capture_output=True, text=True).stdout
    rows = [line.split() for line in listing.splitlines() if line.startswith("x86 ")]
    return {row[1] for row in rows if len(row) > 1}


def command(model: str) -> tuple[list[str], str]:
    """The command prefix that runs this Python on CPU ``model``, and its description
    (``qemu-x86_64 7.2.22 -cpu Haswell-noTSX``)."""
    qemu = shutil.which(QEMU)
    if qemu is None:
        raise NoEmulator(f"{QEMU} is not installed: apt-get install qemu-user (Debian)")
    if model not in known_models(qemu):
        raise NoEmulator(f"{QEMU} does not know the CPU model {model!r}: see {QEMU} -cpu help")
    return [qemu, "-cpu", model, sys.executable], f"{QEMU} {version(qemu)} -cpu {model}"


def run(child: list[str]) -> int:
    """Run ``child``, passing its output on without qemu's warnings about CPU features its
    emulator lacks (it leaves them out of the emulated CPUID, so the libraries see that)."""
    proc = subprocess.run(child, capture_output=True, text=True)
    for stream, text in ((sys.stdout, proc.stdout), (sys.stderr, proc.stderr)):
        for line in text.splitlines():
            if "TCG doesn't support requested feature" not in line:
                print(line, file=stream)
    return proc.returncode
