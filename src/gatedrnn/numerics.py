"""Pinned numerics: which instruction set the CPU kernels of a job use (config ``numerics.cpu_isa``).

Three libraries pick their kernels by the CPU they find, and each kernel sums in
its own order, so the same training gives other bits on another CPU:

- PyTorch's own kernels (element-wise ops, reductions, Adam): ``ATEN_CPU_CAPABILITY``;
- oneDNN (the LSTM / GRU / RNN layers): ``ONEDNN_MAX_CPU_ISA`` (and its older name
  ``DNNL_MAX_CPU_ISA``, which oneDNN reads only when the new one is unset);
- MKL (``nn.Linear``'s GEMM, the custom cells' matmuls): ``MKL_CBWR``, its
  conditional numerical reproducibility (CNR) branch. ``STRICT`` makes GEMM
  bit-reproducible whatever the memory alignment of its operands.

Each library reads its variable once, when torch (or the library) first needs it,
so the variables must be set before torch is imported in the process
(:func:`pin_this_process`); the workflow
sets the variables in its own environment at parse time, which every job, local
or SLURM, inherits, and the training job checks what torch actually dispatches
to (:func:`check_in_force`). This module imports torch only inside functions.

Settings (:data:`SETTINGS`; measured in ``bench/README.md``, "Pinned numerics"):

- ``portable_avx2`` (the default): PyTorch at AVX2, oneDNN at AVX (no FMA), MKL at
  ``AVX2,STRICT`` on every vendor. MKL runs its CNR branches only where its vendor
  check (``mkl_serv_intel_cpu``) says Intel, and on another vendor falls back to
  ``AUTO``; a two-line library (:data:`VENDOR_SHIM_SOURCE`, built once with the C
  compiler, :func:`vendor_shim`) answers that check "Intel", preloaded in every job
  (``LD_PRELOAD``, :func:`pin`) or loaded before torch (:func:`pin_this_process`).
  The AVX2 code itself runs on any AVX2 CPU and gives the same bits (checked on an
  emulated AMD EPYC and Intel Haswell: ``python -m gatedrnn.verify fingerprint
  --emulate``). About half the cost of ``portable``: the GRU's and the RNN's
  recurrent products leave MKL's slowest branch.
- ``portable``: as ``portable_avx2`` with MKL at ``COMPATIBLE,STRICT`` (SSE2, no
  approximate reciprocals), the branch MKL documents as identical on Intel and
  compatible (AMD) CPUs: no shim and no compiler, twice the cost. The reference
  runs before December 2026 were made under it.
- ``avx2``: all three at AVX2, MKL strict. Intel CPUs only: MKL's CNR branches are
  Intel's; on a non-Intel CPU MKL runs its AUTO branch (documented), which
  :func:`check_in_force` sees and refuses.
- ``avx512``: all three at AVX-512 (Intel Xeon with AVX-512 only, like ``avx2``
  for MKL).
- ``native``: whatever the libraries pick (the variables are removed).

Why oneDNN at AVX, not AVX2, under both portable settings: its AVX2 LSTM kernels give other
bits on an emulated CPU than on the real one (``python -m gatedrnn.verify fingerprint
--emulate``, :mod:`gatedrnn.verify.emulation`): their result depends on more than
the instruction set, so two vendors' chips are not assured to agree; at AVX the
emulated and the real CPU agree. The other kernel the pin cannot
reach is MKL's VML, behind ``torch.sqrt``: it picks its kernel by the CPU whatever
``MKL_CBWR`` says, and that kernel is not exactly rounded. The training avoids it
(Adam ``fused``, :func:`gatedrnn.train.loop.make_optimizer`).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import MutableMapping
from pathlib import Path

# The variables a setting owns: each is set to the setting's value or removed.
VARIABLES = ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", "MKL_CBWR")

# What each library is asked for; "native" asks nothing.
_LIBRARIES = {
    "portable_avx2": ("avx2", "AVX", "AVX2,STRICT"),
    "portable": ("avx2", "AVX", "COMPATIBLE,STRICT"),
    "avx2": ("avx2", "AVX2", "AVX2,STRICT"),
    "avx512": ("avx512", "AVX512_CORE", "AVX512,STRICT"),
    "native": None,
}
SETTINGS: dict[str, dict[str, str]] = {
    name: {}
    if libs is None
    else {
        "ATEN_CPU_CAPABILITY": libs[0],
        "ONEDNN_MAX_CPU_ISA": libs[1],
        "DNNL_MAX_CPU_ISA": libs[1],
        "MKL_CBWR": libs[2],
    }
    for name, libs in _LIBRARIES.items()
}
DEFAULT = "portable_avx2"

# The settings whose MKL branch needs MKL's vendor check answered "Intel" on every CPU.
NEEDS_VENDOR_SHIM = frozenset({"portable_avx2"})
# MKL (linked into libtorch_cpu) calls both through the PLT, so a library loaded before it
# with these symbols global answers for it. Nothing else changes: the AVX2 kernels MKL
# then picks need only AVX2 and FMA, which the CPU has (it is checked by MKL itself).
VENDOR_SHIM_SOURCE = """\
/* gatedrnn.numerics: MKL's vendor check answered "Intel", so that its AVX2,STRICT
   conditional-numerical-reproducibility branch runs on any AVX2 CPU. */
int mkl_serv_intel_cpu(void) { return 1; }
int mkl_serv_intel_cpu_true(void) { return 1; }
"""
_SHIM_PREFIX = "gatedrnn-mkl-vendor-shim-"

# torch.backends.cpu.get_cpu_capability() for each ATEN_CPU_CAPABILITY value.
_TORCH_CAPABILITY = {"default": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512"}
# MKL's CNR branch numbers (mkl_cbwr_get(MKL_CBWR_BRANCH), mkl.h) and its STRICT bit.
_MKL_BRANCHES = {0: "OFF", 1: "OFF", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 8: "SSE4_2", 9: "AVX"}
_MKL_BRANCHES.update({10: "AVX2", 11: "AVX512_MIC", 12: "AVX512", 13: "AVX512_MIC_E1", 14: "AVX512_E1"})
_MKL_STRICT = 0x10000


class NumericsMismatch(ValueError):
    """What a job runs under is not what numerics.cpu_isa asks for."""


def environment_for(cpu_isa: str) -> dict[str, str | None]:
    """Every variable of :data:`VARIABLES`: its value under ``cpu_isa``, or None (removed)."""
    if cpu_isa not in SETTINGS:
        raise ValueError(
            f"numerics.cpu_isa is {cpu_isa!r}; use one of {', '.join(SETTINGS)} (config/README.md)"
        )
    return {name: SETTINGS[cpu_isa].get(name) for name in VARIABLES}


def _cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gatedrnn"


def vendor_shim(folder: Path | None = None) -> Path:
    """The shared library of :data:`VENDOR_SHIM_SOURCE`, built once with the C compiler
    (``$CC``, else ``cc`` or ``gcc``) into ``folder`` (default ``~/.cache/gatedrnn``, or
    ``$XDG_CACHE_HOME/gatedrnn``), named by its source's hash; written to a temporary
    name and renamed, so that jobs starting at once never load half a file."""
    folder = _cache_folder() if folder is None else Path(folder)
    digest = hashlib.sha256(VENDOR_SHIM_SOURCE.encode()).hexdigest()[:16]
    library = folder / f"{_SHIM_PREFIX}{digest}.so"
    if library.exists():
        return library
    compiler = shlex.split(os.environ.get("CC", "")) or [shutil.which("cc") or shutil.which("gcc") or ""]
    if not compiler[0]:
        raise NumericsMismatch(
            "numerics.cpu_isa portable_avx2 needs a C compiler (cc or gcc) once, to build MKL's "
            "vendor shim: install one (Debian: apt-get install gcc), or set numerics.cpu_isa: "
            "portable (no shim, about twice the training time)"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as work:
            source, built = Path(work) / "shim.c", Path(work) / "shim.so"
            source.write_text(VENDOR_SHIM_SOURCE)
            env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
            proc = subprocess.run(
                [*compiler, "-shared", "-fPIC", "-O2", "-o", str(built), str(source)],
                capture_output=True, text=True, env=env,
            )  # fmt: skip
            if proc.returncode != 0:
                said = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "no message"
                raise NumericsMismatch(
                    f"numerics.cpu_isa portable_avx2: {compiler[0]} could not build MKL's vendor "
                    f"shim ({said}); fix the compiler, or set numerics.cpu_isa: portable"
                )
            os.replace(built, library)
    except OSError as err:
        raise NumericsMismatch(
            f"numerics.cpu_isa portable_avx2: cannot write MKL's vendor shim in {folder} ({err.strerror}); "
            "set XDG_CACHE_HOME to a writable folder, or numerics.cpu_isa: portable"
        ) from None
    return library


def _without_shim(preload: str) -> list[str]:
    # LD_PRELOAD separates with colons or spaces (ld.so(8)); keep what else the shell preloads
    return [entry for entry in preload.replace(":", " ").split() if _SHIM_PREFIX not in Path(entry).name]


def preload_for(cpu_isa: str, preload: str | None) -> str | None:
    """``LD_PRELOAD`` under ``cpu_isa``, from what it was: the vendor shim first where the
    setting needs it, removed where it does not; the shell's own entries kept."""
    entries = _without_shim(preload or "")
    if cpu_isa in NEEDS_VENDOR_SHIM:
        entries.insert(0, str(vendor_shim()))
    return " ".join(entries) or None


def pin(cpu_isa: str, environ: MutableMapping[str, str] | None = None) -> dict[str, str | None]:
    """Set (or remove) the variables of ``cpu_isa`` in ``environ`` (default: this process's,
    which the processes it starts inherit), whatever was there: the config wins over the
    shell. ``LD_PRELOAD`` gains the vendor shim where the setting needs it (the shell's
    other entries stay). Returns what was there before."""
    wanted = environment_for(cpu_isa)
    environ = os.environ if environ is None else environ
    before = {name: environ.get(name) for name in (*VARIABLES, "LD_PRELOAD")}
    preload = preload_for(cpu_isa, environ.get("LD_PRELOAD"))
    for name, value in {**wanted, "LD_PRELOAD": preload}.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    return before


def vendor_shim_loaded() -> bool:
    """Whether this process has the vendor shim loaded (preloaded or by :func:`pin_this_process`)."""
    with contextlib.suppress(OSError):
        return _SHIM_PREFIX in Path("/proc/self/maps").read_text()
    return False


def pin_this_process(cpu_isa: str) -> None:
    """:func:`pin` for this process's own kernels: only before torch is imported (the
    libraries read their variables once, MKL asks its vendor once); refused after, unless
    already pinned alike. Loads the vendor shim where the setting needs it."""
    shim_missing = cpu_isa in NEEDS_VENDOR_SHIM and not vendor_shim_loaded()
    if "torch" in sys.modules and (
        shim_missing or any(os.environ.get(k) != v for k, v in environment_for(cpu_isa).items())
    ):
        raise NumericsMismatch(
            f"numerics.cpu_isa {cpu_isa}: torch is already imported in this process, so its "
            "kernels are chosen; pin the numerics before importing torch"
        )
    pin(cpu_isa)
    if shim_missing:
        # global, so that libtorch_cpu's calls to MKL's vendor check resolve to it
        ctypes.CDLL(str(vendor_shim()), mode=ctypes.RTLD_GLOBAL)


def weights_sha256(state_dict: dict) -> str:
    """sha256 of a model's weights: each tensor's name, dtype, shape and bytes, by name.
    Independent of how the file was written (``torch.save``'s archive format)."""
    digest = hashlib.sha256()
    for name in sorted(state_dict):
        tensor = state_dict[name].detach().to("cpu").contiguous()
        digest.update(f"{name} {tensor.dtype} {tuple(tensor.shape)}\n".encode())
        digest.update(tensor.numpy().tobytes())
    return digest.hexdigest()


def file_sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cpu_flags() -> list[str]:
    """The CPU's vector extensions that decide what the libraries can dispatch to."""
    wanted = ("sse2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni")
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                present = set(line.split(":", 1)[1].split())
                return [flag for flag in wanted if flag in present]
    return []


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what ``platform`` says."""
    with contextlib.suppress(OSError, AttributeError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def cpu_vendor() -> str:
    with contextlib.suppress(OSError, AttributeError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("vendor_id"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def mkl_branch() -> str | None:
    """MKL's CNR branch in force (``AVX2,STRICT``, ``OFF``...), read from the MKL that torch
    links; None when it cannot be read (no MKL, or another build)."""
    import torch

    if not torch.backends.mkl.is_available():
        return None
    with contextlib.suppress(OSError, AttributeError):
        library = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
        get = library.mkl_serv_cbwr_get
        get.restype, get.argtypes = ctypes.c_int, [ctypes.c_int]
        value = get(-1)  # MKL_CBWR_ALL: the branch and the STRICT bit
        name = _MKL_BRANCHES.get(value & 0xFFFF, str(value & 0xFFFF))
        return name + (",STRICT" if value & _MKL_STRICT else "")
    return None


def in_force() -> dict:
    """What this process's kernels run under: the variables, what torch dispatches to,
    MKL's branch, the CPU and the torch build (for a training's summary)."""
    import torch

    return {
        "environment": {name: os.environ.get(name) for name in VARIABLES},
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "mkl_branch": mkl_branch(),
        "mkl_vendor_shim": vendor_shim_loaded(),
        "mkldnn_enabled": bool(torch.backends.mkldnn.enabled),
        "cpu_model": cpu_model(),
        "cpu_vendor": cpu_vendor(),
        "cpu_flags": cpu_flags(),
        "torch_version": torch.__version__,
    }


def mismatches(cpu_isa: str, found: dict) -> list[str]:
    """How ``found`` (:func:`in_force`) falls short of ``cpu_isa``: one sentence per library."""
    wanted = environment_for(cpu_isa)
    problems = [
        f"{name}={found['environment'].get(name)!r}, not {value!r}"
        for name, value in wanted.items()
        if found["environment"].get(name) != value
    ]
    if cpu_isa == "native":
        return problems
    capability = _TORCH_CAPABILITY[wanted["ATEN_CPU_CAPABILITY"]]
    if found["torch_cpu_capability"] != capability:
        problems.append(
            f"PyTorch dispatches to {found['torch_cpu_capability']}, not {capability} "
            "(this CPU lacks it, or torch was imported before the pin)"
        )
    if found["mkl_branch"] is not None and found["mkl_branch"] != wanted["MKL_CBWR"]:
        why = (
            "MKL's vendor check was not answered by the vendor shim: run the job through the "
            "workflow, which preloads it"
            if cpu_isa in NEEDS_VENDOR_SHIM
            else "MKL's ISA branches are for Intel CPUs only: on another vendor use "
            f"numerics.cpu_isa {DEFAULT}"
        )
        problems.append(f"MKL runs its {found['mkl_branch']} branch, not {wanted['MKL_CBWR']} ({why})")
    return problems


def check_in_force(cpu_isa: str, device: str = "cpu") -> dict:
    """:func:`in_force` with ``cpu_isa`` and the device added; raises
    :class:`NumericsMismatch` naming each library that is not pinned as asked."""
    found = {"cpu_isa": cpu_isa, "device": device, **in_force()}
    problems = mismatches(cpu_isa, found) if device == "cpu" else []
    if problems:
        raise NumericsMismatch(
            f"numerics.cpu_isa {cpu_isa} is not in force: " + "; ".join(problems) + ". Run the job "
            "through the workflow (which pins it before torch starts), or choose a setting this "
            "CPU supports (config/README.md, numerics)"
        )
    return found
