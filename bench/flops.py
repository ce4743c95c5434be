"""The floating-point work of a training step and the CPU's peak rate (for ``train-step``)."""

from __future__ import annotations

import math
import re
import subprocess

from gatedrnn.core.sizes import GATE_BLOCKS


def cpu_peak_gflops(cores: int, fma_units: int = 2) -> tuple[float, str]:
    """Single-precision peak = cores x GHz x lanes x 2 (an FMA is 2 flops) x FMA units per core."""
    flags, ghz, source = set(), None, ""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    info = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    info = {k.strip(): v.strip() for k, v in info.items()}
    flags = set(info.get("Flags", "").split())
    if info.get("CPU max MHz"):
        ghz, source = float(info["CPU max MHz"]) / 1000, "lscpu CPU max MHz"
    elif m := re.search(r"@\s*([\d.]+)\s*GHz", info.get("Model name", "")):
        ghz, source = float(m.group(1)), "model name"
    elif info.get("BogoMIPS"):
        ghz, source = float(info["BogoMIPS"]) / 2000, "BogoMIPS / 2 (the TSC rate)"
    if ghz is None:
        return math.nan, "unknown frequency"
    lanes = 16 if "avx512f" in flags else 8 if "avx2" in flags else 4
    peak = cores * ghz * lanes * 2 * fma_units
    how = (
        f"{cores} core(s) x {ghz:.2f} GHz ({source}) x {lanes} fp32 lanes "
        f"({'AVX-512' if lanes == 16 else 'AVX2' if lanes == 8 else 'SSE'}) x 2 (FMA) "
        f"x {fma_units} FMA unit(s)/core = {peak:.0f} GFLOP/s"
    )
    return peak, how


def step_flops(cell: str, hidden: int, vocab: int, embed: int, layers: int, tokens: int) -> dict:
    """Matrix-multiply FLOPs of one forward and of one training step (forward + backward).

    Per token, each weight matrix W (out x in) costs 2 * in * out in the forward pass
    and twice that in the backward pass (gradient with respect to its input and to W),
    so a step is 3 x forward. The embedding is a gather (no FLOPs); the gate
    nonlinearities, the softmax and Adam are elementwise (about 1 % more, not counted).
    """
    blocks = GATE_BLOCKS[cell]
    forward = 0
    for layer in range(layers):
        d_in = embed if layer == 0 else hidden
        forward += 2 * tokens * blocks * hidden * (d_in + hidden)
    forward += 2 * tokens * hidden * vocab
    return {"forward": forward, "step": 3 * forward}
