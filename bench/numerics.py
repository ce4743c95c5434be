"""``numerics``: the step time of each ``numerics.cpu_isa`` setting beside ``native``, and its bits.

Every timing is a fresh process whose environment is the setting's
(:func:`gatedrnn.numerics.environment_for`, before torch is imported), as a workflow job's
is: n bare training steps (:class:`bench.harness.BareLoop`) after one warm-up
step, then the sha256 of the weights. Settings run in interleaved rounds; the
table gives each one's median CPU time per step over ``native``'s, and whether
its weights differ from ``native``'s. Besides the workflow's settings, one
library at a time (``aten=avx2``, ``onednn=AVX2``, ``mkl=COMPATIBLE+STRICT``...)
says which library costs what, and a setting with one library changed
(``portable:mkl=AVX2+STRICT``) what a candidate pin would cost.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys

from bench.common import Sample, interleave, label, med, parse_models

# One library at a time: name=value, the rest unset (native).
LIBRARY_VARIABLES = {
    "aten": ("ATEN_CPU_CAPABILITY",),
    "onednn": ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"),
    "mkl": ("MKL_CBWR",),
}


def setting_environment(setting: str) -> dict[str, str | None]:
    """The variables of a workflow setting (``avx2``), of one library (``mkl=AVX2,STRICT``: the
    rest unset), or of a setting with one library changed (``portable:mkl=AVX2+STRICT``)."""
    from gatedrnn.numerics import VARIABLES, environment_for

    base, _, change = setting.rpartition(":") if ":" in setting else ("", "", setting)
    if "=" not in change:
        return environment_for(setting)
    library, value = change.split("=", 1)
    value = value.replace("+", ",")  # mkl=AVX2+STRICT: the list's commas separate settings
    if library not in LIBRARY_VARIABLES:
        choices = ", ".join(LIBRARY_VARIABLES)
        raise SystemExit(f"--settings: {setting!r}: use a setting or [SETTING:]LIBRARY=VALUE ({choices})")
    environment = environment_for(base) if base else dict.fromkeys(VARIABLES)
    return environment | {name: value for name in LIBRARY_VARIABLES[library]}


def cmd_numerics_worker(args) -> None:
    """Internal: n bare steps under this process's environment; prints timing, hash, what was in force."""
    import torch

    from bench.grid import synthetic_split
    from bench.harness import BareLoop
    from gatedrnn.numerics import in_force
    from gatedrnn.train.config import TrainConfig

    torch.set_num_threads(args.threads)
    train_ids, _ = synthetic_split(args.vocab)
    bare = BareLoop(args.cell, args.hidden, args.vocab, TrainConfig(), torch.device("cpu"), train_ids)
    bare.step()  # warm-up (oneDNN primitives, allocator); part of the hashed training
    sample = bare.steps(args.steps, bare.step)
    digest = hashlib.sha256()
    for key, tensor in sorted(bare.model.state_dict().items()):
        digest.update(key.encode())
        digest.update(tensor.contiguous().numpy().tobytes())
    found = in_force()
    print(
        json.dumps(
            {
                **dataclasses.asdict(sample),
                "sha256": digest.hexdigest(),
                "capability": found["torch_cpu_capability"],
                "mkl": found["mkl_branch"],
            }
        ),
        flush=True,
    )


def setting_preload(setting: str, preload: str | None) -> str | None:
    """``LD_PRELOAD`` for a setting: the workflow's (MKL's vendor shim under portable_avx2,
    :func:`gatedrnn.numerics.preload_for`); none for one library alone (``mkl=AVX2+STRICT``)."""
    from gatedrnn.numerics import preload_for

    base = setting.split(":", 1)[0]
    return preload_for(base if "=" not in base else "native", preload)


def timing(setting: str, cell: str, hidden: int, args) -> dict:
    env = dict(os.environ)
    variables = setting_environment(setting) | {"LD_PRELOAD": setting_preload(setting, env.get("LD_PRELOAD"))}
    for name, value in variables.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    cmd = [sys.executable, "-m", "bench", "_numerics_step", "--cell", cell, "--hidden", str(hidden)]
    cmd += ["--vocab", str(args.vocab), "--threads", str(args.threads), "--steps", str(args.steps)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"numerics worker {setting} {cell} w{hidden} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cmd_numerics(args) -> None:
    from bench.grid import default_threads
    from gatedrnn.numerics import cpu_model

    args.threads = args.threads if args.threads is not None else default_threads()
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    if "native" not in settings:
        settings.insert(0, "native")
    print(
        f"# numerics: {cpu_model()}, {args.threads} thread(s), V {args.vocab} ({args.vocab_source}), "
        f"{args.steps} bare steps per timing after 1 warm-up, fresh process each, "
        f"{args.rounds} interleaved rounds; medians of CPU time"
    )
    rows = []
    for cell, hidden in parse_models(args.models):
        results = {s: [] for s in settings}

        def run(setting, c=cell, h=hidden, out=results):
            found = timing(setting, c, h, args)
            out[setting].append(found)
            return Sample(found["wall"], found["cpu"])

        samples = interleave({s: (lambda s=s: run(s)) for s in settings}, args.rounds)
        rows.append((cell, hidden, samples, results))
        print(f"  done {cell} w{hidden}", file=sys.stderr, flush=True)

    print()
    width = max(22, *(len(s) for s in settings))
    print(f"{'model':<10} {'setting':<{width}} {'ms/step':>8} {'x native':>8}  ", end="")
    print(f"{'bits':<10} dispatch (ATen, MKL)")
    for cell, hidden, samples, results in rows:
        base = med(samples["native"], "cpu") / args.steps
        native_hash = results["native"][0]["sha256"]
        for setting in settings:
            per_step = med(samples[setting], "cpu") / args.steps
            hashes = {r["sha256"] for r in results[setting]}
            bits = "unstable" if len(hashes) > 1 else ("= native" if native_hash in hashes else "differ")
            first = results[setting][0]
            print(
                f"{label(cell, hidden):<10} {setting:<{width}} "
                f"{per_step * 1e3:>8.1f} {per_step / base:>8.3f}  "
                f"{bits:<10} {first['capability']}, {first['mkl']}"
            )
    print()
    print(
        "x native = median CPU time per step over native's (one thread: CPU time is the steadier "
        "figure on a shared machine); bits: the weights after the timed steps against native's."
    )
