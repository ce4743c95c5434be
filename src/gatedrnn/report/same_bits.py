"""What the results page says about models trained twice, on one CPU model or two:
the reference run's own retrainings (a stage started on a fresh machine trains the
earlier stages' models again) and the full-size models ``python -m gatedrnn.verify
fingerprint --full-size`` trained again on other machines (its record for the reference's
numerics setting, ``tests/data/numerics_fingerprint_<cpu_isa>.json``), each set beside the
reference's weight hash.
"""

from __future__ import annotations

import json
from pathlib import Path


def fingerprint_path(cpu_isa: str) -> Path:
    """The fingerprint record of a numerics setting (as :func:`gatedrnn.verify.fingerprint.path_for`,
    which sits above this layer), relative to the workflow."""
    return Path("tests") / "data" / f"numerics_fingerprint_{cpu_isa}.json"


def reference_cpu_isa(manifest: dict) -> str | None:
    """The numerics setting the reference's trainings ran under (the first that records one)."""
    for job in manifest.get("training_jobs", {}).values():
        if (job.get("numerics") or {}).get("cpu_isa"):
            return job["numerics"]["cpu_isa"]
    return None


def retraining_sentence(manifest: dict) -> str:
    """How many models trained again by a later stage came out bit for bit the same."""
    agreement = manifest.get("totals", {}).get("retrained_same_bits") or {}
    if not agreement.get("compared"):
        return ""
    text = (
        f" Of the {agreement['compared']} full-size models a later stage trained again, "
        f"{agreement['identical']} came out with the first training's weights bit for bit "
        f"({agreement['identical_on_another_cpu']} of them on another CPU model than the first)"
    )
    first = agreement.get("first_differing")
    return text + (f"; the first that did not: `{first}`." if first else ".")


def _cpu(record: dict | None) -> tuple[str, tuple[str, ...]] | None:
    """A CPU as the kernels see it: model name and the vector extensions recorded."""
    if not record or not record.get("cpu_model"):
        return None
    return record["cpu_model"], tuple(record.get("cpu_flags") or ())


def _cpu_words(cpu: tuple[str, tuple[str, ...]]) -> str:
    name, flags = cpu
    widest = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{name} with {widest}"


def verified_elsewhere(manifest: dict, fingerprint: dict) -> dict:
    """The fingerprint's full-size models that the reference also trained: for each, whether
    its weights are the reference's and the distinct CPU models (the reference's first
    training's and every machine the fingerprint passed on) that gave them."""
    jobs = manifest.get("training_jobs", {})
    models = {}
    for name, record in sorted(fingerprint.get("full_size", {}).items()):
        job = jobs.get(name)
        if not job or not job.get("weights_sha256"):
            continue
        cpus = [_cpu(job.get("numerics")), *(_cpu(p) for p in record.get("passed_on", []))]
        models[name] = {
            "same_weights": record.get("weights_sha256") == job["weights_sha256"],
            "cpus": list(dict.fromkeys(c for c in cpus if c)),
        }
    return models


def verified_elsewhere_sentence(manifest: dict, workflow: Path) -> str:
    """The full-size models trained on two or more CPU models with this run's weights bit for
    bit, or the first whose weights are not this run's; empty without a fingerprint record."""
    cpu_isa = reference_cpu_isa(manifest)
    record = fingerprint_path(cpu_isa or "")
    path = Path(workflow) / record
    if cpu_isa is None or not path.exists():
        return ""
    models = verified_elsewhere(manifest, json.loads(path.read_text()))
    differing = [name for name, m in models.items() if not m["same_weights"]]
    if differing:
        return (f" `{differing[0]}` trained again by `python -m gatedrnn.verify fingerprint "
                f"--full-size` (`{record}`) does not have this run's weights.")  # fmt: skip
    shared = {name: m["cpus"] for name, m in models.items() if len(m["cpus"]) >= 2}
    if not shared:
        return ""
    listed = "; ".join(
        f"`{name}` on {len(cpus)} CPU models ({', '.join(_cpu_words(c) for c in cpus)})"
        for name, cpus in shared.items()
    )
    return (
        f" Full-size models trained on two or more CPU models, each time with this run's weights "
        f"bit for bit: {len(shared)} ({listed}; trained again by `python -m gatedrnn.verify "
        f"fingerprint --full-size`, recorded in `{record}`)."
    )
